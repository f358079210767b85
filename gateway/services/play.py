"""A seat's decisions: the held observation, and one exchange per decision.

:func:`observe` answers what a seat (or a spectator) sees, held with ``wait`` until
it is worth sending; :func:`play` applies a seat's action and answers with its
observation at its next decision point. Both wait through :func:`hold`, which
holds no Redis connection while it waits (:mod:`gateway.services.waiters`). The
bot socket (:mod:`gateway.routes.ws`) and MCP call the same functions.
"""

from __future__ import annotations

import contextlib
import time
from typing import NamedTuple

from agents.wire.tables import ActionRequest, ActionResult, ObservationOut, TableOut
from gateway.principal import Principal
from gateway.security import PendingRevocation
from gateway.services.access import require_visible
from gateway.services.actions import Applied, parse_table, read_visible, submit
from gateway.services.context import TableContext
from gateway.services.loaded_table import LoadedTable
from gateway.services.observations import (
    FIRST_READ_EVENTS,
    LOG_TAIL,
    RECENT_EVENTS,
    RECENT_LOG_ENTRIES,
    SinceLastMove,
    SpectatorReason,
    last_move,
    observation,
    reaches,
    since_last_move,
)
from gateway.services.waiters import Watch
from gateway.store.tables import RecentHistory, TableSnapshot, TurnEntry

__all__ = [
    "Position",
    "hold",
    "observation_after",
    "observation_of",
    "observe",
    "play",
    "wait_from",
    "with_first_decision",
]


class Position(NamedTuple):
    """A caller's place at a table as of one read (or write) of it."""

    table: LoadedTable
    seat: int | None
    """``None``: a spectator."""
    principal: Principal | None


def _worth_answering(loaded: LoadedTable, seat: int | None, after_version: int) -> bool:
    """Whether a held observation should answer now (see :func:`hold`)."""
    record = loaded.record
    if record.status == "finished":
        return True
    if loaded.version <= after_version:
        return False
    return seat is None or (record.status == "playing" and seat in loaded.game.to_act(loaded.state))


def _still_not_to_act(turn: TurnEntry, read: TableSnapshot, seat: int) -> bool:
    """Whether the last turn entry shows, without parsing the table, that ``seat`` is
    still not to act: only when the entry is the table as read and names seats to act
    without ``seat``; nobody to act (the end) or not known (a join, a start) makes the
    waiter parse the table."""
    if (turn.seq, turn.version) != (read.seq, read.version) or not turn.to_act:
        return False
    return seat not in turn.to_act


async def observe(
    ctx: TableContext, table_id: str, caller: PendingRevocation | None, *, wait: float = 0.0
) -> ObservationOut:
    """What the caller's seat (or a spectator) sees, and the caller's legal actions.

    With ``wait`` the answer is held (:func:`hold`) until it is worth sending: a
    seated caller until it must act or the table ends, anyone else until the
    table changes. The caller's token revocation is asked with the first read.
    """
    loaded, principal = await read_visible(ctx, table_id, caller)
    seat = loaded.record.seat_for(principal)
    start = Position(loaded, seat, principal)
    after = loaded.version if seat is None else -1
    position, recent = await hold(ctx, table_id, caller, start, wait=wait, after_version=after)
    return await observation_of(ctx, table_id, caller, position, recent)


async def with_first_decision(
    ctx: TableContext, table: TableOut, caller: PendingRevocation, *, wait: float
) -> TableOut:
    """A create's or join's answer with, when ``wait`` is given and the caller sits
    there, the seat's observation held (:func:`observe`) until its first decision point,
    so an agent goes from its seat to its first action with no request between."""
    if wait <= 0 or table.your_seat is None:
        return table
    seen = await observe(ctx, table.id, caller, wait=wait)
    return table.model_copy(update={"observation": seen})


async def hold(
    ctx: TableContext, table_id: str, caller: PendingRevocation | None, start: Position, *,
    wait: float, after_version: int, watch: Watch | None = None,
) -> tuple[Position, RecentHistory | None]:
    """Wait from ``start`` (a read, or the table as a commit just wrote it) up to ``wait``
    seconds (capped by ``long_poll_max_wait_s`` and the token's life) until the table is
    worth answering: finished, or past ``after_version`` with the seat to act (any
    change, for a spectator). Returns the caller's position as of the last read, and
    the recent history read with it (when it was): ``start`` itself when nothing came.
    ``watch``: the caller's own watch of the table's turn stream, held since before it
    read ``start`` (a socket's subscription), so the wait starts by waiting, not by
    reading. The waiting is :func:`wait_from`'s."""
    loaded, seat, principal = start
    if caller is not None:
        caller.confirm_still_valid()
    if _worth_answering(loaded, seat, after_version):
        return start, None
    moved, recent = await wait_from(ctx, table_id, caller, loaded.snapshot, seat, principal,
                                    wait=wait, after_version=after_version, watch=watch)
    return (start if moved is None else moved), recent


