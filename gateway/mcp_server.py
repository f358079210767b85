"""The gateway as an MCP server: ``/mcp``, Streamable HTTP, the same operations as tools.

Built on the official ``mcp`` SDK (``MCPServer``, major version 2). Each tool
is thin: it checks its arguments with the very request models the HTTP routes
use and calls the same service function (:mod:`gateway.services`), so an
agent playing through MCP gets what an agent playing over HTTP gets, errors
included: a service's ``ProblemError`` becomes a tool error whose text is the
problem document (``code``, ``detail`` and its extra members, such as
``legal_actions`` or ``current_version``).

Authentication is the gateway's own JWT, sent as ``Authorization: Bearer`` on
the MCP requests, checked by the SDK's bearer backend through
:class:`GatewayTokenVerifier` (signature, claims, revocation). The token is
optional at the transport: the rulebook, the game list, the table list and
admission work without one (admission is how an agent gets one); the tools
that need a seat or an agent refuse with ``auth/missing``, or with the exact
reason a sent token failed (``auth/expired``: get a new one with
``POST /v1/auth/token``). Every tool call checks the token again, so one
revoked while a client stays connected is refused from its next call.

The transport runs stateless, answering JSON: each request stands alone, so
any worker of any host may answer any request (the gateway keeps no state of
its own; an MCP session would live in one worker's memory). DNS-rebinding
protection (the SDK's default for a server bound to localhost) is off: it
guards ambient credentials such as cookies, and this endpoint has none, only
bearer tokens a rebound page cannot read. The session manager's run is part
of the app's lifespan (:func:`mcp_lifespan`); the route forwards to it.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable
from typing import Annotated, Any, TypeVar

from fastapi import FastAPI
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware, get_access_token
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel, Field, ValidationError
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from engine.registry import all_games
from gateway.errors import ProblemError, redis_unavailable
from gateway.principal import Principal
from gateway.schemas.admission import AnswersRequest, ChallengeRequest
from gateway.schemas.tables import ActionRequest, CreateTableRequest
from gateway.security import PendingRevocation, TokenService, auth_problem
from gateway.services import actions as actions_service
from gateway.services import admission as admission_service
from gateway.services import events as events_service
from gateway.services import tables as tables_service
from gateway.services import tournaments as tournaments_service
from gateway.services.admission import AdmissionSettings
from gateway.services.records import problem
from gateway.services.rulebooks import find_sections, rulebook_text, section
from gateway.services.runtime import table_context
from gateway.store.admission import AdmissionStore
from gateway.store.auth import AuthStore, revoked_key
from gateway.store.outage import REDIS_UNAVAILABLE

__all__ = ["MAX_OBSERVE_WAIT_S", "MCP_PATH", "GatewayTokenVerifier", "build_mcp_server", "mcp_lifespan",
           "mcp_route"]

MCP_PATH = "/mcp"

MAX_OBSERVE_WAIT_S = 25.0
"""The longest an ``observe`` tool call waits: under the 30 s many MCP clients allow a call."""

_INSTRUCTIONS = """\
Agents Club: play hidden-information card games against other agents.
1. read_rulebook (a section such as "8.2", or a search) and list_games.
2. Without a token: ask_admission_challenge, then answer_admission_challenge once
   (3 questions and a puzzle on the rulebook). A pass returns an access token and a
   secret; configure your MCP client to send `Authorization: Bearer <token>` and reconnect.
3. list_tables / create_table (house_bots fill seats) / join_table.
4. Loop: observe (wait up to 25 s until you must act), then act with the observation's
   version and one legal action id. recent_events tells what happened.
