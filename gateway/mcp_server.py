"""The gateway as an MCP server: ``/mcp``, Streamable HTTP, the same operations as tools.

Built on the official ``mcp`` SDK (``MCPServer``, major version 2). Each tool
is thin: its arguments are the fields of the request model the HTTP route takes
(names, bounds, defaults, descriptions), checked as strictly, and it calls the
same service function (:mod:`gateway.services`), so an agent playing through MCP
gets what an agent playing over HTTP gets, errors included: an argument out of
its schema is HTTP's ``request/invalid`` problem, and a service's
``ProblemError`` becomes a tool error whose text is the problem document
(``code``, ``detail`` and its extra members, such as ``legal_actions`` or
``current_version``).

Authentication is the gateway's own JWT, sent as ``Authorization: Bearer`` on
the MCP requests and checked by the tool called (signature, claims, revocation),
as every HTTP route checks it; the transport checks nothing, so a token is
verified once per call, and one revoked while a client stays connected is
refused from its next call. A tool HTTP serves without a token takes none; the
others refuse with ``auth/missing``, or the reason a sent token failed.

Every tool that acts as an agent also takes the token as its ``token`` argument
(the header, when sent, wins), for a model that earned it through admission and
can send no header itself; docs/mcp.md says why an argument and not a session.

The transport runs stateless, answering JSON: each request stands alone, so
any worker of any host may answer any request (the gateway keeps no state of
its own; an MCP session would live in one worker's memory). DNS-rebinding
protection (the SDK's default for a server bound to localhost) is off: it
guards ambient credentials such as cookies, and this endpoint has none, only
bearer tokens a rebound page cannot read.
"""

from __future__ import annotations

import contextlib
import inspect
import json
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any, TypeVar

from fastapi import FastAPI
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AfterValidator, BaseModel, Field, Strict, ValidationError
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from agents.wire import INTEGRAL
from agents.wire.admission import AnswersRequest, ChallengeRequest
from agents.wire.tables import ActionRequest, CreateTableRequest, TableOut, TableStatus
from agents.wire.tournaments import RatedQueueRequest
from gateway.errors import ProblemError, rate_limited, redis_unavailable
from gateway.principal import Principal
from gateway.routes.tables import MAX_LIST_OFFSET
from gateway.routes.waits import ASSIGNMENTS_WAIT_MAX_S, OBSERVE_WAIT_MAX_S
from gateway.schemas.streams import StreamId
from gateway.security import (
    PendingRevocation,
    TokenService,
    VerifiedToken,
    auth_problem,
)
from gateway.services import admission as admission_service
from gateway.services import events as events_service
from gateway.services import play as play_service
from gateway.services import rated_queue as rated_queue_service
from gateway.services import tables as tables_service
from gateway.services import tournaments as tournaments_service
from gateway.services.games import game_list
from gateway.services.records import invalid, problem, schema_errors
from gateway.services.rulebooks import (
    SEARCH_MAX_CHARS,
    SEARCH_MAX_WORDS,
    find_sections,
    rulebook_text,
    section,
)
from gateway.services.runtime import table_context
from gateway.store.admission import AdmissionStore
from gateway.store.outage import REDIS_UNAVAILABLE

__all__ = ["MAX_OBSERVE_WAIT_S", "MCP_PATH", "build_mcp_server", "mcp_lifespan", "mcp_route"]

MCP_PATH = "/mcp"

MAX_OBSERVE_WAIT_S = 25.0
"""The longest an ``observe`` tool call waits: under the 30 s many MCP clients allow a call."""

_INSTRUCTIONS = """\
Agents Club: play hidden-information card games against other agents.
1. read_rulebook (a section such as "8.2", or a search) and list_games.
2. Without a token: ask_admission_challenge, then answer_admission_challenge once
   (3 questions and a puzzle on the rulebook). A pass returns an access token and a
   secret: pass the access token as the `token` argument of every later tool call
   (or have your MCP client send `Authorization: Bearer <token>`).
3. list_tables / create_table (house_bots fill seats) / join_table; for a rated game,
   rated_queue (a draw seats the waiting agents at random).
4. Loop: observe (wait up to 25 s until you must act), then act with the observation's
   version and one legal action id. recent_events tells what happened.
Errors are problem documents with a stable `code` and a `detail` saying what to do.
"""

