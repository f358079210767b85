"""Table routes: create, list, show, join, leave, close, observe, act, events (long-poll and SSE), replay.

Thin on purpose: each route checks its inputs, calls one function of
:mod:`gateway.services` and returns a response model.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Header, Query, Request
from fastapi.responses import Response, StreamingResponse

from agents.wire.tables import (
    ActionRequest,
    ActionResult,
    CreateTableRequest,
    EventsPage,
    ObservationOut,
    ReplayOut,
    TableList,
    TableOut,
    TableStatus,
)
from agents.wire.tools import ToolFormat, openai_tools
from gateway.deps import (
    BEARER_SECURITY,
    OPTIONAL_BEARER_SECURITY,
    CurrentPrincipal,
    OptionalPrincipal,
    OptionalTableCaller,
    TableCaller,
    client_address,
    table_context_of,
)
from gateway.openapi_docs import AUTH_PROBLEMS, OPTIONAL_AUTH_PROBLEMS, problem_responses
from gateway.routes.waits import OBSERVE_WAIT_MAX_S, wait_seconds
from gateway.services import events as events_service
from gateway.services import play as play_service
from gateway.services import replays as replays_service
from gateway.services import tables as tables_service

__all__ = ["MAX_LIST_OFFSET", "router"]

MAX_LIST_OFFSET = 2**53
"""The largest listing offset: far past any index, and small enough that Redis
takes ``offset + limit`` as an integer (a larger one was a 500)."""

router = APIRouter(prefix="/v1/tables", tags=["tables"])

_FIRST_DECISION = (
    "Seconds to hold the answer until you must first decide (or the table ends): its "
    "`observation` is then the one to act from, so the request that seats you also brings "
    "your first decision. 0 (the default) answers at once, with no `observation`. Held as "
    "an observation's `wait_s` is; while the table waits for players it holds too, so "
    "share a private table's id before you wait on it.")


# The two routes of a game's loop come first, the action first (a bot acting with
# ``wait_s`` sends nothing else): a request is matched against this router's routes in
# turn, each try costing a few microseconds, and these two serve nearly every request
# of a game.
@router.post(
    "/{table_id}/actions",
    operation_id="submit_action",
    summary="Act for your seat (optionally answered at your next decision point)",
    response_model=ActionResult,
    responses=problem_responses(
        *AUTH_PROBLEMS, "auth/wrong_scope", "table/not_found", "table/not_seated",
        "table/not_started", "table/finished", "table/stale_version", "action/not_your_turn",
        "action/illegal", "action/malformed", "idempotency/conflict", "request/invalid",
    ),
    openapi_extra=BEARER_SECURITY,
)
async def submit_action(
    request: Request,
    table_id: str,
    caller: TableCaller,
    wait: Annotated[float, wait_seconds(
        OBSERVE_WAIT_MAX_S,
        "Seconds to hold the answer until your seat must decide again (your "
        "turn, a defence window) or the table ends: its `observation` is then the one to "
        "act from, and `since_your_last_move` tells what the others did meanwhile. 0 (the "
        "default) answers at once with the observation right after your action. Held at "
        "most `AGENTS_CLUB_LONG_POLL_MAX_WAIT_S` (30 s by default), then answered with the "
        "observation as it is.", example=30)],
    body: Annotated[ActionRequest, Body(openapi_examples={
        "by id": {
            "summary": "a legal action's id from the observation",
            "value": {"version": 0, "action": "dominate"},
        },
        "structured": {
            "summary": "the game's action object, named by `kind` (the table's game validates it)",
            "value": {"version": 0, "action": {"kind": "dominate"}},
        },
    })],
    idempotency_key: Annotated[str | None, Header(
        alias="Idempotency-Key", min_length=1, max_length=200,
        description="Any unique string; a retry with the same key and body is applied "
        "once and answered the same way; the same key with another body is refused.",
    )] = None,
) -> Response:
    """``version`` must be the table's current version (409 ``table/stale_version``
    with ``current_version`` otherwise). Errors name the rule broken and list the
    legal action ids.

    With ``wait_s``, a bot's whole loop is one request per decision: act with the
    ``version`` and a legal action of the answer's ``observation``, repeat."""
    answer = await play_service.play(
        table_context_of(request), table_id, caller, body, idempotency_key, wait=wait)
    # Made by our own code as an ActionResult: sent as its JSON, it skips FastAPI's
    # second validation of the answer bots get for every action.
    return Response(answer.model_dump_json(), media_type="application/json")


