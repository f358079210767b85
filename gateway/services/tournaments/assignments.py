"""An agent's assignments: the tables it must play, held (long-poll) or as SSE."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator

from agents.wire.tournaments import (
    AssignmentOut,
    AssignmentsPage,
)
from gateway.principal import Principal
from gateway.security import auth_problem
from gateway.services.context import TableContext
from gateway.services.tournaments.state import store_of
from gateway.store.tournaments import TournamentStore

__all__ = [
    "ASSIGNMENT_KEEPALIVE_S",
    "assignments",
    "refuse_if_revoked",
    "stream_assignments",
]


ASSIGNMENT_KEEPALIVE_S = 15.0
"""Seconds between SSE keep-alive comments on the assignment stream."""


async def assignments(
    ctx: TableContext, principal: Principal, *, after: str, wait: float,
    revoked_key: str,
) -> AssignmentsPage:
    """The caller's assignments after ``after``; with ``wait``, held until one comes
    (at most ``long_poll_max_wait_s``): read, wait on the worker's reader, read again.

    ``revoked_key`` (the caller's token's revocation key) is watched too, so a
    revocation during the wait ends it at once with 401 ``auth/revoked``.
    """
    store = store_of(ctx)
    wait = min(max(wait, 0.0), ctx.settings.long_poll_max_wait_s)
    give_up = time.monotonic() + wait
    watching = (ctx.waiters.watch(store.assignments_key(principal.agent_id), revoked_key)
                if wait >= 0.001 else contextlib.nullcontext(None))
    async with watching as watch:
        while True:
            entries = await store.assignments_after(principal.agent_id, after)
            if entries:
                shown = [AssignmentOut(id=entry.id, **entry.body) for entry in entries]
                return AssignmentsPage(assignments=shown, last_id=shown[-1].id)
            remaining = give_up - time.monotonic()
            if watch is None or remaining < 0.001 or not await watch.changed(remaining):
                return AssignmentsPage(assignments=[], last_id=after)
            await refuse_if_revoked(store, revoked_key)


async def stream_assignments(
    ctx: TableContext, principal: Principal, *, after: str, until: float,
    revoked_key: str,
) -> AsyncIterator[str]:
    """The caller's assignments as SSE frames (``id`` is the stream id); keep-alive comments
    every :data:`ASSIGNMENT_KEEPALIVE_S` seconds; closed at ``until`` (when the caller's
    token stops verifying: nothing is told to an expired token) or when the token is
    revoked (``revoked_key`` is watched, so at once)."""
    cursor = after
    store = store_of(ctx)
    yield "retry: 1000\n\n"
    async with ctx.waiters.watch(store.assignments_key(principal.agent_id), revoked_key) as watch:
        while True:
            if time.time() >= until or await store.key_exists(revoked_key):
                return
            entries = await store.assignments_after(principal.agent_id, cursor)
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


async def refuse_if_revoked(store: TournamentStore, revoked_key: str) -> None:
    if await store.key_exists(revoked_key):
        raise auth_problem("auth/revoked", "This token was revoked; get a new one.")
