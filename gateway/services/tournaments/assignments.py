"""An agent's assignments: the tables it must play, held (long-poll) or as SSE."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator

from agents.wire.tournaments import (
    AssignmentOut,
    AssignmentsPage,
)
from gateway.security import PendingRevocation
from gateway.services.context import TableContext
from gateway.services.tournaments.state import store_of

__all__ = ["ASSIGNMENT_KEEPALIVE_S", "assignments", "stream_assignments"]


ASSIGNMENT_KEEPALIVE_S = 15.0
"""Seconds between SSE keep-alive comments on the assignment stream."""


async def assignments(
    ctx: TableContext, caller: PendingRevocation, *, after: str, wait: float
) -> AssignmentsPage:
    """The caller's assignments after ``after``; with ``wait``, held until one comes (at
    most ``long_poll_max_wait_s``, and no longer than the token verifies): read, wait on
    the worker's reader, read again. The token's revocation mark is watched too, so a
    revocation during the wait ends it at once with 401 ``auth/revoked``.
    """
    caller.confirm_still_valid()
    store = store_of(ctx)
    wait = caller.held_s(min(max(wait, 0.0), ctx.settings.long_poll_max_wait_s))
    give_up = time.monotonic() + wait
    watching = (ctx.waiters.watch(store.assignments_key(caller.agent_id), caller.revoked_key)
                if wait >= 0.001 else contextlib.nullcontext(None))
    async with watching as watch:
        while True:
            entries = await store.assignments_after(caller.agent_id, after)
            if entries:
                shown = [AssignmentOut(id=entry.id, **entry.body) for entry in entries]
                return AssignmentsPage(assignments=shown, last_id=shown[-1].id)
            remaining = give_up - time.monotonic()
            if watch is None or remaining < 0.001 or not await watch.changed(remaining):
                return AssignmentsPage(assignments=[], last_id=after)
            caller.confirm(await store.key_exists(caller.revoked_key))


async def stream_assignments(
    ctx: TableContext, caller: PendingRevocation, *, after: str, until: float
) -> AsyncIterator[str]:
    """The caller's assignments as SSE frames (``id`` is the stream id); keep-alive comments
    every :data:`ASSIGNMENT_KEEPALIVE_S` seconds; closed at ``until``, when the token stops
    verifying (nothing is told to an expired token) or when it is revoked (its mark is
    watched, so at once)."""
    cursor = after
    store = store_of(ctx)
    until = min(until, caller.valid_until)
    yield "retry: 1000\n\n"
    async with ctx.waiters.watch(store.assignments_key(caller.agent_id),
                                 caller.revoked_key) as watch:
        while True:
            if time.time() >= until or await store.key_exists(caller.revoked_key):
                return
            entries = await store.assignments_after(caller.agent_id, cursor)
            for entry in entries:
                cursor = entry.id
                out = AssignmentOut(id=entry.id, **entry.body)
                yield f"id: {out.id}\nevent: {out.kind}\ndata: {out.model_dump_json()}\n\n"
            if entries:
                continue
            remaining = until - time.time()
            if remaining <= 0:
                return
            if not await watch.changed(min(ASSIGNMENT_KEEPALIVE_S, remaining)):
                yield ": keep-alive\n\n"