async def wait_from(
    ctx: TableContext, table_id: str, caller: PendingRevocation | None, read: TableSnapshot,
    seat: int | None, principal: Principal | None, *, wait: float, after_version: int,
    watch: Watch | None = None,
) -> tuple[Position | None, RecentHistory | None]:
    """:func:`hold`'s wait, from a table not worth answering yet known only by its
    snapshot ``read``: ``None`` for the position when the wait ran out with nothing
    newer read. It holds no parsed table but the changes it parses, so a caller that
    waits a whole turn (a socket whose seat's partners think) need not hold one either.

    It reads, waits for a change, reads, holding no Redis connection while it waits
    (:mod:`gateway.services.waiters`). A spectator watches the event stream; a seat the
    turn stream, which has an entry only when who acts may have changed, so it wakes
    about once per turn, and an entry showing it still not to act needs no parse of the
    table; a wake from a commit of this worker brings the table it wrote, so it needs no
    read. Every read asks whether the token was revoked meanwhile (its mark is watched
    too) before anything it read is told, and the wait ends when the token expires.
    """
    held_s = min(wait, ctx.settings.long_poll_max_wait_s)
    if caller is not None:  # no longer than the token verifies, and not at all once it expired
        caller.confirm_still_valid()
        held_s = caller.held_s(held_s)
    if held_s < 0.001:
        return None, None
    give_up = time.monotonic() + held_s
    latest = read  # the newest read of the table, parsed or not
    loaded: LoadedTable | None = None  # the newest change parsed
    recent: tuple[TableSnapshot, RecentHistory] | None = None  # a read and its history
    asked = caller.revoked_key if caller is not None else None
    stream = ctx.store.events_key(table_id) if seat is None else ctx.store.turns_key(table_id)
    async with (ctx.waiters.watch(stream, asked) if watch is None
                else contextlib.nullcontext(watch)) as watching:
        after_wake = watch is not None  # a read after a wake usually answers: with history
        while True:  # (a new watch first reads what came before it began) wait, read
            if after_wake:
                remaining = give_up - time.monotonic()
                if remaining < 0.001:
                    break
                # The history of a read not worth answering is not held while it waits
                # (at thousands of waiting sockets, that is what the collector walks):
                # a wait that runs out has its answer read it again.
                recent = None
                if not await watching.changed(remaining, known=latest.version):
                    break
            changed = False
            written = watching.written if after_wake and seat is not None else None
            if written is not None and written.table.version > latest.version:
                # Woken by a commit of this worker, with the table it wrote: no read.
                latest, changed = written.table.snapshot, True
                recent = (latest, written.history)
            elif seat is None:  # a spectator: any change is worth answering
                revoked, woken, fresh = await ctx.store.events_then_table(
                    table_id, latest.seq, asked)
                if caller is not None:
                    caller.confirm(revoked)
                if fresh is None:
                    break
                if woken:
                    latest, changed = fresh, True
            else:  # a seat: only a change of who acts may be
                revoked, turns, fresh, history = await ctx.store.turns_then_table(
                    table_id, latest, asked,
                    history=(LOG_TAIL, FIRST_READ_EVENTS) if after_wake else None)
                if caller is not None:
                    caller.confirm(revoked)
                if fresh is None:
                    break
                if turns:
                    latest = fresh
                    recent = None if history is None else (fresh, history)
                    changed = not _still_not_to_act(turns[-1], fresh, seat)
            if changed:
                loaded = _visible(table_id, written.table if written is not None
                                  and latest is written.table.snapshot else latest, principal)
                if loaded.record.seat_for(principal) != seat:
                    break  # it left (or took) a seat of the open table: tell it now
                if _worth_answering(loaded, seat, after_version):
                    break
            after_wake = True
    if caller is not None:
        caller.confirm_still_valid()  # the token may have expired while it waited
    if loaded is None and latest is read:
        return None, None  # nothing newer came
    if loaded is None or latest is not loaded.snapshot:  # changes not parsed yet
        loaded = _visible(table_id, latest, principal)
    # The seat as of the read told, not as of the first: seats change until the start.
    position = Position(loaded, loaded.record.seat_for(principal), principal)
    return position, recent[1] if recent is not None and recent[0] is loaded.snapshot else None