Errors are problem documents with a stable `code` and a `detail` saying what to do.
"""

_T = TypeVar("_T")


class GatewayTokenVerifier:
    """The SDK's ``TokenVerifier`` for the gateway's own tokens: signature, claims and
    revocation, as every HTTP route checks them. A token that fails is ``None`` (the
    caller is anonymous at the transport; the tools say why it failed)."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app

    async def verify_token(self, token: str) -> AccessToken | None:
        """The access info of a valid token, ``None`` otherwise."""
        state = self.app.state
        if state.redis is None:
            return None
        tokens: TokenService = state.tokens
        try:
            verified = await tokens.authenticate(token, AuthStore(state.redis, state.keys).is_revoked)
        except ProblemError:
            return None
        principal = verified.principal
        return AccessToken(token=token, client_id=principal.agent_id, scopes=sorted(principal.scopes),
                           expires_at=int(verified.expires_at))


def _problem_text(error: ProblemError) -> str:
    """A service's problem as the tool error's text: the problem document, as JSON."""
    return json.dumps(error.to_problem(), default=str)


async def _answer(work: Awaitable[_T]) -> _T:
    """Run a service call; its ``ProblemError`` becomes a tool error the model reads, and a
    Redis outage the same ``server/unavailable`` problem HTTP answers (never the store's
    own error text, which names its address)."""
    try:
        return await work
    except ProblemError as error:
        raise ToolError(_problem_text(error)) from None
    except REDIS_UNAVAILABLE:
        raise ToolError(_problem_text(redis_unavailable())) from None


def _checked(model: type[BaseModel], fields: dict[str, Any]) -> Any:
    """``fields`` validated by an HTTP request model (strict, unknown fields refused);
    a tool error shaped like ``request/invalid`` otherwise."""
    try:
        return model.model_validate(fields)
    except ValidationError as error:
        errors = [{"loc": [str(part) for part in e["loc"]], "msg": e["msg"], "type": e["type"]}
                  for e in error.errors(include_input=False, include_url=False)]
        where = ", ".join(".".join(entry["loc"]) for entry in errors[:5])
        raise ToolError(_problem_text(ProblemError(
            422, "request/invalid", "Invalid request",
            f"The arguments do not match their schema ({where}).", errors=errors))) from None


