"""The WebSocket for bots: ``/v1/ws`` (messages in :mod:`agents.wire.socket`).

One connection per agent, authenticated once: the bearer token of the upgrade's
``Authorization`` header, or (for a browser, which cannot set it) an ``auth``
message first. The client subscribes to tables and to its tournament
assignments; the server pushes the seat's observation whenever it must decide,
the events it may see when asked, and the end.

Nothing here decides anything about a game, a seat or a token: every read and
every action goes through the same service functions as HTTP and MCP
(:func:`gateway.services.actions.submit`, :func:`gateway.services.play.wait_from`,
:func:`gateway.services.events.poll_events`,
:func:`gateway.services.tournaments.assignments`), so the socket redacts, refuses
and applies exactly as they do. A subscription waits the way a held observation
does (:func:`gateway.services.play.wait_from`: a watch on the table's turn stream,
then one read), from the snapshot of the table as it last read it: while it
waits it holds no parsed table and no Redis connection, so a worker holds many
idle sockets cheaply.

An ``act`` is answered with ``accepted`` (the action's version and events), or
with the problem document HTTP would answer. An act on the decision the socket
just told is tried on the table it was told from (``submit``'s ``told``), kept
until the seat acts, and the commit's compare-and-set catches a table that moved
on. When the seat is still to act, its
``result`` carries that next decision, built from the state the commit just wrote,
with no read, and the same observation is pushed once; otherwise it has no
observation, and the seat's next decision is pushed when another change brings it.
With ``events_after``, the events up to a pushed decision's ``last_event_id`` are
sent before it (:meth:`_Session._send_events`).

Resume: an agent that reconnects subscribes again with the last version it
decided at (``after_version``) and the last event id it read (``events_after``);
every later decision and event then arrives once. An action sent again after a
reconnect with the same ``idempotency_key`` is applied at most once.

The connection is held to its token for as long as it lasts: a revocation
(watched, so at once) closes it with 4441, the token's expiry with 4440 unless
a fresh ``auth`` of the same agent came before (close codes:
:data:`agents.wire.socket.CLOSE_CODES`). Dead peers are found by uvicorn's
ping/pong (:func:`socket_options`, applied by ``agents-club serve``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from fastapi import WebSocket
from fastapi.security.utils import get_authorization_scheme_param
from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette.websockets import WebSocketDisconnect, WebSocketState

from agents.wire.socket import (
    CLOSE_AUTH_EXPIRED,
    CLOSE_AUTH_FAILED,
    CLOSE_AUTH_REVOKED,
    CLOSE_AUTH_TIMEOUT,
    CLOSE_PROTOCOL,
    CLOSE_UNAVAILABLE,
    AcceptedMessage,
    ActMessage,
    AssignmentsMessage,
    AuthMessage,
    ClientMessage,
    EndMessage,
    EventsMessage,
    ObservationMessage,
    ProblemMessage,
    SubscribeAssignmentsMessage,
    SubscribeMessage,
    UnsubscribeMessage,
    WelcomeMessage,
)
from agents.wire.tables import ActionRequest, EventsPage, ObservationOut
from gateway.errors import ProblemError, redis_unavailable
from gateway.principal import Principal
from gateway.security import PendingRevocation, TokenService, auth_problem
from gateway.services import actions as actions_service
from gateway.services import events as events_service
from gateway.services import play as play_service
from gateway.services import tournaments as tournaments_service
from gateway.services.context import TableContext
from gateway.services.loaded_table import LoadedTable
from gateway.services.records import invalid, schema_errors
from gateway.services.runtime import table_context
from gateway.services.waiters import Watch
from gateway.store.outage import REDIS_UNAVAILABLE
from gateway.store.tables import RecentHistory
from gateway.store.waits import stop_tasks

__all__ = [
    "ACTS_IN_FLIGHT",
    "AUTH_TIMEOUT_S",
    "CANCEL_WAIT_S",
    "MAX_MESSAGE_BYTES",
    "MAX_SUBSCRIPTIONS",
    "RECHECK_S",
    "socket",
    "socket_options",
]

log = logging.getLogger(__name__)

AUTH_TIMEOUT_S = 10.0
"""How long a connection opened without a token may take to send its ``auth`` message."""

MAX_SUBSCRIPTIONS = 256
"""Tables one connection may follow at once (a tournament bot plays several)."""

ACTS_IN_FLIGHT = 16
"""Actions of one connection being applied at once; more wait (the socket stops reading)."""

MAX_MESSAGE_BYTES = 64 * 1024
"""The largest message a client may send (``ws_max_size``: larger ones close the
connection with 1009); an action is a few hundred bytes."""

CANCEL_WAIT_S = 2.0
"""How long a session's end waits for its tasks to stop."""