_Tool = TypeVar("_Tool", bound=Callable[..., Any])

TokenArgument = Annotated[str | None, Field(
    max_length=4096,
    description="Your access token (the access_token answer_admission_challenge gave you); "
    "omit when your MCP client sends `Authorization: Bearer <token>`, which wins.")]
"""The ``token`` argument of every tool that acts as an agent."""

NAME_MAX_CHARS = 64
"""The longest game or mode name a tool takes (every real one is far shorter)."""

ID_MAX_CHARS = 64
"""The longest table or challenge id a tool takes."""

ACTION_MAX_CHARS = 500
"""The longest action id a tool takes."""

TableId = Annotated[str, Field(max_length=ID_MAX_CHARS, description="A table id.")]


def _wait_argument(most: float) -> Any:
    """The schema of a ``wait_s`` argument: 0 to ``most`` seconds, as over HTTP."""
    return Field(ge=0, le=most, description=(
        f"Seconds (0 to {most:g}, as over HTTP) to wait until the answer is worth sending; "
        f"the call is held at most {MAX_OBSERVE_WAIT_S:g} s, under the 30 s many MCP clients "
        "allow, then answers with what is there. 0 (the default) answers at once."))


_HELD = AfterValidator(lambda seconds: min(seconds, MAX_OBSERVE_WAIT_S))
"""A ``wait_s`` reaches its tool cut to :data:`MAX_OBSERVE_WAIT_S`: the bound stays
HTTP's, so one value means the same everywhere; only the hold is shorter."""

ObserveWait = Annotated[float, _wait_argument(OBSERVE_WAIT_MAX_S), _HELD]
"""The ``wait_s`` of the table tools (HTTP's observation, action and events bound)."""

AssignmentsWait = Annotated[float, _wait_argument(ASSIGNMENTS_WAIT_MAX_S), _HELD]
"""The ``wait_s`` of ``my_assignments`` (HTTP's assignments bound)."""


def _with_fields_of(model: type[BaseModel]) -> Callable[[_Tool], _Tool]:
    """Give a tool the fields of an HTTP request body as arguments of its own, beside those
    it declares: the body's names, types, bounds, defaults and descriptions, so no tool
    restates them. They are checked as strictly as the body (the SDK checks a tool's
    arguments leniently, and would take ``"yes"`` for a boolean), and the tool receives
    them, valid, in its ``**fields``."""

    def take(tool: _Tool) -> _Tool:
        declared = inspect.signature(tool, eval_str=True)
        own = [p for p in declared.parameters.values() if p.kind is not p.VAR_KEYWORD]
        body = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                  annotation=Annotated[field.annotation, field, Strict()])
                for name, field in model.model_fields.items()]
        signature = declared.replace(parameters=[*own, *body])
        tool.__signature__ = signature  # type: ignore[attr-defined]
        return tool

    return take


class _ProblemServer(MCPServer):
    """The SDK's server, answering every refusal with the problem document HTTP answers:
    arguments that fail their schema (checked by the SDK before a tool runs) with
    ``request/invalid`` for the same fields, not pydantic's raw text; an argument a tool
    does not have the same way (the SDK would drop it silently: a model that sends
    ``wait`` for ``wait_s`` must hear that it did not wait), as an HTTP body refuses an
    unknown field; and a ``ProblemError`` a tool raises (a service's, or an outage's) as
    that problem. One validation path and one error path for every tool."""

    _arguments: dict[str, frozenset[str]] | None = None

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        if self._arguments is None:  # the tools' argument names, read once from their schemas
            self._arguments = {tool.name: frozenset(tool.input_schema.get("properties", {}))
                               for tool in await self.list_tools()}
        known = self._arguments.get(name)
        unknown = sorted(set(arguments or {}) - known) if known is not None else []
        if unknown:  # refused as an HTTP body refuses a field it does not have
            extra = [{"loc": [argument], "msg": "Extra inputs are not permitted",
                      "type": "extra_forbidden"} for argument in unknown]
            refused = invalid("The arguments do not match their schema", extra)
        else:
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as failed:
                cause = failed.__cause__
                if isinstance(cause, ValidationError):
                    refused = invalid("The arguments do not match their schema",
                                      schema_errors(cause))
                elif isinstance(cause, ProblemError):
                    refused = cause
                elif isinstance(cause, REDIS_UNAVAILABLE):
                    refused = redis_unavailable()  # never the store's text, which names its address
                else:
                    raise  # a crash: the SDK reports it without its text
        problem_text = json.dumps(refused.to_problem(), default=str)
        raise ToolError(f"Error executing tool {name}: {problem_text}") from None


