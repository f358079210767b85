"""Every API call as data: method, path, parameters, body and how to read the answer.

Both clients (sync and async) send the same :class:`Call` objects, so an
endpoint is described once here and the clients stay two thin loops over
HTTP. Nothing in this module does I/O.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError

from agents._exceptions import UnexpectedResponse
from agents._models import (
    AccessToken,
    ActionResult,
    AdmissionPassed,
    AgentMeta,
    AgentProfile,
    AssignmentsPage,
    ChallengeCreated,
    EventsPage,
    GameList,
    HouseBotSeat,
    Jwks,
    LeaderboardOut,
    ObservationOut,
    RatedQueueTicket,
    ReplayOut,
    Revoked,
    SecretRotated,
    TableList,
    TableOut,
    TokenIssued,
    TournamentList,
    TournamentOut,
    TournamentResults,
)

__all__ = ["ActionBody", "Call", "idempotency_key"]

log = logging.getLogger("agents")

T = TypeVar("T")

LONG_POLL_GRACE_S = 30.0
"""How much longer than its ``wait`` a long-poll may take before the client gives up on it."""

ActionBody = str | BaseModel | Mapping[str, Any]
"""An action: its id string, an engine action object, or the structured form as a dict."""


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request and the reader of its successful answer.

    ``repeatable`` marks calls that are safe to send again after a 5xx or a
    broken connection (reads, and actions carrying an ``Idempotency-Key``).
    """

    method: str
    path: str
    read: Callable[[httpx.Response], T]
    params: Mapping[str, Any] | None = None
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    repeatable: bool = False
    authenticated: bool = True
    timeout_s: float | None = None
    """Overrides the client's timeout (a long-poll must outlast its own wait)."""


def _model(model: type[T] | Any) -> Callable[[httpx.Response], T]:
    """A reader validating the JSON answer with ``model`` (a class or a type expression)."""
    adapter: TypeAdapter[T] = TypeAdapter(model)

    def read(response: httpx.Response) -> T:
        try:
            return adapter.validate_json(response.content)
        except ValidationError as wrong:
            raise UnexpectedResponse(
                f"{response.request.method} {response.request.url.path} answered a body that "
                f"does not match the model: {wrong.error_count()} error(s)",
                status=response.status_code,
                body=response.text[:2000],
            ) from wrong

    return read


def _text(response: httpx.Response) -> str:
    return response.text


def _json(response: httpx.Response) -> dict[str, Any]:
    payload = response.json()
    if not isinstance(payload, dict):
        raise UnexpectedResponse("expected a JSON object", status=response.status_code, body=response.text[:2000])
    return payload


def _drop_none(params: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in params.items() if value is not None}


def action_json(action: ActionBody) -> Any:
    """The wire form of ``action``: the id string, or the structured object as JSON."""
    if isinstance(action, str):
        return action
    if isinstance(action, BaseModel):
        return action.model_dump(mode="json")
    return dict(action)


def new_request_key() -> str:
    """A fresh ``Idempotency-Key`` for one create or join: the call keeps it through its own
    retries, so the server applies it once."""
    return "sdk-" + uuid.uuid4().hex


def idempotency_key(*, table_id: str, version: int, action: Any) -> str:
    """The key of one logical action: the same table, version and action.

    Deterministic, so a retry — even from a new process after a crash, or with
    a renewed token — reuses the key and the server applies the action at most
    once. The server keeps keys per agent, so two agents sending the same
    action at the same version never share one.
    """
    material = json.dumps(
        {"table": table_id, "version": version, "action": action}, sort_keys=True, separators=(",", ":")
    )
    return "sdk-" + hashlib.sha256(material.encode()).hexdigest()[:40]


# ---- operations -----------------------------------------------------------------


def healthz() -> Call[dict[str, Any]]:
    """``GET /healthz``: the process answers."""
    return Call("GET", "/healthz", _json, repeatable=True, authenticated=False)


def readyz() -> Call[dict[str, Any]]:
    """``GET /readyz``: the server reaches Redis."""
    return Call("GET", "/readyz", _json, repeatable=True, authenticated=False)


def metrics() -> Call[str]:
    """``GET /metrics``: the Prometheus text exposition of every worker's counters."""
    return Call("GET", "/metrics", _text, repeatable=True, authenticated=False)