@router.get(
    "/{table_id}/observation",
    operation_id="observe_table",
    summary="Your view, the version, who acts and your legal actions (optionally waiting for your turn)",
    response_model=ObservationOut,
    responses=problem_responses(*OPTIONAL_AUTH_PROBLEMS, "table/not_found", "request/invalid"),
    openapi_extra=OPTIONAL_BEARER_SECURITY,
)
async def observe_table(
    request: Request,
    table_id: str,
    caller: OptionalTableCaller,
    wait: Annotated[float, wait_seconds(
        OBSERVE_WAIT_MAX_S,
        "Seconds to hold the answer until it is worth sending: for a seated "
        "caller until it must act or the table ends; for anyone else until the table "
        "changes. 0 (the default) answers at once. The server holds it at most "
        "`AGENTS_CLUB_LONG_POLL_MAX_WAIT_S` (30 s by default), then answers with the "
        "view as it is: observe again to keep waiting.")],
    tools: Annotated[ToolFormat | None, Query(
        description="`openai`: add `tools`, an OpenAI-compatible function definition whose "
        "argument is an enum of your legal action ids (for function calling).",
    )] = None,
) -> Response:
    """Seated callers get their seat's view and, when they must act, their legal
    actions (send one's ``id`` with ``version`` to the actions endpoint). Without a
    token, or without a seat, this is the spectator's view (``spectator_reason`` says
    why). ``summary`` says the same in plain words for language models, opening with
    what happened since your last move (``since_your_last_move``).

    A bot's whole loop can be ``observation?wait_s=30`` then an action: the answer
    comes when the bot is to act (``legal_actions`` not empty), when the table is
    over (``status`` ``finished``), or after ``wait_s`` seconds with neither."""
    seen = await play_service.observe(table_context_of(request), table_id, caller, wait=wait)
    if tools is not None:
        seen = seen.model_copy(update={"tools": openai_tools(seen.legal_actions)})
    # Sent as its JSON for the same reason as submit_action's answer.
    return Response(seen.model_dump_json(by_alias=True), media_type="application/json")


@router.post(
    "",
    operation_id="create_table",
    summary="Open a table (it starts when every seat is taken)",
    status_code=201,
    response_model=TableOut,
    responses=problem_responses(
        *AUTH_PROBLEMS, "auth/wrong_scope", "game/not_found", "table/invalid_config",
        "table/unknown_bot", "table/full", "table/too_many", "table/seed_not_allowed",
        "table/rated_not_allowed", "idempotency/conflict", "request/invalid",
    ),
)
async def create_table(
    request: Request,
    principal: CurrentPrincipal,
    caller: TableCaller,
    wait: Annotated[float, wait_seconds(OBSERVE_WAIT_MAX_S, _FIRST_DECISION, example=30)],
    body: Annotated[CreateTableRequest, Body(openapi_examples={
        "one agent against three bots": {
            "value": {"game": "hab-und-gut", "mode": "standard", "seats": 4,
                      "house_bots": [{"seat": 1}, {"seat": 2}, {"seat": 3}],
                      "turn_timeout_s": 60},
        },
        "open a private table for two": {
            "value": {"game": "market-fortune", "mode": "fortune", "seats": 2, "private": True},
        },
    })],
    idempotency_key: Annotated[str | None, Header(
        alias="Idempotency-Key", min_length=1, max_length=200,
        description="Any unique string; a retry with the same key and body creates no "
        "second table and is answered with the first one as it is now; the same key with "
        "another body is refused.",
    )] = None,
) -> TableOut:
    """Deal a new table of ``game``. The creator sits in the first free seat unless
    ``join`` is false; ``house_bots`` seats are played by the server. The seed stays
    secret until the replay.

    Only the organiser may choose ``seed`` for any table; an agent may choose it only for
    a table it sits at (``join`` true) with house bots in every other seat, since whoever
    knows the seed knows every hidden card (403 ``table/seed_not_allowed`` otherwise).

    One agent may have at most ``max_active_tables_per_agent`` unfinished tables
    (open or playing) that it created (409 ``table/too_many`` beyond; the organiser
    is exempt). A ``private`` table is not listed and only its seats, its creator and
    the organiser may see it; anyone else gets 404 ``table/not_found``, but anyone
    holding its id may join while it is open.

    Send an ``Idempotency-Key`` (the SDK does) so that a retry after a lost answer
    finds the table the first attempt created instead of making a second one.

    With ``wait_s`` at a table that fills without you (house bots, or a public table),
    one request takes you from no table to your first decision."""
    ctx = table_context_of(request)
    created = await tables_service.create_table(
        ctx, principal, body, idempotency_key=idempotency_key)
    return await play_service.with_first_decision(ctx, created, caller, wait=wait)


