"""Reading a table's events: long-poll pages and a Server-Sent Events stream.

Both read the same Redis stream with ``XREAD`` from an event id, so a reader
that reconnects with ``after=<id>`` (or ``Last-Event-ID: <id>``) gets every
later event exactly once, in order. Each reader gets only the events whose
audience includes its seat; spectators get public events only. Both wait as
:mod:`gateway.services.waiters` tells: read, wait for a change, read.

A reader with a token is held to it for as long as it reads, not only when it
connects: every read asks, in the same round trip, whether the token was
revoked meanwhile, a revocation wakes the wait at once, and a stream closes
when the token expires. A stream can
stay open for hours, and a seat's events tell its hidden cards; a token
revoked because it leaked (or by a secret rotation) must stop them at once.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator

from agents.wire.tables import EventsPage
from gateway.principal import Principal
from gateway.security import PendingRevocation
from gateway.services.access import may_see
from gateway.services.actions import load_table, read_visible
from gateway.services.context import TableContext
from gateway.services.observations import event_out
from gateway.store.tables import StoredEvent

__all__ = [
    "MAX_EVENT_ID",
    "SSE_KEEPALIVE_S",
    "poll_events",
    "stream_events",
]

MAX_EVENT_ID = 2**63 - 1
"""The largest event id a reader may resume after. Event ids are the first part of
Redis stream ids (at most 2**64 - 1, and Redis refuses a read after a larger one):
requests are held to the signed 64-bit range every client can send."""

SSE_KEEPALIVE_S = 15.0
"""A comment line this often keeps proxies from closing an idle stream."""

_FINISHED = "table.finished"
_SEAT_JOINED = "seat.joined"
_SEAT_LEFT = "seat.left"
_END = "event: end\ndata: {}\n\n"
_TOKEN_ENDED = ": closed: the token expired or was revoked; reconnect with a valid one\n\n"


def _held_s(caller: PendingRevocation | None, wanted_s: float) -> float:
    return wanted_s if caller is None else caller.held_s(wanted_s)


def seat_after(event: StoredEvent, seat: int | None, principal: Principal | None) -> int | None:
    """The reader's seat once ``event`` happened: a reader that left its seat of an open
    table (which another agent may take) reads on as a spectator, and one that took a
    seat reads that seat's events. A reader's seat is fixed only once the table starts;
    a stream or a held poll may have been opened before."""
    if principal is None or event.body["kind"] not in (_SEAT_JOINED, _SEAT_LEFT):
        return seat
    data = event.body.get("data", {})
    if data.get("agent_id") != principal.agent_id:
        return seat
    return int(data["seat"]) if event.body["kind"] == _SEAT_JOINED else None


async def poll_events(
    ctx: TableContext, table_id: str, caller: PendingRevocation | None, *, after: int,
    wait: float,
) -> EventsPage:
    """Events after ``after`` that the caller may see, waiting up to ``wait`` seconds for one.

    ``last_id`` moves past events the caller may not see too, so the next
    poll does not wait on them again. A token revoked (or expired) while the
    poll waits is refused with 401 instead of the events.
    """
    loaded, principal = await read_visible(ctx, table_id, caller)
    seat, status = loaded.record.seat_for(principal), loaded.record.status
    last = loaded.snapshot.seq
    if status == "finished" and after >= last:
        # Nothing will ever follow: answer now instead of holding the request.
        return EventsPage(events=[], last_id=max(after, last), status=status)
    wait = min(max(wait, 0.0), ctx.settings.long_poll_max_wait_s)
    give_up = time.monotonic() + _held_s(caller, wait)
    cursor = after
    revoked_key = caller.revoked_key if caller is not None else None
    watching = (ctx.waiters.watch(ctx.store.events_key(table_id), revoked_key) if wait > 0
                else contextlib.nullcontext(None))  # a poll that does not wait watches nothing
    async with watching as watch:
        while True:  # read, then wait for a change and read again
            revoked, events = await ctx.store.checked_events_after(table_id, cursor, revoked_key)
            if caller is not None:
                caller.confirm(revoked)
                caller.confirm_still_valid()
            if events:
                cursor = events[-1].seq
                if any(event.body["kind"] == _FINISHED for event in events):
                    status = "finished"
                elif status == "open" and any(e.body["kind"] == "table.started" for e in events):
                    status = "playing"
                visible = []
                for event in events:
                    seat = seat_after(event, seat, principal)
                    if event.visible_to(seat):
                        visible.append(event_out(event.seq, event.audience, event.body))
                if visible:
                    return EventsPage(events=visible, last_id=cursor, status=status)
            remaining = give_up - time.monotonic()
            if watch is None or remaining < 0.001 or not await watch.changed(remaining):
                return EventsPage(events=[], last_id=cursor, status=status)


async def stream_events(
    ctx: TableContext, table_id: str, caller: PendingRevocation | None, *, after: int
) -> AsyncIterator[str]:
    """The table's events after ``after`` for the caller's seat as SSE frames (``id`` is
    the event id). The caller and the table are checked (401, 404) before the stream
    starts, by one read.

    The stream ends after the ``table.finished`` event (or at once when the table is
    over and the reader has seen everything). On a private table it also ends when the
    reader may no longer see it (it left the open table): a seat change makes the stream
    check again before it sends anything that follows. On any table the reader's seat
    follows its own joins and leaves (:func:`seat_after`): one that left reads on as a
    spectator, never the events of whoever takes the seat. It closes, without ``end``,
    once the reader's token was revoked or expired: a client reconnects with a valid
    token and ``Last-Event-ID``.
    """
    loaded, principal = await read_visible(ctx, table_id, caller)
    record = loaded.record
    seen_all = record.status == "finished" and after >= loaded.snapshot.seq
    # The stream keeps what it needs of the read, not the parsed table, for its whole life.
    return _frames(ctx, table_id, caller, principal, record.seat_for(principal),
                   private=record.private, cursor=after, seen_all=seen_all)


async def _frames(
    ctx: TableContext, table_id: str, caller: PendingRevocation | None,
    principal: Principal | None, seat: int | None, *, private: bool, cursor: int,
    seen_all: bool,
) -> AsyncIterator[str]:
    yield "retry: 1000\n\n"
    if seen_all:
        yield _END
        return
    revoked_key = caller.revoked_key if caller is not None else None
    async with ctx.waiters.watch(ctx.store.events_key(table_id), revoked_key) as watch:
        while True:  # read, then wait for a change (or the keep-alive) and read again
            revoked, events = await ctx.store.checked_events_after(table_id, cursor, revoked_key)
            if caller is not None and (revoked or caller.expired()):
                yield _TOKEN_ENDED
                return
            if not events:
                if not await watch.changed(_held_s(caller, SSE_KEEPALIVE_S)):
                    yield ": keep-alive\n\n"
                continue
            for event in events:
                cursor = event.seq
                seat = seat_after(event, seat, principal)
                if event.visible_to(seat):
                    out = event_out(event.seq, event.audience, event.body)
                    yield f"id: {out.id}\nevent: {out.kind}\ndata: {json.dumps(out.model_dump(mode='json'))}\n\n"
                if event.body["kind"] == _FINISHED:
                    yield _END
                    return
                if (private and event.body["kind"] == _SEAT_LEFT
                        and not await _may_still_see(ctx, table_id, principal)):
                    yield _END  # it left: nothing more of this table is its business
                    return


async def _may_still_see(ctx: TableContext, table_id: str, principal: Principal | None) -> bool:
    """Whether the reader may still see the private table (a read of its own, so the
    stream does not keep the table for the rest of its life)."""
    return may_see((await load_table(ctx, table_id)).record, principal)