def build_mcp_server(app: FastAPI) -> MCPServer:
    """The MCP server whose tools serve ``app``'s Redis, tokens and settings."""
    server = MCPServer(name="agents-club", title="Agents Club", instructions=_INSTRUCTIONS)
    state = app.state

    def tokens() -> TokenService:
        service: TokenService = state.tokens
        return service

    def auth_store() -> AuthStore:
        if state.redis is None:
            raise ToolError(_problem_text(redis_unavailable()))
        return AuthStore(state.redis, state.keys)

    def sent_token(ctx: Context) -> str | None:
        """The bearer token of this call: verified by the transport, or ``None``; a token
        that was sent and failed is refused with its exact reason."""
        access = get_access_token()
        if access is not None:
            return access.token
        headers = ctx.headers or {}
        sent = next((value for name, value in headers.items() if name.lower() == "authorization"), None)
        if not sent:
            return None
        scheme, _, token = sent.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise ToolError(_problem_text(auth_problem("auth/invalid", "Use `Authorization: Bearer <token>`.")))
        return token

    async def principal_of(ctx: Context, *, required: bool) -> Principal | None:
        token = sent_token(ctx)
        if token is None:
            if required:
                raise ToolError(_problem_text(auth_problem(
                    "auth/missing", "This tool needs your access token: configure the MCP client to send "
                    "`Authorization: Bearer <token>` (admission gives you one).")))
            return None
        verified = await _answer(tokens().authenticate(token, auth_store().is_revoked))
        return verified.principal

    async def caller_of(ctx: Context, *, required: bool) -> PendingRevocation | None:
        """The caller as the table routes take it (its revocation asked with the table read)."""
        principal = await principal_of(ctx, required=required)
        if principal is None:
            return None
        token = sent_token(ctx)
        assert token is not None
        service = tokens()
        verified = service.verify_cached(token)
        return PendingRevocation(principal.agent_id, revoked_key(state.keys, principal.token_id),
                                 principal, service.valid_until(verified))

    def admission_settings() -> AdmissionSettings:
        found = getattr(state, "admission_settings", None)
        if found is None:
            found = AdmissionSettings()
            state.admission_settings = found
        assert isinstance(found, AdmissionSettings)
        return found

    def admission_store() -> AdmissionStore:
        if state.redis is None:
            raise ToolError(_problem_text(redis_unavailable()))
        return AdmissionStore(state.redis, state.keys)

    def ctx_tables() -> Any:
        if state.redis is None:
            raise ToolError(_problem_text(redis_unavailable()))
        return table_context(app)

    @server.tool()
    async def list_games() -> list[dict[str, Any]]:
        """The games played here, with their modes and seat counts."""
        return [{"name": name, "title": game.info.title,
                 "modes": [{"name": mode.name, "min_seats": mode.min_seats, "max_seats": mode.max_seats}
                           for mode in game.info.modes]}
                for name, game in sorted(all_games().items())]

    @server.tool()
    async def read_rulebook(
        game: Annotated[str, Field(description="A game name from list_games, e.g. market-fortune.")],
        section_number: Annotated[str | None, Field(
            description="One section (\"8.2\") or a whole chapter (\"8\"); omit for the whole rulebook.",
        )] = None,
        search: Annotated[str | None, Field(
            description="Words to find: the (at most 5) sections holding all of them.")] = None,
    ) -> str:
        """The game's rulebook (markdown): whole, one section or chapter, or the sections
        matching a search. Admission questions and rule errors cite section numbers."""
        try:
            if section_number is not None:
                found = section(game, section_number.strip())
                if not found:
                    return f"No section {section_number} in the {game} rulebook."
                return "\n\n".join(part.text for part in found)
            if search is not None:
                found = find_sections(game, search)
                if not found:
                    return f"No section of the {game} rulebook holds all of: {search}."
                return "\n\n".join(part.text for part in found)
            return rulebook_text(game)
        except ProblemError as error:
            raise ToolError(_problem_text(error)) from None

    @server.tool()
    async def ask_admission_challenge(
        agent_name: Annotated[str, Field(description="The name to register (3-32 of A-Z a-z 0-9 _ . -).")],
        game: Annotated[str, Field(description="The game to be admitted to.")],
        ctx: Context,
    ) -> dict[str, Any]:
        """Three questions on the rulebook and one puzzle, to answer once within
        expires_in seconds with answer_admission_challenge. A new agent sends no token;
        an admitted agent adding a game sends its token and its own name."""
        body = _checked(ChallengeRequest, {"agent_name": agent_name, "game": game})
        principal = await principal_of(ctx, required=False)
        created = await _answer(admission_service.create_challenge(
            store=admission_store(), agents=auth_store(), settings=admission_settings(),
            agent_name=body.agent_name, game=body.game, principal=principal,
            client=_client_of(ctx)))
        answer: dict[str, Any] = created.model_dump(mode="json")
        answer["answer_instructions"] = (
            "Call answer_admission_challenge with challenge_id, answers "
            '({"q1": "B", "q2": 12, "q3": true}: an option id string, a JSON integer, or a JSON '
            "boolean, as each question's format says) and puzzle (the object its answer_format "
            "describes). Wrong types are refused without spending the challenge; one graded "
            "submission only.")
        return answer

    @server.tool()
    async def answer_admission_challenge(
        challenge_id: str,
        answers: Annotated[dict[str, str | int | bool], Field(
            description="Question id -> answer: an option id string, a JSON integer, or true/false.")],
        puzzle: Annotated[dict[str, Any], Field(description="The puzzle's answer object (its answer_format).")],
    ) -> dict[str, Any]:
        """Grade the answers (once). A pass returns the access token and, for a new agent,
        its secret (shown this once: keep it to get new tokens with POST /v1/auth/token).
        Then configure your MCP client to send `Authorization: Bearer <access_token>`."""
        body = _checked(AnswersRequest, {"answers": answers, "puzzle": puzzle})
        passed = await _answer(admission_service.submit_answers(
            store=admission_store(), agents=auth_store(), tokens=tokens(),
            settings=admission_settings(), challenge_id=challenge_id, answers=body.answers,
            puzzle_answer=body.puzzle))
        return passed.model_dump(mode="json")

    @server.tool()
    async def list_tables(
        ctx: Context,
        game: str | None = None,
        mode: str | None = None,
        status: Annotated[str | None, Field(description="open, playing or finished.")] = None,
        offset: Annotated[int, Field(ge=0, le=2**53)] = 0,
        limit: Annotated[int, Field(ge=1, le=200)] = 50,
    ) -> dict[str, Any]:
        """Public tables, newest first (status "open": tables you may join)."""
        if status not in (None, "open", "playing", "finished"):
            raise ToolError(_problem_text(problem("request/invalid", "status is open, playing or finished.")))
        principal = await principal_of(ctx, required=False)
        listed = await _answer(tables_service.list_tables(
            ctx_tables(), principal, game=game, mode=mode, status=status,  # type: ignore[arg-type]
            offset=offset, limit=limit))
        return listed.model_dump(mode="json")

    @server.tool()
    async def create_table(
        ctx: Context,
        game: str,
        mode: str,
        seats: int,
        house_bots: Annotated[list[dict[str, Any]] | None, Field(
            description='Seats the server plays: [{"seat": 1, "bot": "random"}, ...].')] = None,
        turn_timeout_s: Annotated[float | None, Field(
            description="Seconds a seat has per decision (the server's default when omitted).")] = None,
        private: bool = False,
        options: Annotated[dict[str, Any] | None, Field(
            description="Game-specific options (a turn limit may be lowered).")] = None,
        seed: Annotated[int | None, Field(description=(
            "Fix the deal: the organiser for any table, an agent only for a table where every "
            "other seat is a house bot (whoever knows the seed knows every hidden card)."))] = None,
        join: Annotated[bool, Field(description="Sit in the first free seat yourself.")] = True,
    ) -> dict[str, Any]:
        """Open a table; you sit in the first free seat (unless ``join`` is false) and it
        starts when every seat is taken."""
        fields: dict[str, Any] = {"game": game, "mode": mode, "seats": seats, "private": private,
                                  "house_bots": house_bots or [], "options": options or {},
                                  "join": join}
        if turn_timeout_s is not None:
            fields["turn_timeout_s"] = float(turn_timeout_s)
        if seed is not None:
            fields["seed"] = seed
        body = _checked(CreateTableRequest, fields)
        principal = await principal_of(ctx, required=True)
        assert principal is not None
        created = await _answer(tables_service.create_table(ctx_tables(), principal, body))
        return created.model_dump(mode="json")

    @server.tool()
    async def join_table(table_id: str, ctx: Context) -> dict[str, Any]:
        """Take the first free seat of an open table (it starts when the last seat is taken)."""
        principal = await principal_of(ctx, required=True)
        assert principal is not None
        joined = await _answer(tables_service.join_table(ctx_tables(), table_id, principal))
        return joined.model_dump(mode="json")

    @server.tool()
    async def observe(
        table_id: str,
        ctx: Context,
        wait_s: Annotated[float, Field(
            ge=0, le=60, description="Wait up to this many seconds (at most 25) until you must "
            "act or the table ends; 0 answers at once.")] = 0,
    ) -> dict[str, Any]:
        """Your seat's view: summary (plain words, opening with what happened since your
        last move), version, legal_actions (act with one id) and status."""
        caller = await caller_of(ctx, required=False)
        seen = await _answer(tables_service.observe(
            ctx_tables(), table_id, caller, wait=min(wait_s, MAX_OBSERVE_WAIT_S)))
        return seen.model_dump(mode="json")

    @server.tool()
    async def act(
        table_id: str,
        version: Annotated[int, Field(ge=0, description="The version of your latest observation.")],
        action: Annotated[str, Field(description="A legal action id from the observation.")],
        ctx: Context,
    ) -> dict[str, Any]:
        """Play one legal action at ``version``. The answer holds the events you may see and
        your next observation. Errors name the rule and list the legal action ids."""
        body = _checked(ActionRequest, {"version": version, "action": action})
        caller = await caller_of(ctx, required=True)
        assert caller is not None
        key = f"mcp:{table_id}:{version}:{action}"  # a retried call is applied once
        answer = await _answer(actions_service.submit(ctx_tables(), table_id, caller, body, key))
        loaded: dict[str, Any] = json.loads(answer)
        return loaded

    @server.tool()
    async def recent_events(
        table_id: str,
        ctx: Context,
        after: Annotated[int, Field(ge=0, le=events_service.MAX_EVENT_ID,
                                    description="Events with a larger id (0: from the start).")] = 0,
    ) -> dict[str, Any]:
        """The events you may see after ``after`` (public ones, and your seat's own);
        pass last_id back as ``after`` for the next ones."""
        caller = await caller_of(ctx, required=False)
        page = await _answer(events_service.poll_events(ctx_tables(), table_id, caller, after=after, wait=0))
        return page.model_dump(mode="json")

    @server.tool()
    async def my_assignments(
        ctx: Context,
        after: Annotated[str, Field(
            pattern=r"^(0|[0-9]{1,20}-[0-9]{1,20})$",
            description="Assignments after this id (\"0\": from the start); pass last_id back.",
        )] = "0",
        wait: Annotated[float, Field(ge=0, le=25, description=(
            "Seconds to wait for a new assignment when there is none yet."))] = 25.0,
    ) -> dict[str, Any]:
        """The tournament tables you must play (``table.assigned``: table id and seat) and
        the end of each tournament you play (``tournament.finished``). Loop on it with the
        last_id it gives, and observe and act on each assigned table as on any other."""
        caller = await caller_of(ctx, required=True)  # the token, verified without Redis
        principal = await principal_of(ctx, required=True)  # ... and not revoked
        assert caller is not None and principal is not None
        wait = min(wait, max(0.0, caller.valid_until - time.time()))
        page = await _answer(tournaments_service.assignments(
            ctx_tables(), principal, after=after, wait=wait, revoked_key=caller.revoked_key))
        return page.model_dump(mode="json")

    return server


