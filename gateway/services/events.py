"""Reading a table's events: long-poll pages and a Server-Sent Events stream.

Both read the same Redis stream with ``XREAD`` from an event id, so a reader
that reconnects with ``after=<id>`` (or ``Last-Event-ID: <id>``) gets every
later event exactly once, in order. Each reader gets only the events whose
audience includes its seat; spectators get public events only.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator

from gateway.principal import Principal
from gateway.schemas.tables import EventsPage, TableStatus
from gateway.services.access import may_see, require_visible
from gateway.services.actions import event_out, load_table
from gateway.services.context import TableContext

__all__ = ["MAX_EVENT_ID", "SSE_KEEPALIVE_S", "parse_event_id", "poll_events", "reader_seat", "stream_events"]

MAX_EVENT_ID = 2**63 - 1
"""The largest event id a reader may resume after. Event ids are the first part of
Redis stream ids (at most 2**64 - 1); a larger cursor made Redis refuse the read
(a 500), so requests are held to the signed 64-bit range every client can send."""

SSE_KEEPALIVE_S = 15.0
"""A comment line this often keeps proxies from closing an idle stream."""

_FINISHED = "table.finished"
_SEAT_LEFT = "seat.left"
_END = "event: end\ndata: {}\n\n"


def parse_event_id(raw: str) -> int | None:
    """An event id sent as text (``Last-Event-ID``); None unless it is ASCII digits
    within :data:`MAX_EVENT_ID` (``str.isdigit`` alone also accepts ``²``, which
    ``int`` refuses)."""
    if not raw.isascii() or not raw.isdigit() or len(raw) > len(str(MAX_EVENT_ID)):
        return None
    event_id = int(raw)
    return event_id if event_id <= MAX_EVENT_ID else None


async def reader_seat(
    ctx: TableContext, table_id: str, principal: Principal | None
) -> tuple[int | None, TableStatus, int, bool]:
    """The caller's seat (``None``: spectator), the table's status, last event id and
    whether it is private.

    :raises gateway.errors.ProblemError: ``table/not_found`` also for a private
        table the caller may not see.
    """
    loaded = await load_table(ctx, table_id)
    require_visible(loaded.record, principal)
    seat = loaded.record.seat_of(principal.agent_id) if principal else None
    return seat, loaded.record.status, loaded.snapshot.seq, loaded.record.private


async def poll_events(
    ctx: TableContext, table_id: str, principal: Principal | None, *, after: int, wait: float
) -> EventsPage:
    """Events after ``after`` that the caller may see, waiting up to ``wait`` seconds for one.

    ``last_id`` moves past events the caller may not see too, so the next
    poll does not wait on them again.
    """
    seat, status, last, _private = await reader_seat(ctx, table_id, principal)
    if status == "finished" and after >= last:
        # Nothing will ever follow: answer now instead of holding the request.
        return EventsPage(events=[], last_id=max(after, last), status=status)
    wait = min(max(wait, 0.0), ctx.settings.long_poll_max_wait_s)
    give_up = time.monotonic() + wait
    cursor = after
    while True:
        remaining = give_up - time.monotonic()
        block_ms = int(remaining * 1000) if remaining >= 0.001 else None
        events = await ctx.store.events_after(table_id, cursor, block_ms=block_ms)
        if events:
            cursor = events[-1].seq
            if any(event.body["kind"] == _FINISHED for event in events):
                status = "finished"
            elif status == "open" and any(e.body["kind"] == "table.started" for e in events):
                status = "playing"
            visible = [event_out(e.seq, e.audience, e.body) for e in events if e.visible_to(seat)]
            if visible:
                return EventsPage(events=visible, last_id=cursor, status=status)
        if block_ms is None or time.monotonic() >= give_up:
            return EventsPage(events=[], last_id=cursor, status=status)


async def stream_events(
    ctx: TableContext,
    table_id: str,
    principal: Principal | None,
    seat: int | None,
    *,
    private: bool,
    after: int,
    finished_at: int | None,
) -> AsyncIterator[str]:
    """The table's events for ``seat`` as SSE frames (``id`` is the event id).

    The stream ends after the ``table.finished`` event (or at once when the
    table is over and the reader has seen everything: ``finished_at`` is the
    last event id of a finished table). On a private table it also ends when
    the reader may no longer see it (it left the open table): a seat change
    makes the stream check again before it sends anything that follows.
    """
    cursor = after
    yield "retry: 1000\n\n"
    if finished_at is not None and cursor >= finished_at:
        yield _END
        return
    while True:
        events = await ctx.store.events_after(table_id, cursor, block_ms=int(SSE_KEEPALIVE_S * 1000))
        if not events:
            yield ": keep-alive\n\n"
            continue
        for event in events:
            cursor = event.seq
            if event.visible_to(seat):
                out = event_out(event.seq, event.audience, event.body)
                yield f"id: {out.id}\nevent: {out.kind}\ndata: {json.dumps(out.model_dump(mode='json'))}\n\n"
            if event.body["kind"] == _FINISHED:
                yield _END
                return
            if private and event.body["kind"] == _SEAT_LEFT:
                loaded = await load_table(ctx, table_id)
                if not may_see(loaded.record, principal):
                    yield _END  # it left: nothing more of this table is its business
                    return