def jwks() -> Call[Jwks]:
    """``GET /.well-known/jwks.json``: the public keys that verify tokens."""
    return Call("GET", "/.well-known/jwks.json", _model(Jwks), repeatable=True, authenticated=False)


# ---- identity ---------------------------------------------------------------------


def me() -> Call[AgentProfile]:
    """``GET /v1/agents/me``."""
    return Call("GET", "/v1/agents/me", _model(AgentProfile), repeatable=True)


MetaChanges = AgentMeta | Mapping[str, str | None]
"""Agent metadata to send: an :class:`AgentMeta` (the fields set on it) or a mapping."""


def _meta_json(meta: MetaChanges) -> dict[str, Any]:
    """The wire form of ``meta``: only the fields given, ``None`` for one to clear."""
    if isinstance(meta, AgentMeta):
        return meta.model_dump(mode="json", exclude_unset=True)
    return dict(meta)


def update_me(meta: MetaChanges) -> Call[AgentProfile]:
    """``PATCH /v1/agents/me``: set the fields given of your agent's public metadata."""
    return Call("PATCH", "/v1/agents/me", _model(AgentProfile), body=_meta_json(meta))


def organiser_token(
    *,
    name: str,
    games: Sequence[str],
    organiser_key: str | None,
    kind: str = "agent",
    ttl_s: int | None = None,
    meta: MetaChanges | None = None,
) -> Call[AccessToken]:
    """``POST /v1/auth/organiser/tokens`` (the organiser key in ``X-Organiser-Key``)."""
    body: dict[str, Any] = {"name": name, "games": list(games), "kind": kind}
    if ttl_s is not None:
        body["ttl_s"] = ttl_s
    if meta is not None:
        body["meta"] = _meta_json(meta)
    headers = {"X-Organiser-Key": organiser_key} if organiser_key else {}
    return Call("POST", "/v1/auth/organiser/tokens", _model(AccessToken), body=body, headers=headers)


def revoke(token: str | None = None) -> Call[Revoked]:
    """``POST /v1/auth/revoke``: the caller's own token, or ``token``."""
    body = {"token": token} if token is not None else {}
    return Call("POST", "/v1/auth/revoke", _model(Revoked), body=body)


# ---- admission and credentials -------------------------------------------------------


def create_challenge(*, agent_name: str, game: str) -> Call[ChallengeCreated]:
    """``POST /v1/admission/challenges`` (send the token to add a game to an admitted agent)."""
    return Call(
        "POST", "/v1/admission/challenges", _model(ChallengeCreated),
        body={"agent_name": agent_name, "game": game},
    )


def answer_challenge(
    challenge_id: str, *, answers: Mapping[str, str | int | bool], puzzle: Mapping[str, Any]
) -> Call[AdmissionPassed]:
    """``POST /v1/admission/challenges/{id}/answers``."""
    return Call(
        "POST", f"/v1/admission/challenges/{challenge_id}/answers", _model(AdmissionPassed),
        body={"answers": dict(answers), "puzzle": dict(puzzle)}, authenticated=False,
    )


def exchange_credentials(*, agent_id: str, secret: str) -> Call[TokenIssued]:
    """``POST /v1/auth/token``: agent id and secret for a new access token."""
    return Call(
        "POST", "/v1/auth/token", _model(TokenIssued),
        body={"agent_id": agent_id, "secret": secret}, authenticated=False,
    )


def rotate_secret(*, agent_id: str, secret: str) -> Call[SecretRotated]:
    """``POST /v1/auth/secret``: replace the secret (proving the current one)."""
    return Call(
        "POST", "/v1/auth/secret", _model(SecretRotated),
        body={"agent_id": agent_id, "secret": secret}, authenticated=False,
    )


# ---- games ------------------------------------------------------------------------


def games() -> Call[GameList]:
    """``GET /v1/games``."""
    return Call("GET", "/v1/games", _model(GameList), repeatable=True, authenticated=False)


def rulebook(game: str, lang: str | None = None) -> Call[str]:
    """``GET /v1/games/{game}/rulebook``: the rulebook in markdown."""
    return Call(
        "GET",
        f"/v1/games/{game}/rulebook",
        _text,
        params=_drop_none({"lang": lang}),
        repeatable=True,
        authenticated=False,
    )