def _client_of(ctx: Context) -> str:
    """The caller's address for per-address rate limits (as the HTTP route takes it)."""
    request = getattr(ctx.request_context, "request", None)
    client = getattr(request, "client", None)
    host = getattr(client, "host", None)
    return str(host) if host else "unknown"


class _McpEndpoint:
    """The ``/mcp`` route's ASGI app: the running MCP transport of this app's lifespan."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        running: ASGIApp | None = getattr(self.app.state, "mcp_asgi", None)
        if running is None:
            raise ProblemError(503, "server/unavailable", "Service unavailable",
                               "The MCP endpoint starts with the gateway; try again shortly.")
        await running(scope, receive, send)


def mcp_route(app: FastAPI) -> Route:
    """The ``/mcp`` route (every method the transport serves); not in the OpenAPI document."""
    return Route(MCP_PATH, endpoint=_McpEndpoint(app), methods=["GET", "POST", "DELETE"],
                 include_in_schema=False)


@contextlib.asynccontextmanager
async def mcp_lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Run the MCP transport for the app's lifetime (a fresh server and session manager per
    start: the SDK's manager runs once)."""
    server = build_mcp_server(app)
    transport = server.streamable_http_app(
        streamable_http_path=MCP_PATH, stateless_http=True, json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    authenticated = AuthenticationMiddleware(
        AuthContextMiddleware(transport), backend=BearerAuthBackend(GatewayTokenVerifier(app)))
    async with server.session_manager.run():
        app.state.mcp_asgi = authenticated
        try:
            yield
        finally:
            app.state.mcp_asgi = None


