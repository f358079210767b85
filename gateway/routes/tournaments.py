"""Tournament routes: create, list, show, cancel, results (JSON, CSV), replays, report;
an agent's assignments (held and SSE); a game's leaderboard.

Thin on purpose: each route checks its inputs, calls one function of
:mod:`gateway.services.tournaments` and returns a response model.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Header, Query, Request
from fastapi.responses import PlainTextResponse, Response, StreamingResponse

from agents.wire.tournaments import (
    AssignmentsPage,
    CreateTournamentRequest,
    LeaderboardOut,
    TournamentList,
    TournamentOut,
    TournamentResults,
)
from gateway.deps import (
    OPTIONAL_CALLER_SECURITY,
    CurrentToken,
    OptionalCaller,
    OrganiserPrincipal,
    client_address,
    table_context_of,
)
from gateway.openapi_docs import AUTH_PROBLEMS, OPTIONAL_AUTH_PROBLEMS, problem_responses
from gateway.routes.waits import ASSIGNMENTS_WAIT_MAX_S, wait_seconds
from gateway.schemas.streams import StreamId
from gateway.security import PendingRevocation
from gateway.services import tournaments as service

__all__ = ["router"]

router = APIRouter(tags=["tournaments"])

_ORGANISER_AUTH = (*AUTH_PROBLEMS, "auth/organiser_only")
_CSV_EXAMPLE = ("table_index,table_id,board,round,seat,entrant,placement,points,score,reason,"
                "finished_at\n")


@router.post(
    "/v1/tournaments",
    operation_id="create_tournament",
    summary="Start a tournament (organiser)",
    status_code=201,
    response_model=TournamentOut,
    responses=problem_responses(
        *_ORGANISER_AUTH, "game/not_found", "tournament/invalid", "tournament/unknown_entrant",
        "table/unknown_bot", "request/invalid"),
)
async def create_tournament(
    request: Request,
    principal: OrganiserPrincipal,
    body: Annotated[CreateTournamentRequest, Body(openapi_examples={
        "two agents and two bots, duplicate": {
            "value": {"name": "Friday duplicate", "game": "market-fortune", "mode": "fortune",
                      "seats": 4, "format": "duplicate", "boards": 8,
                      "entrants": ["agt_0123456789abcdef0123", "agt_fedcba9876543210fedc",
                                   "bot:greedy", "bot:random"],
                      "turn_timeout_s": 60, "max_concurrent_tables": 4, "rated": True},
        },
        "eight entrants, disjoint groups (nobody plays a board twice)": {
            "value": {"name": "Disjoint duplicate", "game": "market-fortune",
                      "mode": "fortune", "seats": 4, "format": "duplicate",
                      "duplicate_form": "disjoint", "boards": 6,
                      "entrants": ["agt_0123456789abcdef0123", "agt_fedcba9876543210fedc",
                                   "bot:greedy", "bot:random", "bot:greedy#2", "bot:random#2",
                                   "bot:greedy#3", "bot:random#3"]},
        },
        "a gauntlet against house bots": {
            "value": {"name": "Gauntlet", "game": "hab-und-gut", "mode": "standard", "seats": 3,
                      "format": "gauntlet", "boards": 4,
                      "entrants": ["agt_0123456789abcdef0123"],
                      "baselines": ["bot:greedy", "bot:random"]},
        },
    })],
) -> TournamentOut:
    """Plan the tournament and start playing it at once: the scheduler creates its tables
    as they become due, at most ``max_concurrent_tables`` at a time, every seat taken by its
    entrant (agents find theirs with ``GET /v1/agents/me/assignments``), never two live
    tables of one board for an agent. ``duplicate_form`` chooses how a board's rotations are
    shared out (by default disjoint groups, so no agent plays a board twice, when the field
    fills two tables); ``disjoint`` on a smaller field is a 422. Entrants are
    registered agent ids and house bots (``bot:greedy``). Each board is dealt from a
    server secret: no entrant can know a deal before it is played, and a board's seed and
    replays are published only when all its tables are over. Only the organiser (its key, or
    an organiser token) may create one."""
    return await service.create_tournament(table_context_of(request), principal, body)


@router.get(
    "/v1/tournaments",
    operation_id="list_tournaments",
    summary="List tournaments, newest first",
    response_model=TournamentList,
    responses=problem_responses(*OPTIONAL_AUTH_PROBLEMS, "request/invalid"),
    openapi_extra=OPTIONAL_CALLER_SECURITY,
)
async def list_tournaments(
    request: Request,
    principal: OptionalCaller,
    offset: Annotated[int, Query(ge=0, le=2**53)] = 0,
    limit: Annotated[int, Query(ge=1, le=50)] = 20,
) -> TournamentList:
    """Public tournaments; private ones only for the organiser."""
    return await service.list_tournaments(
        table_context_of(request), principal, offset=offset, limit=limit)


@router.get(
    "/v1/tournaments/{tournament_id}",
    operation_id="get_tournament",
    summary="A tournament's progress, standings and live ratings",
    response_model=TournamentOut,
    responses=problem_responses(*OPTIONAL_AUTH_PROBLEMS, "tournament/not_found"),
    openapi_extra=OPTIONAL_CALLER_SECURITY,
)
async def get_tournament(
    request: Request, tournament_id: str, principal: OptionalCaller
) -> TournamentOut:
    """Tables done, running and waiting; standings (the format's points, games, wins, mean
    placement, placement per seat position); live OpenSkill ratings (``ordinal`` = mu - 3
    sigma, provisional while sigma is high); and links to the tables of boards that are
    over (the organiser sees every table)."""
    return await service.get_tournament(table_context_of(request), tournament_id, principal)


@router.post(
    "/v1/tournaments/{tournament_id}/cancel",
    operation_id="cancel_tournament",
    summary="Cancel a tournament (organiser)",
    response_model=TournamentOut,
    responses=problem_responses(*_ORGANISER_AUTH, "tournament/not_found", "tournament/finished"),
)
async def cancel_tournament(
    request: Request, tournament_id: str, principal: OrganiserPrincipal
) -> TournamentOut:
    """No further table is created; tables being played are closed and nobody wins them.
    The results stored so far stay."""
    return await service.cancel_tournament(table_context_of(request), tournament_id, principal)


@router.get(
    "/v1/tournaments/{tournament_id}/results",
    operation_id="get_tournament_results",
    summary="Per-table placements and scores (JSON or CSV)",
    response_model=TournamentResults,
    responses={
        200: {"content": {"text/csv": {"example": _CSV_EXAMPLE}},
              "description": "JSON, or CSV with `?format=csv` (one row per seat per table)."},
        **problem_responses(*OPTIONAL_AUTH_PROBLEMS, "tournament/not_found", "request/invalid"),
    },
    openapi_extra=OPTIONAL_CALLER_SECURITY,
)
async def get_tournament_results(
    request: Request,
    tournament_id: str,
    principal: OptionalCaller,
    format: Annotated[Literal["json", "csv"], Query(description="`csv` for CSV.")] = "json",
) -> Any:
    """Results of boards whose tables are all over, in plan order with each table's rotation,
    and those boards' seeds (the organiser sees every result at once). Placements: 1 is
    first, ties share."""
    if format == "csv":
        return await get_tournament_results_csv(request, tournament_id, principal)
    return await service.results(table_context_of(request), tournament_id, principal)


@router.get(
    "/v1/tournaments/{tournament_id}/results.csv",
    operation_id="get_tournament_results_csv",
    summary="Per-table placements and scores as CSV",
    response_class=PlainTextResponse,
    responses={
        200: {"content": {"text/csv": {"example": _CSV_EXAMPLE}},
              "description": "One row per seat per table."},
        **problem_responses(*OPTIONAL_AUTH_PROBLEMS, "tournament/not_found"),
    },
    openapi_extra=OPTIONAL_CALLER_SECURITY,
)
async def get_tournament_results_csv(
    request: Request, tournament_id: str, principal: OptionalCaller
) -> PlainTextResponse:
    """The same rows as ``/results?format=csv``."""
    text = await service.results_csv_text(table_context_of(request), tournament_id, principal)
    return PlainTextResponse(text, media_type="text/csv; charset=utf-8")


_JSONL_MEDIA = ("application/jsonl", "text/plain")
"""JSON Lines has no registered media type; ``text/plain`` is offered too, so generators
that know only text types (openapi-python-client) still read the bundle as text."""
_JSONL_EXAMPLE = '{"tournament_id": "tn_0a1b2c3d4e5f6a7b", "result": {}, "replay": {}}\n'


@router.get(
    "/v1/tournaments/{tournament_id}/replays.jsonl",
    operation_id="get_tournament_replays",
    summary="Every published table's replay, one JSON line each",
    response_class=StreamingResponse,
    responses={
        200: {"content": {media: {"example": _JSONL_EXAMPLE} for media in _JSONL_MEDIA},
              "description": "One line per table of a published board: its result and replay "
              "(`application/jsonl`; `text/plain` when the request's Accept names only that)."},
        **problem_responses(*OPTIONAL_AUTH_PROBLEMS, "tournament/not_found", "rate/limited"),
    },
    openapi_extra=OPTIONAL_CALLER_SECURITY,
)
async def get_tournament_replays(
    request: Request, tournament_id: str, principal: OptionalCaller
) -> StreamingResponse:
    """Seed, action log, events and final state of every table whose board is over, with its
    placements and scores: enough to check every result independently. Without a token it
    counts against ``anonymous_replays_per_address`` as many replays as it holds (429
    ``rate/limited`` beyond)."""
    lines = await service.replays_jsonl(
        table_context_of(request), tournament_id, principal, address=client_address(request))
    accept = request.headers.get("accept", "")
    plain = "text/plain" in accept and "application/jsonl" not in accept
    return StreamingResponse(lines, media_type="text/plain; charset=utf-8" if plain
                             else "application/jsonl")


@router.get(
    "/v1/tournaments/{tournament_id}/report",
    operation_id="get_tournament_report",
    summary="The final report: fitted strengths with 95% intervals",
    responses={
        200: {"content": {"application/json": {"example": {"estimates": []}}},
              "description": "The report of the `tournament` package (`report_json`)."},
        **problem_responses(
            *OPTIONAL_AUTH_PROBLEMS, "tournament/not_found", "tournament/not_finished"),
    },
    openapi_extra=OPTIONAL_CALLER_SECURITY,
)
async def get_tournament_report(
    request: Request, tournament_id: str, principal: OptionalCaller
) -> dict[str, Any]:
    """A Plackett-Luce maximum-likelihood fit over all results, bootstrap 95% intervals
    resampled over boards, interval-aware ranks ("2–4"), the schedule's balance and each
    entrant's decisions (refused actions, clock timeouts, mean and p95 decision time).
    Made once the tournament is over (409 ``tournament/not_finished`` before) and kept."""
    return await service.report(table_context_of(request), tournament_id, principal)


@router.get(
    "/v1/tournaments/{tournament_id}/bundle",
    operation_id="get_tournament_bundle",
    summary="Everything a re-check needs, in one document",
    responses={
        200: {"content": {"application/json": {"example": {
                  "format": "agents-club-tournament-bundle/1",
                  "software": {"gateway": "0.1.0"}, "tournament": {}, "results": [],
                  "board_seeds": {"0": 123456789}, "replays": [], "report": {}}}},
              "description": "The tournament (configuration, entrants and names, plan), its "
              "results in plan order with their rotation, the board seeds, every replay, the "
              "report (its `method` names the fit's samples and seed) and the gateway's "
              "version. `agents-club tournament verify` checks it."},
        **problem_responses(*OPTIONAL_AUTH_PROBLEMS, "tournament/not_found",
                            "tournament/not_finished", "rate/limited"),
    },
    openapi_extra=OPTIONAL_CALLER_SECURITY,
)
async def get_tournament_bundle(
    request: Request, tournament_id: str, principal: OptionalCaller
) -> dict[str, Any]:
    """One reproducible bundle of a finished tournament (409 ``tournament/not_finished``
    before). Without a token it counts its replays against ``anonymous_replays_per_address``
    (429 ``rate/limited`` beyond), as ``replays.jsonl`` does."""
    return await service.bundle(
        table_context_of(request), tournament_id, principal, address=client_address(request))


@router.get(
    "/v1/agents/me/assignments",
    operation_id="get_assignments",
    summary="Tables you must play (long-poll)",
    response_model=AssignmentsPage,
    responses=problem_responses(*AUTH_PROBLEMS, "request/invalid"),
)
async def get_assignments(
    request: Request,
    token: CurrentToken,
    wait: Annotated[float, wait_seconds(
        ASSIGNMENTS_WAIT_MAX_S,
        "Hold the answer up to this many seconds (capped by the server's long-poll "
        "maximum) until an assignment comes.")],
    after: Annotated[StreamId, Query(description="Read after this id.")] = "0",
) -> AssignmentsPage:
    """A tournament table you sit at is announced here when it is created (``table.assigned``:
    table id and seat), and the end of each tournament you play (``tournament.finished``).
    Loop with ``after=<last_id>&wait_s=30``; then observe the table and play. Never names a
    board or anything hidden. The wait ends when the token expires."""
    return await service.assignments(
        table_context_of(request), PendingRevocation.of(token, request.app.state.keys),
        after=after, wait=wait)


@router.get(
    "/v1/agents/me/assignments/stream",
    operation_id="stream_assignments",
    summary="The same assignments as Server-Sent Events",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"text/event-stream": {}},
              "description": "`id:` is the stream id, `event:` the kind, `data:` the assignment."},
        **problem_responses(*AUTH_PROBLEMS, "request/invalid"),
    },
)
async def stream_assignments(
    request: Request,
    token: CurrentToken,
    after: Annotated[StreamId, Query(description="Start after this id.")] = "0",
    last_event_id: Annotated[StreamId | None, Header(
        alias="Last-Event-ID",
        description="Resume after this id (sent by EventSource): an assignment's `id:`.")] = None,
) -> Response:
    """Resume with ``Last-Event-ID`` (or ``after``). The stream closes when the token it
    was opened with expires; reconnect with a fresh one and ``Last-Event-ID``."""
    frames = service.stream_assignments(
        table_context_of(request), PendingRevocation.of(token, request.app.state.keys),
        after=last_event_id if last_event_id is not None else after,
        until=time.time() + request.app.state.settings.assignment_stream_max_s)
    return StreamingResponse(frames, media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@router.get(
    "/v1/games/{game}/leaderboard",
    operation_id="get_leaderboard",
    summary="A game's ladder: live ratings over every rated table",
    response_model=LeaderboardOut,
    responses=problem_responses("game/not_found"),
)
async def get_leaderboard(request: Request, game: str) -> LeaderboardOut:
    """Every rated table of the game, tournament or not, counted once in finish order
    (OpenSkill Plackett-Luce; ``ordinal`` = mu - 3 sigma; provisional while sigma is high)."""
    return await service.leaderboard(table_context_of(request), game)