# ---- tables -----------------------------------------------------------------------


def create_table(
    *,
    game: str,
    mode: str,
    seats: int,
    variants: Sequence[str] = (),
    options: Mapping[str, Any] | None = None,
    house_bots: Sequence[HouseBotSeat | Mapping[str, Any]] = (),
    turn_timeout_s: float | None = None,
    private: bool = False,
    join: bool = True,
    seed: int | None = None,
    key: str | None = None,
    wait_s: float | None = None,
) -> Call[TableOut]:
    """``POST /v1/tables``, with an ``Idempotency-Key`` (a fresh one unless ``key`` is given):
    resent after a lost answer, it finds the table instead of creating a second one.
    ``wait_s``: answered at the creator's first decision, with its ``observation``."""
    body: dict[str, Any] = {
        "game": game,
        "mode": mode,
        "seats": seats,
        "variants": list(variants),
        "options": dict(options or {}),
        "house_bots": [
            bot.model_dump(mode="json") if isinstance(bot, BaseModel) else dict(bot) for bot in house_bots
        ],
        "private": private,
        "join": join,
    }
    if turn_timeout_s is not None:
        body["turn_timeout_s"] = turn_timeout_s
    if seed is not None:
        body["seed"] = seed
    return Call("POST", "/v1/tables", _model(TableOut), body=body,
                params=_drop_none({"wait_s": wait_s}),
                headers={"Idempotency-Key": key or new_request_key()}, repeatable=True,
                timeout_s=wait_s + LONG_POLL_GRACE_S if wait_s else None)


def list_tables(
    *,
    game: str | None = None,
    mode: str | None = None,
    status: str | None = None,
    offset: int | None = None,
    limit: int | None = None,
) -> Call[TableList]:
    """``GET /v1/tables`` with optional filters."""
    params = _drop_none({"game": game, "mode": mode, "status": status, "offset": offset, "limit": limit})
    return Call("GET", "/v1/tables", _model(TableList), params=params, repeatable=True)


def get_table(table_id: str) -> Call[TableOut]:
    """``GET /v1/tables/{id}``."""
    return Call("GET", f"/v1/tables/{table_id}", _model(TableOut), repeatable=True)


def join_table(table_id: str, *, key: str | None = None,
               wait_s: float | None = None) -> Call[TableOut]:
    """``POST /v1/tables/{id}/join``: the first free seat, with an ``Idempotency-Key`` (a fresh
    one unless given), so the call is resent safely after a lost answer. ``wait_s``:
    answered at the seat's first decision, with its ``observation``."""
    return Call("POST", f"/v1/tables/{table_id}/join", _model(TableOut),
                params=_drop_none({"wait_s": wait_s}),
                headers={"Idempotency-Key": key or new_request_key()}, repeatable=True,
                timeout_s=wait_s + LONG_POLL_GRACE_S if wait_s else None)


def leave_table(table_id: str) -> Call[TableOut]:
    """``POST /v1/tables/{id}/leave`` (before the table starts)."""
    return Call("POST", f"/v1/tables/{table_id}/leave", _model(TableOut))


def close_table(table_id: str) -> Call[TableOut]:
    """``POST /v1/tables/{id}/close``: end a table you created (open, or with only house bots)."""
    return Call("POST", f"/v1/tables/{table_id}/close", _model(TableOut))


def observation(
    table_id: str, *, wait_s: float | None = None, tools: str | None = None
) -> Call[ObservationOut]:
    """``GET /v1/tables/{id}/observation``: my view and what I may do.

    With ``wait_s`` the server holds the answer up to that many seconds until I
    must act or the table ends (for a spectator: until the table changes).
    ``tools="openai"`` adds a function-calling definition of my legal actions.
    """
    return Call(
        "GET", f"/v1/tables/{table_id}/observation", _observation_reader(table_id),
        params=_drop_none({"wait_s": wait_s, "tools": tools}), repeatable=True,
        timeout_s=wait_s + LONG_POLL_GRACE_S if wait_s else None,
    )