RECHECK_S = 30.0
"""A subscription reads its table again this often even when nothing woke it: a
safety net, never the way news arrives."""

_CLIENT_MESSAGE: TypeAdapter[Any] = TypeAdapter(ClientMessage)
_ACT_REFUSALS: tuple[type[Exception], ...] = (ProblemError, *REDIS_UNAVAILABLE)


class _Closing(Exception):
    """Ends the session: close the socket with ``code`` (``None``: it is gone already)."""

    def __init__(self, code: int | None, reason: str = "") -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def _closing_for(error: BaseException) -> _Closing:
    """How a session ends when one of its tasks failed with ``error`` (an unexpected one
    is logged with its traceback)."""
    if isinstance(error, _Closing):
        return error
    if isinstance(error, REDIS_UNAVAILABLE):
        return _Closing(CLOSE_UNAVAILABLE, "server/unavailable")
    log.error("socket task failed", exc_info=error)
    return _Closing(1011, "server/error")


_TOKEN_CLOSES = {"auth/revoked": CLOSE_AUTH_REVOKED, "auth/expired": CLOSE_AUTH_EXPIRED}


def _close_if_token_failed(error: ProblemError) -> None:
    if error.code in _TOKEN_CLOSES:
        raise _Closing(_TOKEN_CLOSES[error.code], error.code) from None