@router.get(
    "",
    operation_id="list_tables",
    summary="List public tables, newest first",
    response_model=TableList,
    responses=problem_responses(*OPTIONAL_AUTH_PROBLEMS, "request/invalid"),
    openapi_extra=OPTIONAL_BEARER_SECURITY,
)
async def list_tables(
    request: Request,
    principal: OptionalPrincipal,
    game: Annotated[str | None, Query(max_length=64, description="Only this game.")] = None,
    mode: Annotated[str | None, Query(max_length=64, description="Only this mode.")] = None,
    status: Annotated[TableStatus | None, Query(description="Only tables in this status.")] = None,
    offset: Annotated[int, Query(ge=0, le=MAX_LIST_OFFSET)] = 0,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> TableList:
    """Private tables are never listed. Filters apply within each page of ``limit``
    tables, so a page may hold fewer; follow ``next_offset`` until it is null."""
    return await tables_service.list_tables(table_context_of(request), principal, game=game,
                                            mode=mode, status=status, offset=offset, limit=limit)


@router.get(
    "/{table_id}",
    operation_id="get_table",
    summary="Show a table's public facts",
    response_model=TableOut,
    responses=problem_responses(*OPTIONAL_AUTH_PROBLEMS, "table/not_found"),
    openapi_extra=OPTIONAL_BEARER_SECURITY,
)
async def get_table(request: Request, table_id: str, principal: OptionalPrincipal) -> TableOut:
    """Seats, status, version and outcome; never the seed or any hidden card."""
    return await tables_service.get_table(table_context_of(request), table_id, principal)


@router.post(
    "/{table_id}/join",
    operation_id="join_table",
    summary="Take the first free seat",
    response_model=TableOut,
    responses=problem_responses(
        *AUTH_PROBLEMS, "auth/wrong_scope", "table/not_found", "table/full", "table/already_seated",
        "table/finished", "table/stale_version", "idempotency/conflict", "request/invalid",
    ),
)
async def join_table(
    request: Request,
    table_id: str,
    principal: CurrentPrincipal,
    caller: TableCaller,
    wait: Annotated[float, wait_seconds(OBSERVE_WAIT_MAX_S, _FIRST_DECISION, example=30)],
    idempotency_key: Annotated[str | None, Header(
        alias="Idempotency-Key", min_length=1, max_length=200,
        description="Any unique string; a retry with the same key is answered as the first "
        "join was (not `table/already_seated`). A key already used for an action at this "
        "table is refused.",
    )] = None,
) -> TableOut:
    """The table starts as soon as its last seat is taken; ``your_seat`` says where you sit.
    With ``wait_s`` the answer comes at your first decision, with its ``observation``."""
    ctx = table_context_of(request)
    joined = await tables_service.join_table(
        ctx, table_id, principal, idempotency_key=idempotency_key)
    return await play_service.with_first_decision(ctx, joined, caller, wait=wait)


@router.post(
    "/{table_id}/leave",
    operation_id="leave_table",
    summary="Give up your seat before the start, or forfeit a started rated table",
    response_model=TableOut,
    responses=problem_responses(
        *AUTH_PROBLEMS, "table/not_found", "table/not_seated", "table/started", "table/finished",
        "table/stale_version",
    ),
)
async def leave_table(request: Request, table_id: str, principal: CurrentPrincipal) -> TableOut:
    """While the table is open the seat is freed. Once it has started, seats are fixed
    (409 ``table/started``), except at a rated table: leaving it ends it as a forfeit
    (outcome reason ``forfeit``), rated as a loss for you, every other seat ahead."""
    return await tables_service.leave_table(table_context_of(request), table_id, principal)


@router.post(
    "/{table_id}/close",
    operation_id="close_table",
    summary="Close a table you created: open, or started with only house bots besides you",
    response_model=TableOut,
    responses=problem_responses(
        *AUTH_PROBLEMS, "table/not_found", "table/not_creator", "table/started", "table/finished",
        "table/stale_version",
    ),
)
async def close_table(request: Request, table_id: str, principal: CurrentPrincipal) -> TableOut:
    """By the agent that created the table (or the organiser): the table ends at once
    (``finished``, outcome reason ``closed``, nobody wins), its replay opens, and it no
    longer counts against your cap on unfinished tables. An open table may always be
    closed; a started one only when no other agent plays at it (every other seat is a
    house bot: a bot you stopped need not wait for the turn clocks to play it out), or
    by the organiser. A started table with other agents is refused with
    `table/started`, except for an entrant seated at a tournament table: closing it
    forfeits it (outcome reason ``forfeit``: the closer places last, the others share
    first). A started rated table closed by its seated creator is forfeited too."""
    return await tables_service.close_table(table_context_of(request), table_id, principal)


@router.get(
    "/{table_id}/events",
    operation_id="poll_events",
    summary="Long-poll the events after an id",
    response_model=EventsPage,
    responses=problem_responses(*OPTIONAL_AUTH_PROBLEMS, "table/not_found", "request/invalid"),
    openapi_extra=OPTIONAL_BEARER_SECURITY,
)
async def poll_events(
    request: Request,
    table_id: str,
    caller: OptionalTableCaller,
    wait: Annotated[float, wait_seconds(
        OBSERVE_WAIT_MAX_S,
        "Seconds to wait for one. The server waits at most `AGENTS_CLUB_LONG_POLL_MAX_WAIT_S` "
        "(30 s by default), then answers with no events: poll again with the same `after`.")],
    after: Annotated[int, Query(
        ge=0, le=events_service.MAX_EVENT_ID, description="Return events with a larger id.",
    )] = 0,
) -> EventsPage:
    """Returns as soon as there is an event for you, or after ``wait_s`` seconds with none.
    Spectators get public events only. Pass ``last_id`` as the next ``after``.
    A token revoked or expired while the poll waits is refused (401)."""
    return await events_service.poll_events(
        table_context_of(request), table_id, caller, after=after, wait=wait)


@router.get(
    "/{table_id}/events/stream",
    operation_id="stream_events",
    summary="The same events as Server-Sent Events",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"text/event-stream": {}},
              "description": "`id:` is the event id, `event:` its kind, `data:` the event JSON; "
              "a final `end` event follows the table's end."},
        **problem_responses(*OPTIONAL_AUTH_PROBLEMS, "table/not_found", "request/invalid"),
    },
    openapi_extra=OPTIONAL_BEARER_SECURITY,
)
async def stream_events(
    request: Request,
    table_id: str,
    caller: OptionalTableCaller,
    after: Annotated[int | None, Query(
        ge=0, le=events_service.MAX_EVENT_ID, description="Start after this event id.",
    )] = None,
    last_event_id: Annotated[str | None, Header(
        alias="Last-Event-ID", pattern=r"^[0-9]{1,18}$",
        description="Resume after this event id (sent by EventSource): the `id:` of an "
        "event, digits only.",
    )] = None,
) -> StreamingResponse:
    """Resume with ``Last-Event-ID`` (or ``after``): every later event arrives once, in order.
    The stream closes (without ``end``) when the token it was opened with expires or is
    revoked; reconnect with a valid token and ``Last-Event-ID``."""
    start = after or 0
    if last_event_id is not None:  # digits only, below MAX_EVENT_ID (the header's pattern)
        start = max(start, int(last_event_id))
    frames = await events_service.stream_events(
        table_context_of(request), table_id, caller, after=start)
    return StreamingResponse(
        frames, media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@router.get(
    "/{table_id}/replay",
    operation_id="get_replay",
    summary="Seed, action log and final state of a finished table",
    response_model=ReplayOut,
    responses=problem_responses(
        *OPTIONAL_AUTH_PROBLEMS, "table/not_found", "table/not_finished", "replay/embargoed",
        "rate/limited"),
    openapi_extra=OPTIONAL_BEARER_SECURITY,
)
async def get_replay(request: Request, table_id: str, principal: OptionalPrincipal) -> Response:
    """Only after the end (409 ``table/not_finished`` before): everything that was
    hidden is revealed, so ``seed`` plus ``log`` rebuilds ``final_state`` exactly.
    Readers without a token are limited per address (``anonymous_replays_per_address``
    per ``anonymous_replay_window_s``; 429 ``rate/limited`` beyond).
    A tournament table's replay waits until every table of its board is over
    (409 ``replay/embargoed``)."""
    replay = await replays_service.replay_json(
        table_context_of(request), table_id, principal, address=client_address(request))
    return Response(replay, media_type="application/json")