def _observation_reader(table_id: str) -> Callable[[httpx.Response], ObservationOut]:
    """The observation, with a warning logged (``agents`` logger) when the server says the
    request carried no token: the answer is then the spectator's view, never a turn."""
    read: Callable[[httpx.Response], ObservationOut] = _model(ObservationOut)

    def warn_if_tokenless(response: httpx.Response) -> ObservationOut:
        observed = read(response)
        if observed.spectator_reason == "no_token":
            log.warning(
                "table %s: the observation was sent without a token, so it is the spectator's "
                "view and your seat will never be asked to act; give the client your access "
                "token", table_id)
        return observed

    return warn_if_tokenless


def act(
    table_id: str, *, version: int, action: ActionBody, key: str | None = None,
    wait_s: float | None = None,
) -> Call[ActionResult]:
    """``POST /v1/tables/{id}/actions`` with an ``Idempotency-Key`` (derived when not given);
    ``wait_s``: answered at the seat's next decision point (or when it runs out)."""
    wire_action = action_json(action)
    key = key or idempotency_key(table_id=table_id, version=version, action=wire_action)
    return Call(
        "POST",
        f"/v1/tables/{table_id}/actions",
        _model(ActionResult),
        body={"version": version, "action": wire_action},
        params=_drop_none({"wait_s": wait_s}),
        headers={"Idempotency-Key": key},
        repeatable=True,
        timeout_s=wait_s + LONG_POLL_GRACE_S if wait_s else None,
    )


def events(table_id: str, *, after: int | None = None, wait_s: float | None = None) -> Call[EventsPage]:
    """``GET /v1/tables/{id}/events``: events after ``after``, waiting up to ``wait_s`` seconds."""
    params = _drop_none({"after": after, "wait_s": wait_s})
    return Call(
        "GET", f"/v1/tables/{table_id}/events", _model(EventsPage), params=params, repeatable=True,
        timeout_s=(wait_s or 0) + LONG_POLL_GRACE_S,
    )


def replay(table_id: str) -> Call[ReplayOut]:
    """``GET /v1/tables/{id}/replay`` (after the end)."""
    return Call("GET", f"/v1/tables/{table_id}/replay", _model(ReplayOut), repeatable=True)


def replay_positions(table_id: str) -> Call[dict[str, Any]]:
    """``GET /v1/tables/{id}/replay/positions`` (after the end): every position of the
    game, as the spectator and each seat saw it (what the replay page steps through)."""
    return Call("GET", f"/v1/tables/{table_id}/replay/positions", _json, repeatable=True)


def stream_path(table_id: str) -> str:
    """The SSE form of a table's events."""
    return f"/v1/tables/{table_id}/events/stream"


# ---- tournaments ----------------------------------------------------------------


def create_tournament(
    *,
    name: str,
    game: str,
    mode: str,
    seats: int,
    entrants: Sequence[str],
    format: str = "duplicate",
    boards: int = 1,
    rounds: int | None = None,
    baselines: Sequence[str] = (),
    variants: Sequence[str] = (),
    options: Mapping[str, Any] | None = None,
    turn_timeout_s: float | None = None,
    max_concurrent_tables: int | None = None,
    rated: bool = False,
    private: bool = False,
    duplicate_form: str | None = None,
) -> Call[TournamentOut]:
    """``POST /v1/tournaments`` (organiser)."""
    body: dict[str, Any] = {
        "name": name, "game": game, "mode": mode, "seats": seats, "entrants": list(entrants),
        "format": format, "boards": boards, "baselines": list(baselines),
        "variants": list(variants), "options": dict(options or {}), "rated": rated,
        "private": private,
    }
    body.update(_drop_none({"rounds": rounds, "turn_timeout_s": turn_timeout_s,
                            "max_concurrent_tables": max_concurrent_tables,
                            "duplicate_form": duplicate_form}))
    return Call("POST", "/v1/tournaments", _model(TournamentOut), body=body)


def list_tournaments(*, offset: int | None = None, limit: int | None = None) -> Call[TournamentList]:
    """``GET /v1/tournaments``."""
    return Call("GET", "/v1/tournaments", _model(TournamentList),
                params=_drop_none({"offset": offset, "limit": limit}), repeatable=True)


def get_tournament(tournament_id: str) -> Call[TournamentOut]:
    """``GET /v1/tournaments/{id}``: progress, standings, live ratings."""
    return Call("GET", f"/v1/tournaments/{tournament_id}", _model(TournamentOut), repeatable=True)


