"""An agent's assignments: the tables it must play, held (long-poll) or as SSE."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

from gateway.principal import Principal
from gateway.schemas.tournaments import (
    AssignmentOut,
    AssignmentsPage,
)
from gateway.services.context import TableContext
from gateway.services.tournaments.state import (
    store_of,
)

__all__ = [
    "ASSIGNMENT_KEEPALIVE_S",
    "assignments",
    "stream_assignments",
]


ASSIGNMENT_KEEPALIVE_S = 15.0
"""Seconds between SSE keep-alive comments on the assignment stream."""


def _assignment_out(entry_id: str, body: Mapping[str, Any]) -> AssignmentOut:
    return AssignmentOut(id=entry_id, **body)


async def assignments(
    ctx: TableContext, principal: Principal, *, after: str, wait: float
) -> AssignmentsPage:
    """The caller's assignments after ``after``; with ``wait``, held until one comes
    (at most ``long_poll_max_wait_s``)."""
    wait = min(max(wait, 0.0), ctx.settings.long_poll_max_wait_s)
    block_ms = int(wait * 1000) if wait >= 0.001 else None
    entries = await store_of(ctx).assignments_after(principal.agent_id, after, block_ms=block_ms)
    shown = [_assignment_out(entry.id, entry.body) for entry in entries]
    return AssignmentsPage(assignments=shown, last_id=shown[-1].id if shown else after)


async def stream_assignments(
    ctx: TableContext, principal: Principal, *, after: str, until: float
) -> AsyncIterator[str]:
    """The caller's assignments as SSE frames (``id`` is the stream id); keep-alive comments
    every :data:`ASSIGNMENT_KEEPALIVE_S` seconds; closed at ``until`` (when the caller's
    token stops verifying: nothing is told to an expired token)."""
    cursor = after
    store = store_of(ctx)
    yield "retry: 1000\n\n"
    while True:
        remaining = until - time.time()
        if remaining <= 0:
            return
        block_s = min(ASSIGNMENT_KEEPALIVE_S, remaining)
        entries = await store.assignments_after(
            principal.agent_id, cursor, block_ms=max(1, int(block_s * 1000)))
        if time.time() >= until:
            return
        if not entries:
            yield ": keep-alive\n\n"
            continue
        for entry in entries:
            cursor = entry.id
            out = _assignment_out(entry.id, entry.body)
            yield f"id: {out.id}\nevent: {out.kind}\ndata: {out.model_dump_json()}\n\n"