class _Session:
    """One authenticated connection: its caller, subscriptions and actions in flight.

    The connection's own task reads the client's messages; each subscription and each
    action runs in a task of its own. The token needs no task: a watch of its
    revocation mark and a timer at its expiry end the session (:meth:`_hold_token`)."""

    def __init__(self, websocket: WebSocket, ctx: TableContext, credential: _Credential) -> None:
        self.websocket = websocket
        self.ctx = ctx
        self.credential = credential
        self._send_lock = asyncio.Lock()
        self._tables: dict[str, asyncio.Task[None]] = {}
        self._pushed: dict[str, int] = {}
        """Per followed table, the version of the last decision pushed."""
        self._told: dict[str, LoadedTable] = {}
        """Per followed table, the table its last decision was told from, until the seat
        acts: that action is tried on it with no read (:func:`actions_service.submit`'s
        ``told``). Not kept past it, so a waiting socket holds no table but its own wait's."""
        self._watches: dict[str, Watch] = {}
        self._assignments: asyncio.Task[None] | None = None
        self._acts = asyncio.Semaphore(ACTS_IN_FLIGHT)
        self._tasks: set[asyncio.Task[None]] = set()
        self._reader = asyncio.current_task()
        self._closing: _Closing | None = None
        self._token: tuple[str, Watch, asyncio.TimerHandle] | None = None
        self.closed = False
        """Set once the session ends: every loop stops at its next turn."""

    # sending -------------------------------------------------------------------------

    async def send(self, frame: BaseModel) -> None:
        text = frame.model_dump_json(by_alias=True)
        async with self._send_lock:
            try:
                await self.websocket.send_text(text)
            except Exception:  # the peer is gone (each server raises its own kind)
                raise _Closing(None) from None

    async def send_problem(self, error: ProblemError, *, ref: str | None = None,
                           table_id: str | None = None) -> None:
        await self.send(ProblemMessage(ref=ref, table_id=table_id, problem=error.to_problem()))

    # tasks -----------------------------------------------------------------------------

    def spawn(self, work: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """Run ``work`` for this session; a :class:`_Closing` it raises ends the session
        (so does any other error, :func:`_closing_for` says how)."""
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            self.end(_closing_for(error))

    def end(self, closing: _Closing) -> None:
        """End the session with ``closing`` (the first reason wins): the reading task is
        cancelled, and :meth:`run` closes the socket."""
        if self._closing is None and not self.closed:
            self._closing = closing
            if self._reader is not None:
                self._reader.cancel()

    async def run(self) -> None:
        """Serve the connection until the peer leaves or the session must close; called by
        the connection's own task, which reads."""
        self._hold_token()
        try:
            closing = await self._read()
        except asyncio.CancelledError:
            # By end(), unless the server stops too (then it goes on as a cancellation).
            if self._closing is None or self._reader is None or self._reader.uncancel() > 0:
                raise
            closing = self._closing
        except Exception as error:
            closing = _closing_for(error)
        finally:
            self.closed = True
            self._release_token()
            for task in list(self._tasks):
                task.cancel()
        # Bounded: a task whose cancellation a library swallowed must not hold the
        # connection's end; it stops at its next check of ``closed`` instead.
        await stop_tasks(*self._tasks, grace_s=CANCEL_WAIT_S)
        await _close(self.websocket, self._closing or closing)

    # the token -------------------------------------------------------------------------

    def _hold_token(self) -> None:
        """Hold the session to its token: its revocation mark is watched (each wake
        checks it) and a timer ends the session when it expires. The token was found
        not revoked when it came; the mark's subscription, once Redis confirms it, wakes
        the watch, and that check covers the moment in between. Only a subscription
        confirmed already (another holder of this worker watches the mark) is checked
        now instead."""
        caller = self.credential.caller
        watch = Watch(on_wake=self._check_revocation)
        (ready,) = self.ctx.waiters.open((caller.revoked_key,), watch)
        expiry = asyncio.get_running_loop().call_later(
            max(0.0, caller.valid_until - time.time()),
            self.end, _Closing(CLOSE_AUTH_EXPIRED, "auth/expired"))
        self._token = (caller.revoked_key, watch, expiry)
        if ready.done():
            self._check_revocation()

    def _release_token(self) -> None:
        if self._token is not None:
            key, watch, expiry = self._token
            self._token = None
            expiry.cancel()
            self.ctx.waiters.close((key,), watch)

    def _check_revocation(self) -> None:
        if not self.closed:
            self.spawn(self._end_if_revoked(self.credential), "socket-token")

    async def _end_if_revoked(self, credential: _Credential) -> None:
        if await self.ctx.agents.is_revoked(credential.principal.token_id):
            raise _Closing(CLOSE_AUTH_REVOKED, "auth/revoked")

    async def _renew(self, message: AuthMessage) -> None:
        """A fresh token of the same agent replaces the connection's (before it expires)."""
        try:
            credential = await _authenticate(self.websocket, message.token)
            if credential.principal.agent_id != self.credential.principal.agent_id:
                raise auth_problem("auth/invalid", "A connection keeps its agent; open another.")
        except ProblemError as error:
            await self.send_problem(error)
            return
        self.credential = credential
        self._release_token()
        self._hold_token()
        await self.send(credential.welcome())

    # reading ---------------------------------------------------------------------------

    async def _read(self) -> _Closing:
        while True:
            try:
                text = await _next_text(self.websocket)
            except (WebSocketDisconnect, RuntimeError):
                return _Closing(None)  # gone
            if text is None:  # a binary frame: refused like any message that is not JSON
                await self.send_problem(invalid("The message does not match its schema", [{
                    "loc": [], "msg": "A binary frame: each message is JSON text",
                    "type": "json_invalid"}]))
                continue
            await self._dispatch(text)

    async def _dispatch(self, text: str) -> None:
        """Serve one message (in a frame of its own: not held while the next is awaited)."""
        try:
            message = _CLIENT_MESSAGE.validate_json(text)
        except ValidationError as error:
            refused = invalid("The message does not match its schema", schema_errors(error))
            await self.send_problem(refused, ref=_ref_of(text))
            return
        if isinstance(message, ActMessage):
            await self._acts.acquire()  # bounded: past this the socket stops reading
            task = self.spawn(self._act(message), "socket-act")
            task.add_done_callback(lambda _task: self._acts.release())
        elif isinstance(message, SubscribeMessage):
            await self._subscribe(message)
        elif isinstance(message, UnsubscribeMessage):
            await self._unsubscribe(message.table_id)
        elif isinstance(message, SubscribeAssignmentsMessage):
            if self._assignments is not None:
                self._assignments.cancel()
            self._assignments = self.spawn(self._follow_assignments(message.after),
                                           "socket-assignments")
        elif isinstance(message, AuthMessage):
            await self._renew(message)

    # actions ---------------------------------------------------------------------------

    async def _act(self, message: ActMessage) -> None:
        body = ActionRequest(version=message.version, action=message.action)
        table_id = message.table_id
        watch = self._watches.get(table_id)
        if watch is not None:  # its own write, known before its publish may come
            watch.know(message.version + 1)
        try:
            applied = await actions_service.submit(
                self.ctx, table_id, self.credential.caller, body, message.idempotency_key,
                watch=watch, told=self._told.pop(table_id, None))
            if watch is not None and (applied.retried or applied.table.record.status != "playing"):
                watch.wake()  # not this request's write, or the end: the subscription reads
        except _ACT_REFUSALS as error:
            if watch is not None:
                watch.wake()  # nothing written here: whatever wrote that version is news
            # Through an outage, applied or not, the client cannot tell: it retries with the
            # same key.
            refused = error if isinstance(error, ProblemError) else redis_unavailable()
            await self.send_problem(refused, ref=message.ref, table_id=table_id)
            _close_if_token_failed(refused)
            return
        version = applied.table.version
        following = None
        if (table_id in self._tables and not applied.retried and applied.decides
                and applied.table.record.status == "playing"
                and version > self._pushed.get(table_id, -1)):
            # Still to act (no turn entry wakes the subscription): the answer carries the
            # decision, built from the state the commit wrote, and it is pushed once too.
            self._pushed[table_id] = version
            self._told[table_id] = applied.table
            following = play_service.observation_after(applied)
        await self.send(AcceptedMessage(ref=message.ref, table_id=table_id,
                                        result=applied.result(following)))
        if following is not None:  # also pushed, for clients that act on pushes only
            await self.send(ObservationMessage(table_id=table_id, observation=following))

    # subscriptions ---------------------------------------------------------------------

    async def _subscribe(self, message: SubscribeMessage) -> None:
        await self._unsubscribe(message.table_id)
        if len(self._tables) >= MAX_SUBSCRIPTIONS:
            await self.send_problem(ProblemError(
                422, "request/invalid", "Invalid request",
                f"One connection follows at most {MAX_SUBSCRIPTIONS} tables; unsubscribe "
                "from finished ones or open another connection."), table_id=message.table_id)
            return
        self._tables[message.table_id] = self.spawn(
            self._follow_table(message.table_id, message.after_version, message.events_after),
            f"socket-table-{message.table_id}")

    async def _unsubscribe(self, table_id: str) -> None:
        task = self._tables.pop(table_id, None)
        if task is not None:
            await stop_tasks(task, grace_s=CANCEL_WAIT_S)

    async def _follow_table(self, table_id: str, after_version: int,
                            events_after: int | None) -> None:
        following: list[asyncio.Task[Any]] = []
        try:
            if events_after is None:  # decisions only: in this task
                final = await self._follow_decisions(table_id, after_version, None)
            else:
                feed = _EventsFeed(events_after)
                following = [
                    asyncio.create_task(self._follow_decisions(table_id, after_version, feed)),
                    asyncio.create_task(self._follow_events(table_id, feed))]
                done, _running = await asyncio.wait(following,
                                                    return_when=asyncio.FIRST_EXCEPTION)
                for task in done:
                    task.result()  # the first error, if any
                # Every event, the table's end included, before `end`.
                final = (await asyncio.gather(*following))[0]
            await self.send(EndMessage(table_id=table_id, observation=final))
        except ProblemError as error:
            _close_if_token_failed(error)
            await self.send_problem(error, table_id=table_id)
        finally:
            await stop_tasks(*following, grace_s=CANCEL_WAIT_S)
            if self._tables.get(table_id) is asyncio.current_task():
                del self._tables[table_id]

    async def _follow_decisions(
        self, table_id: str, after_version: int, feed: _EventsFeed | None
    ) -> ObservationOut:
        """Push the seat's observation at each decision after ``after_version``; the final
        observation once the table is over. One watch of the turn stream for the whole
        subscription, so each wait starts from the last read without reading again. The
        connection's credential is read on every pass: a renewed token serves at once."""
        ctx, caller = self.ctx, self.credential.caller
        self._pushed[table_id] = after_version
        async with ctx.waiters.watch(ctx.store.turns_key(table_id)) as watch:
            self._watches[table_id] = watch
            try:
                position = await _position(ctx, table_id, caller)
                recent = None
                first = after_version == -1  # a first subscription learns its seat at once
                while not self.closed:
                    caller = self.credential.caller
                    table, seat = position.table, position.seat
                    if table.record.status == "finished":
                        return await play_service.observation_of(
                            ctx, table_id, caller, position, recent)
                    pushed = self._pushed.get(table_id, after_version)
                    if first or (seat is not None and table.version > pushed
                                 and table.record.status == "playing"
                                 and seat in table.game.to_act(table.state)):
                        first = False
                        self._pushed[table_id] = max(pushed, table.version)
                        self._told[table_id] = table
                        await self._push(table_id, position, recent, feed)
                    # A seat waits for its next decision; a spectator for any change.
                    # Neither the history read with the table nor the parsed table is kept
                    # while the socket waits: told (what the seat acts on is in ``_told``),
                    # or stale once it acted, they would be held through whole turns.
                    recent = None
                    after = table.version if seat is None else self._pushed[table_id]
                    read, principal = table.snapshot, position.principal
                    del table, position
                    moved = None
                    while moved is None:
                        try:
                            moved, recent = await play_service.wait_from(
                                ctx, table_id, caller, read, seat, principal, wait=RECHECK_S,
                                after_version=after, watch=watch)
                        except ProblemError as error:
                            if error.code != "auth/expired" or self.credential.caller is caller:
                                raise
                            caller = self.credential.caller  # renewed while it waited: wait on
                            continue
                        if moved is None:  # the wait ran out: read anyway
                            watch.wake()
                    position = moved
            finally:
                self._pushed.pop(table_id, None)
                self._told.pop(table_id, None)
                if self._watches.get(table_id) is watch:
                    del self._watches[table_id]
        raise _Closing(None)

    async def _push(self, table_id: str, position: play_service.Position,
                    recent: RecentHistory | None, feed: _EventsFeed | None) -> None:
        """Tell the seat its decision (the events before it first, with a feed). Its own
        frame, so the observation is not held by the subscription while the seat thinks."""
        seen = await play_service.observation_of(
            self.ctx, table_id, self.credential.caller, position, recent)
        if feed is not None:
            await self._send_events(table_id, feed, up_to=seen.last_event_id)
        await self.send(ObservationMessage(table_id=table_id, observation=seen))

    async def _follow_events(self, table_id: str, feed: _EventsFeed) -> None:
        async with self.ctx.waiters.watch(self.ctx.store.events_key(table_id)) as watch:
            while not self.closed:
                page = await self._send_events(table_id, feed)
                if page.events:
                    continue
                if page.status == "finished":
                    return
                await watch.changed(RECHECK_S)

    async def _send_events(self, table_id: str, feed: _EventsFeed, *,
                           up_to: int | None = None) -> EventsPage:
        """Send the events after the feed's cursor and move it past them; with ``up_to``,
        only while the cursor is below it (a decision about to be pushed sends what came
        before it first, whichever of the two tasks gets there). The feed's lock keeps the
        two from sending an event twice or out of order."""
        async with feed.lock:
            while True:
                page = await events_service.poll_events(
                    self.ctx, table_id, self.credential.caller, after=feed.cursor, wait=0)
                if page.events:
                    await self.send(EventsMessage(table_id=table_id, events=page.events,
                                                  last_id=page.last_id))
                feed.cursor = page.last_id
                if up_to is None or feed.cursor >= up_to or not page.events:
                    return page

    async def _follow_assignments(self, after: str) -> None:
        while not self.closed:
            credential = self.credential
            try:
                page = await tournaments_service.assignments(
                    self.ctx, credential.caller, after=after,
                    wait=self.ctx.settings.long_poll_max_wait_s)
            except ProblemError as error:
                _close_if_token_failed(error)
                await self.send_problem(error)
                return
            if page.assignments:
                await self.send(AssignmentsMessage(assignments=page.assignments,
                                                   last_id=page.last_id))
            after = page.last_id


def _ref_of(text: str) -> str | None:
    """The ``ref`` of a refused message, when it has a usable one (to answer it by).
    Any text at all may come here: ``json.loads`` recurses per level of nesting, so a
    message nested deeper than the interpreter's limit raises ``RecursionError``."""
    with contextlib.suppress(ValueError, RecursionError):
        sent = json.loads(text)
        if isinstance(sent, dict) and isinstance(sent.get("ref"), str) and sent["ref"]:
            return str(sent["ref"])[:200]
    return None


@dataclass
class _EventsFeed:
    """A subscription's events: the id of the last one sent, and the lock both of its
    senders (its events task, and its decisions task before a push) take."""

    cursor: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass(frozen=True)
class _Credential:
    """The connection's token, verified and not revoked when it came."""

    principal: Principal
    caller: PendingRevocation
    """The same caller, for the service functions that ask its revocation with their read."""
    expires_at: float

    def welcome(self) -> WelcomeMessage:
        return WelcomeMessage(agent_id=self.principal.agent_id, expires_at=self.expires_at)


async def _position(ctx: TableContext, table_id: str,
                    caller: PendingRevocation) -> play_service.Position:
    """The caller's position at a first read of the table (its read not kept past it)."""
    loaded, principal = await actions_service.read_visible(ctx, table_id, caller)
    return play_service.Position(loaded, loaded.record.seat_for(principal), principal)


async def _authenticate(websocket: WebSocket, token: str) -> _Credential:
    """The credential of ``token``, its revocation asked now.

    :raises ProblemError: 401 ``auth/...``.
    """
    state = websocket.app.state
    tokens: TokenService = state.tokens
    verified = await tokens.authenticate(token, table_context(websocket.app).agents.is_revoked)
    caller = PendingRevocation.of(verified, state.keys)
    return _Credential(verified.principal, caller, float(verified.expires_at))


async def _first_token(websocket: WebSocket) -> str:
    """The bearer token of the upgrade, else of the first message.

    :raises _Closing: without a token in time, or when the first message is not ``auth``.
    """
    header = websocket.headers.get("authorization")
    if header:
        scheme, token = get_authorization_scheme_param(header)
        if scheme.lower() != "bearer" or not token:
            raise _Closing(CLOSE_AUTH_FAILED, "auth/invalid")
        return token
    try:
        async with asyncio.timeout(AUTH_TIMEOUT_S):
            text = await _next_text(websocket)
    except TimeoutError:
        raise _Closing(CLOSE_AUTH_TIMEOUT, "auth/missing") from None
    except (WebSocketDisconnect, RuntimeError):
        raise _Closing(None) from None
    if text is None:  # a binary frame: not an `auth` message either
        raise _Closing(CLOSE_PROTOCOL, "request/invalid")
    try:
        message = _CLIENT_MESSAGE.validate_json(text)
    except ValidationError:
        message = None
    if not isinstance(message, AuthMessage):
        raise _Closing(CLOSE_PROTOCOL, "request/invalid")
    return message.token


async def _next_text(websocket: WebSocket) -> str | None:
    """The next message's text, or ``None`` for a binary frame (the protocol is JSON text),
    read as ASGI delivers it. :raises WebSocketDisconnect: the peer has gone."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    text = message.get("text")
    return text if isinstance(text, str) else None


async def _close(websocket: WebSocket, closing: _Closing) -> None:
    if closing.code is not None and websocket.client_state == WebSocketState.CONNECTED:
        with contextlib.suppress(Exception):  # the peer may be gone meanwhile
            await websocket.close(closing.code, closing.reason)


async def socket(websocket: WebSocket) -> None:
    """``/v1/ws``: authenticate, then serve the session (see the module docstring)."""
    await websocket.accept()
    try:
        if getattr(websocket.app.state, "redis", None) is None:
            raise _Closing(CLOSE_UNAVAILABLE, "server/unavailable")
        try:
            credential = await _authenticate(websocket, await _first_token(websocket))
        except ProblemError as error:
            raise _Closing(CLOSE_AUTH_FAILED, error.code) from None
        except REDIS_UNAVAILABLE:
            raise _Closing(CLOSE_UNAVAILABLE, "server/unavailable") from None
        session = _Session(websocket, table_context(websocket.app), credential)
        await session.send(credential.welcome())
    except _Closing as closing:
        await _close(websocket, closing)
        return
    await session.run()


def socket_options() -> dict[str, Any]:
    """uvicorn's WebSocket settings for ``/v1/ws``: its sans-I/O protocol on the
    ``websockets`` library (uvicorn's older ``websockets`` one runs on that library's
    deprecated legacy API), no permessage-deflate (compressing each observation costs more
    CPU than its bytes save), a ping every 20 s that closes a peer silent for 20 s more,
    and :data:`MAX_MESSAGE_BYTES` per message."""
    return {
        "ws": "websockets-sansio",
        "ws_per_message_deflate": False,
        "ws_ping_interval": 20.0,
        "ws_ping_timeout": 20.0,
        "ws_max_size": MAX_MESSAGE_BYTES,
    }