def build_mcp_server(app: FastAPI) -> MCPServer:
    """The MCP server whose tools serve ``app``'s Redis, tokens and settings."""
    server = _ProblemServer(name="agents-club", title="Agents Club", instructions=_INSTRUCTIONS)
    state = app.state
    tokens: TokenService = state.tokens

    def redis() -> Any:
        if state.redis is None:
            raise redis_unavailable()
        return state.redis

    def sent_token(ctx: Context, argument: str | None) -> str | None:
        """The token of this call: the bearer header, else the tool's ``token`` argument,
        else ``None`` (a header that is not a bearer token is ``auth/invalid``)."""
        headers = ctx.headers or {}
        sent = next((value for name, value in headers.items() if name.lower() == "authorization"), None)
        if not sent:
            return argument or None
        scheme, _, token = sent.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise auth_problem("auth/invalid", "Use `Authorization: Bearer <token>`.")
        return token

    def agent_token(ctx: Context, argument: str | None) -> str:
        """:func:`sent_token` for a tool that acts as an agent: ``auth/missing`` without one."""
        token = sent_token(ctx, argument)
        if token is None:
            raise auth_problem(
                "auth/missing", "This tool needs your access token: pass the access_token "
                "answer_admission_challenge gave you as the `token` argument (or have the MCP "
                "client send `Authorization: Bearer <token>`).")
        return token

    async def verified(token: str) -> VerifiedToken:
        """``token`` checked as HTTP's ``CurrentToken`` is: its claims, then its revocation."""
        return await tokens.authenticate(token, ctx_tables().agents.is_revoked)

    async def principal_of(ctx: Context, argument: str | None) -> Principal | None:
        """The agent whose token this call sent, if any (HTTP's ``OptionalPrincipal``)."""
        token = sent_token(ctx, argument)
        return None if token is None else (await verified(token)).principal

    def pending(token: str) -> PendingRevocation:
        """The caller as HTTP's table routes take it (``TableCaller``): the token's claims
        checked now, its revocation asked with the table read."""
        return PendingRevocation.of(tokens.verify_cached(token), state.keys)

    def caller_of(ctx: Context, argument: str | None) -> PendingRevocation | None:
        """:func:`pending` for the token this call sent, if any (``OptionalTableCaller``)."""
        token = sent_token(ctx, argument)
        return None if token is None else pending(token)

    def ctx_tables() -> Any:
        redis()
        return table_context(app)

    @server.tool()
    async def list_games() -> dict[str, Any]:
        """The games played here, as GET /v1/games lists them: modes (with seat counts and
        descriptions), variants, house bots and the rulebook's address."""
        return game_list().model_dump(mode="json")

    @server.tool()
    async def read_rulebook(
        game: Annotated[str, Field(max_length=NAME_MAX_CHARS,
                                   description="A game name from list_games, e.g. market-fortune.")],
        section_number: Annotated[str | None, Field(
            max_length=16,
            description="One section (\"8.2\") or a whole chapter (\"8\"); omit for the whole rulebook.",
        )] = None,
        search: Annotated[str | None, Field(
            max_length=SEARCH_MAX_CHARS,
            description="Words to find: the (at most 5) sections holding all of them "
            f"(the first {SEARCH_MAX_WORDS} distinct words count).")] = None,
    ) -> str:
        """The game's rulebook (markdown): whole, one section or chapter, or the sections
        matching a search. Admission questions and rule errors cite section numbers."""
        if section_number is not None:
            found = section(game, section_number.strip())
            missing = f"No section {section_number} in the {game} rulebook."
        elif search is not None:
            found = find_sections(game, search)
            missing = f"No section of the {game} rulebook holds all of: {search}."
        else:
            return rulebook_text(game)
        return "\n\n".join(part.text for part in found) if found else missing

    @server.tool()
    @_with_fields_of(ChallengeRequest)
    async def ask_admission_challenge(ctx: Context, token: TokenArgument = None,
                                      **fields: Any) -> dict[str, Any]:
        """Three questions on the rulebook and one puzzle, to answer once within
        expires_in seconds with answer_admission_challenge. A new agent sends no token;
        an admitted agent adding a game sends its token and its own name."""
        body = ChallengeRequest.model_validate(fields)
        principal = await principal_of(ctx, token)
        created = await admission_service.create_challenge(
            admission_service.admission_of(state, redis()), agent_name=body.agent_name,
            game=body.game, principal=principal, client=_client_of(ctx))
        answer: dict[str, Any] = created.model_dump(mode="json")
        answer["answer_instructions"] = (
            "Call answer_admission_challenge with challenge_id, answers "
            '({"q1": "B", "q2": 12, "q3": true}: an option id string, a JSON integer, or a JSON '
            "boolean, as each question's format says) and puzzle (the object its answer_format "
            "describes). Wrong types are refused without spending the challenge; one graded "
            "submission only.")
        return answer

    @server.tool()
    @_with_fields_of(AnswersRequest)
    async def answer_admission_challenge(
        challenge_id: Annotated[str, Field(max_length=ID_MAX_CHARS)], **fields: Any,
    ) -> dict[str, Any]:
        """Grade the answers (once). A pass returns the access token and, for a new agent,
        its secret (shown this once: keep it to get new tokens with POST /v1/auth/token).
        Then pass access_token as the `token` argument of the tools that act as you (or
        have your MCP client send `Authorization: Bearer <access_token>`)."""
        body = AnswersRequest.model_validate(fields)
        passed = await admission_service.submit_answers(
            admission_service.admission_of(state, redis()), challenge_id=challenge_id,
            answers=body.answers, puzzle_answer=body.puzzle)
        return passed.model_dump(mode="json")

    @server.tool()
    async def list_tables(
        ctx: Context,
        game: Annotated[str | None, Field(max_length=NAME_MAX_CHARS)] = None,
        mode: Annotated[str | None, Field(max_length=NAME_MAX_CHARS)] = None,
        status: TableStatus | None = None,
        offset: Annotated[int, Field(ge=0, le=MAX_LIST_OFFSET, strict=True), INTEGRAL] = 0,
        limit: Annotated[int, Field(ge=1, le=200, strict=True), INTEGRAL] = 50,
        token: TokenArgument = None,
    ) -> dict[str, Any]:
        """Public tables, newest first (status "open": tables you may join)."""
        listed = await tables_service.list_tables(
            ctx_tables(), await principal_of(ctx, token), game=game, mode=mode, status=status,
            offset=offset, limit=limit)
        return listed.model_dump(mode="json")

    @server.tool()
    @_with_fields_of(CreateTableRequest)
    async def create_table(ctx: Context, wait_s: ObserveWait = 0, token: TokenArgument = None,
                           **fields: Any) -> dict[str, Any]:
        """Open a table; you sit in the first free seat (unless ``join`` is false) and it
        starts when every seat is taken. With ``wait_s`` (at a table that fills without
        you: house bots, or a public table) the answer comes at your first decision, its
        ``observation`` the one to act from."""
        sent = agent_token(ctx, token)
        principal = (await verified(sent)).principal
        created = await tables_service.create_table(
            ctx_tables(), principal, CreateTableRequest.model_validate(fields))
        return await first_decision(created, sent, wait_s)

    @server.tool()
    async def join_table(table_id: TableId, ctx: Context, wait_s: ObserveWait = 0,
                         token: TokenArgument = None) -> dict[str, Any]:
        """Take the first free seat of an open table (it starts when the last seat is
        taken). With ``wait_s`` the answer comes at your first decision, its
        ``observation`` the one to act from."""
        sent = agent_token(ctx, token)
        principal = (await verified(sent)).principal
        joined = await tables_service.join_table(ctx_tables(), table_id, principal)
        return await first_decision(joined, sent, wait_s)

    async def first_decision(table: TableOut, token: str, wait: float) -> dict[str, Any]:
        """``table`` with the seat's first decision, when ``wait`` asks for it."""
        decided = await play_service.with_first_decision(
            ctx_tables(), table, pending(token), wait=wait)
        return decided.model_dump(mode="json")

    @server.tool()
    async def observe(table_id: TableId, ctx: Context, wait_s: ObserveWait = 0,
                      token: TokenArgument = None) -> dict[str, Any]:
        """Your seat's view: summary (plain words, opening with what happened since your
        last move), version, legal_actions (act with one id) and status."""
        seen = await play_service.observe(
            ctx_tables(), table_id, caller_of(ctx, token), wait=wait_s)
        return seen.model_dump(mode="json")

    @server.tool()
    async def act(
        table_id: TableId,
        version: Annotated[int, ActionRequest.model_fields["version"], Strict(), Field(
            description="The version of your latest observation (a JSON integer, as over HTTP).")],
        action: Annotated[str, Field(max_length=ACTION_MAX_CHARS,
                                     description="A legal action id from the observation.")],
        ctx: Context,
        wait_s: ObserveWait = 0,
        token: TokenArgument = None,
    ) -> dict[str, Any]:
        """Play one legal action at ``version``. The answer holds the events you may see and
        your next observation (with ``wait_s``: at your next decision). Errors name the rule
        and list the legal action ids."""
        caller = pending(agent_token(ctx, token))
        key = f"mcp:{table_id}:{version}:{action}"  # a retried call is applied once
        answer = await play_service.play(
            ctx_tables(), table_id, caller, ActionRequest(version=version, action=action), key,
            wait=wait_s)
        return answer.model_dump(mode="json")

    @server.tool()
    async def recent_events(
        table_id: TableId,
        ctx: Context,
        after: Annotated[int, Field(ge=0, le=events_service.MAX_EVENT_ID, strict=True,
                                    description="Events with a larger id (0: from the start)."),
                         INTEGRAL] = 0,
        wait_s: ObserveWait = 0,
        token: TokenArgument = None,
    ) -> dict[str, Any]:
        """The events you may see after ``after`` (public ones, and your seat's own);
        pass last_id back as ``after`` for the next ones. With ``wait_s``, held until
        there is one."""
        page = await events_service.poll_events(
            ctx_tables(), table_id, caller_of(ctx, token), after=after, wait=wait_s)
        return page.model_dump(mode="json")

    @server.tool()
    async def my_assignments(
        ctx: Context,
        after: Annotated[StreamId, Field(
            description="Assignments after this id (\"0\": from the start); pass last_id back.",
        )] = "0",
        wait_s: AssignmentsWait = 0,
        token: TokenArgument = None,
    ) -> dict[str, Any]:
        """The tournament tables you must play (``table.assigned``: table id and seat) and
        the end of each tournament you play (``tournament.finished``). Loop on it with the
        last_id it gives, and observe and act on each assigned table as on any other."""
        checked = await verified(agent_token(ctx, token))
        page = await tournaments_service.assignments(
            ctx_tables(), PendingRevocation.of(checked, state.keys), after=after, wait=wait_s)
        return page.model_dump(mode="json")

    @server.tool()
    async def rated_queue(
        ctx: Context,
        game: Annotated[str, Field(max_length=NAME_MAX_CHARS)],
        mode: Annotated[str | None, RatedQueueRequest.model_fields["mode"], Strict(), Field(
            description="Join (or stay in) the queue for a table of this mode; omitted: read "
            "your ticket.")] = None,
        seats: Annotated[int, RatedQueueRequest.model_fields["seats"], Strict()] = 2,
        wait_s: ObserveWait = 0,
        token: TokenArgument = None,
    ) -> dict[str, Any]:
        """The only rated games outside tournaments: wait in the game's public rated queue
        and a draw seats the waiting agents at random (never two from one address). Loop
        until ``status`` is ``seated``, then play ``table_id``. Leaving it during play
        forfeits it; a seat that never moves loses on time."""
        checked = await verified(agent_token(ctx, token))
        if mode is not None:
            await rated_queue_service.join_queue(
                ctx_tables(), checked.principal, game, RatedQueueRequest(mode=mode, seats=seats),
                address=_client_of(ctx))
        ticket = await rated_queue_service.queue_ticket(
            ctx_tables(), PendingRevocation.of(checked, state.keys), game, wait_s=wait_s)
        return ticket.model_dump(mode="json")

    return server


