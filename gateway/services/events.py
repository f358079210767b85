"""Reading a table's events: long-poll pages and a Server-Sent Events stream.

Both read the same Redis stream with ``XREAD`` from an event id, so a reader
that reconnects with ``after=<id>`` (or ``Last-Event-ID: <id>``) gets every
later event exactly once, in order. Each reader gets only the events whose
audience includes its seat; spectators get public events only.

A reader with a token is held to it for as long as it reads, not only when it
connects: every read asks, in the same round trip, whether the token was
revoked meanwhile, and a stream closes when the token expires. A stream can
stay open for hours, and a seat's events tell its hidden cards; a token
revoked because it leaked (or by a secret rotation) must stop them at once.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from gateway.errors import ProblemError
from gateway.principal import Principal
from gateway.schemas.tables import EventsPage, TableStatus
from gateway.security import VerifiedToken, auth_problem
from gateway.services.access import may_see, require_visible
from gateway.services.actions import event_out, load_table
from gateway.services.context import TableContext
from gateway.store.auth import revoked_key
from gateway.store.tables import StoredEvent

__all__ = [
    "MAX_EVENT_ID",
    "SSE_KEEPALIVE_S",
    "Reader",
    "parse_event_id",
    "poll_events",
    "reader_seat",
    "stream_events",
]

MAX_EVENT_ID = 2**63 - 1
"""The largest event id a reader may resume after. Event ids are the first part of
Redis stream ids (at most 2**64 - 1); a larger cursor made Redis refuse the read
(a 500), so requests are held to the signed 64-bit range every client can send."""

SSE_KEEPALIVE_S = 15.0
"""A comment line this often keeps proxies from closing an idle stream."""

_FINISHED = "table.finished"
_SEAT_LEFT = "seat.left"
_END = "event: end\ndata: {}\n\n"
_TOKEN_ENDED = ": closed: the token expired or was revoked; reconnect with a valid one\n\n"


@dataclass(frozen=True)
class Reader:
    """Who reads a table's events: the verified token's principal (``None``: anonymous),
    the Redis key its revocation would set, and when the token stops verifying."""

    principal: Principal | None
    revoked_key: str | None = None
    valid_until: float = float("inf")

    @classmethod
    def of(cls, ctx: TableContext, token: VerifiedToken | None) -> Reader:
        """The reader of a request made with ``token`` (``None``: without one)."""
        if token is None:
            return cls(None)
        return cls(token.principal, revoked_key(ctx.store.keys, token.principal.token_id),
                   token.expires_at + ctx.settings.jwt_leeway_s)

    async def read(
        self, ctx: TableContext, table_id: str, after: int, block_ms: int | None
    ) -> tuple[bool, list[StoredEvent]]:
        """Events after ``after`` (waiting up to ``block_ms`` for one), and whether the
        token still holds once they came: when it does not, the events must not be told."""
        if self.revoked_key is None:
            return True, await ctx.store.events_after(table_id, after, block_ms=block_ms)
        if block_ms is not None:
            block_ms = max(1, min(block_ms, int((self.valid_until - time.time()) * 1000)))
        revoked, events = await ctx.store.checked_events_after(
            table_id, after, block_ms=block_ms, revoked_key=self.revoked_key)
        return not revoked and time.time() < self.valid_until, events


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
    ctx: TableContext, table_id: str, reader: Reader, *, after: int, wait: float
) -> EventsPage:
    """Events after ``after`` that the caller may see, waiting up to ``wait`` seconds for one.

    ``last_id`` moves past events the caller may not see too, so the next
    poll does not wait on them again. A token revoked (or expired) while the
    poll waits is refused with 401 instead of the events.
    """
    seat, status, last, _private = await reader_seat(ctx, table_id, reader.principal)
    if status == "finished" and after >= last:
        # Nothing will ever follow: answer now instead of holding the request.
        return EventsPage(events=[], last_id=max(after, last), status=status)
    wait = min(max(wait, 0.0), ctx.settings.long_poll_max_wait_s)
    give_up = time.monotonic() + wait
    cursor = after
    while True:
        remaining = give_up - time.monotonic()
        block_ms = int(remaining * 1000) if remaining >= 0.001 else None
        holds, events = await reader.read(ctx, table_id, cursor, block_ms)
        if not holds:
            raise _token_ended(reader)
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
    reader: Reader,
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
    makes the stream check again before it sends anything that follows. It
    closes, without ``end``, once the reader's token was revoked or expired:
    a client reconnects with a valid token and ``Last-Event-ID``.
    """
    cursor = after
    yield "retry: 1000\n\n"
    if finished_at is not None and cursor >= finished_at:
        yield _END
        return
    while True:
        holds, events = await reader.read(ctx, table_id, cursor, int(SSE_KEEPALIVE_S * 1000))
        if not holds:
            yield _TOKEN_ENDED
            return
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
                if not may_see(loaded.record, reader.principal):
                    yield _END  # it left: nothing more of this table is its business
                    return



def _token_ended(reader: Reader) -> ProblemError:
    if time.time() >= reader.valid_until:
        return auth_problem("auth/expired", "The token expired while the request waited.")
    return auth_problem("auth/revoked", "The token was revoked; get a new one.")