async def observation_of(
    ctx: TableContext, table_id: str, caller: PendingRevocation | None, position: Position,
    recent: RecentHistory | None = None,
) -> ObservationOut:
    """The observation of ``position``, with what happened since the seat's last move
    (``recent``: the history read with the table, else read now)."""
    loaded, seat, _principal = position
    since = await _since_last_move(ctx, table_id, loaded, seat, recent)
    reason: SpectatorReason | None = None
    if seat is None:
        reason = "no_token" if caller is None else "not_seated"
    return observation(loaded, seat, since=since, spectator_reason=reason)


def observation_after(applied: Applied) -> ObservationOut:
    """The seat's observation of the table its action just wrote: built from the state
    the commit wrote, with no read; nothing happened since its move."""
    table = applied.table
    return observation(table, applied.seat, since=SinceLastMove(after=table.snapshot.seq, events=[]),
                       spectator_reason=None)


async def play(
    ctx: TableContext,
    table_id: str,
    caller: PendingRevocation,
    body: ActionRequest,
    idempotency_key: str | None,
    *,
    wait: float = 0.0,
) -> ActionResult:
    """One exchange per decision: apply the seat's action (:func:`submit`) and answer with
    its observation; with ``wait``, held (:func:`hold`) from the table as the action wrote
    it until the seat must decide again, the table ends or the wait runs out. ``version``
    and ``events`` stay the action's own (what came after is the observation's
    ``since_your_last_move``); a retry is answered from the table as it is then."""
    if wait <= 0:
        applied = await submit(ctx, table_id, caller, body, idempotency_key)
        position, recent = Position(applied.table, applied.seat, applied.principal), None
    else:  # watched from before the action, so its wait starts by waiting, not reading
        async with ctx.waiters.watch(ctx.store.turns_key(table_id), caller.revoked_key) as watch:
            applied = await submit(ctx, table_id, caller, body, idempotency_key, watch=watch)
            start = Position(applied.table, applied.seat, applied.principal)
            position, recent = await hold(ctx, table_id, caller, start, wait=wait,
                                          after_version=-1, watch=watch)
    if position.table is applied.table and not applied.retried:
        return applied.result(observation_after(applied))
    return applied.result(await observation_of(ctx, table_id, caller, position, recent))


async def _since_last_move(
    ctx: TableContext, table_id: str, loaded: LoadedTable, seat: int | None,
    recent: RecentHistory | None = None,
) -> SinceLastMove | None:
    """The events ``seat`` may see since its last move, read after the table: the log's
    last entries and the newest events in one lean round trip (usually enough; ``recent``:
    already read with the table), else the log further back and the events after the
    move; ``None`` for a spectator and before the start. Events newer than the observed
    table are left out. More than :data:`RECENT_EVENTS` since the move, or a move older
    than the log read, tell the newest events only."""
    if seat is None or loaded.record.status == "open":
        return None
    last = loaded.snapshot.seq
    log, events = recent if recent is not None else await ctx.store.recent_history(
        table_id, log_entries=LOG_TAIL, events=FIRST_READ_EVENTS)
    after = last_move(log, seat, whole_log=len(log) < LOG_TAIL)
    if after is not None and reaches(events, after):
        return since_last_move(events, seat, after=after, last_event_id=last)
    if after is None and len(log) == LOG_TAIL:
        log = await ctx.store.action_log(table_id, RECENT_LOG_ENTRIES)
        after = last_move(log, seat, whole_log=len(log) < RECENT_LOG_ENTRIES)
    if after is not None:
        # Just the events since the move: usually a handful, parsed and nothing more.
        events = await ctx.store.events_after(table_id, after, count=RECENT_EVENTS)
        if len(events) < RECENT_EVENTS or events[-1].seq >= last:
            return since_last_move(events, seat, after=after, last_event_id=last)
    events = (await ctx.store.recent_history(table_id, log_entries=1, events=RECENT_EVENTS)).events
    return since_last_move(events, seat, after=None, last_event_id=last)


def _visible(
    table_id: str, read: TableSnapshot | LoadedTable, principal: Principal | None
) -> LoadedTable:
    """A read of a table the caller was allowed to see (parsed, unless a commit of this
    worker parsed it already); 404 once it may no longer (it left a private table
    meanwhile)."""
    loaded = read if isinstance(read, LoadedTable) else parse_table(table_id, read)
    require_visible(loaded.record, principal)
    return loaded