def cancel_tournament(tournament_id: str) -> Call[TournamentOut]:
    """``POST /v1/tournaments/{id}/cancel`` (organiser)."""
    return Call("POST", f"/v1/tournaments/{tournament_id}/cancel", _model(TournamentOut))


def tournament_results(tournament_id: str) -> Call[TournamentResults]:
    """``GET /v1/tournaments/{id}/results``."""
    return Call("GET", f"/v1/tournaments/{tournament_id}/results", _model(TournamentResults),
                repeatable=True)


def tournament_results_csv(tournament_id: str) -> Call[str]:
    """``GET /v1/tournaments/{id}/results.csv``."""
    return Call("GET", f"/v1/tournaments/{tournament_id}/results.csv", _text, repeatable=True)


def _jsonl(response: httpx.Response) -> list[dict[str, Any]]:
    return [json.loads(line) for line in response.text.splitlines() if line.strip()]


def tournament_replays(tournament_id: str) -> Call[list[dict[str, Any]]]:
    """``GET /v1/tournaments/{id}/replays.jsonl``, one dict per table."""
    return Call("GET", f"/v1/tournaments/{tournament_id}/replays.jsonl", _jsonl, repeatable=True)


def tournament_report(tournament_id: str) -> Call[dict[str, Any]]:
    """``GET /v1/tournaments/{id}/report`` (once the tournament is over)."""
    return Call("GET", f"/v1/tournaments/{tournament_id}/report", _json, repeatable=True)


def tournament_bundle(tournament_id: str) -> Call[dict[str, Any]]:
    """``GET /v1/tournaments/{id}/bundle``: everything a re-check needs (once it is over)."""
    return Call("GET", f"/v1/tournaments/{tournament_id}/bundle", _json, repeatable=True)


def assignments(*, after: str | None = None, wait_s: float | None = None) -> Call[AssignmentsPage]:
    """``GET /v1/agents/me/assignments``: tables I must play, waiting up to ``wait_s`` seconds."""
    return Call("GET", "/v1/agents/me/assignments", _model(AssignmentsPage),
                params=_drop_none({"after": after, "wait_s": wait_s}), repeatable=True,
                timeout_s=(wait_s or 0) + LONG_POLL_GRACE_S)


def renamed_wait(wait_s: float | None, wait: float | None) -> float | None:
    """``wait_s``, or the deprecated keyword ``wait`` it replaced (with a
    :class:`DeprecationWarning`): one name for a held request's seconds, as over HTTP and MCP."""
    if wait is None:
        return wait_s
    warnings.warn("`wait` is deprecated: pass `wait_s` (the same seconds)", DeprecationWarning,
                  stacklevel=3)
    if wait_s is not None and wait_s != wait:
        raise ValueError("pass wait_s only (wait is its deprecated name)")
    return wait


def join_rated_queue(game: str, *, mode: str, seats: int) -> Call[RatedQueueTicket]:
    """``POST /v1/games/{game}/rated-queue``: wait to be drawn for a rated table. Not resent
    on its own: a join answered after its draw seated the caller would queue it again."""
    return Call("POST", f"/v1/games/{game}/rated-queue", _model(RatedQueueTicket),
                body={"mode": mode, "seats": seats})


def rated_queue_ticket(game: str, *, wait_s: float | None = None) -> Call[RatedQueueTicket]:
    """``GET /v1/games/{game}/rated-queue``: my ticket, held up to ``wait_s`` until a draw."""
    return Call("GET", f"/v1/games/{game}/rated-queue", _model(RatedQueueTicket),
                params=_drop_none({"wait_s": wait_s}), repeatable=True,
                timeout_s=(wait_s or 0) + LONG_POLL_GRACE_S)


def leave_rated_queue(game: str) -> Call[RatedQueueTicket]:
    """``DELETE /v1/games/{game}/rated-queue``: stop waiting."""
    return Call("DELETE", f"/v1/games/{game}/rated-queue", _model(RatedQueueTicket),
                repeatable=True)


def leaderboard(game: str) -> Call[LeaderboardOut]:
    """``GET /v1/games/{game}/leaderboard``."""
    return Call("GET", f"/v1/games/{game}/leaderboard", _model(LeaderboardOut), repeatable=True)