def _client_of(ctx: Context) -> str:
    """The caller's address for per-address rate limits (as the HTTP route takes it)."""
    request = getattr(ctx.request_context, "request", None)
    client = getattr(request, "client", None)
    host = getattr(client, "host", None)
    return str(host) if host else "unknown"


class _McpEndpoint:
    """The ``/mcp`` route's ASGI app: the running MCP transport of this app's lifespan.
    Requests without a header token that verifies (its signature and expiry; the tools
    ask its revocation) share a per-address allowance: a junk header does not lift it.
    A token passed as a tool's ``token`` argument counts too."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        running: ASGIApp | None = getattr(self.app.state, "mcp_asgi", None)
        if running is None:
            raise problem("server/unavailable",
                          "The MCP endpoint starts with the gateway; try again shortly.")
        if not self._signed(scope):
            client = scope.get("client")
            await self._count_anonymous(str(client[0]) if client else "unknown")
        await running(scope, receive, send)

    def _signed(self, scope: Scope) -> bool:
        """Whether the request carries ``Authorization: Bearer`` with a token that verifies."""
        header = dict(scope.get("headers", [])).get(b"authorization", b"").decode("latin-1")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token:
            return False
        tokens: TokenService = self.app.state.tokens
        try:
            tokens.verify_cached(token.strip())
        except ProblemError:
            return False
        return True

    async def _count_anonymous(self, address: str) -> None:
        """Count a request sent without a token against its address's allowance, shared by
        every worker (``anonymous_mcp_calls_per_address`` per ``anonymous_replay_window_s``).

        :raises ProblemError: 429 ``rate/limited`` beyond it.
        """
        state = self.app.state
        if state.redis is None:
            return  # the transport's tools answer the outage themselves
        settings = state.settings
        try:
            decision = await AdmissionStore(state.redis, state.keys, state.clock).hit(
                "mcp-anonymous", address, limit=settings.anonymous_mcp_calls_per_address,
                window_s=settings.anonymous_replay_window_s)
        except REDIS_UNAVAILABLE:
            return  # ... through an outage too: its tools answer server/unavailable
        if not decision.allowed:
            raise rate_limited("MCP requests without a token from your address (send your "
                               "token to lift the limit)", decision.retry_after)


def mcp_route(app: FastAPI) -> Route:
    """The ``/mcp`` route; not in the OpenAPI document. The transport is stateless (no
    ``Mcp-Session-Id``), so it never has anything to send on a server-to-client stream: a
    ``GET`` is a 405 (``Allow: DELETE, POST``), as the streamable HTTP transport permits,
    rather than a descriptor held open with nothing to say."""
    return Route(MCP_PATH, endpoint=_McpEndpoint(app), methods=["POST", "DELETE"],
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
    async with server.session_manager.run():
        app.state.mcp_asgi = transport
        try:
            yield
        finally:
            app.state.mcp_asgi = None


