"""Due work: turn clocks that ran out, house bots to move, tournaments to advance,
rated tables to put on their ladder.

Each kind waits in a leased index in Redis (:mod:`gateway.store.leases`), scored by
when it is due. :func:`drive_due` is the one loop they share: a worker claims the
members due now for a lease, handles them concurrently, and releases each to be
looked at again when its handler says. A member whose worker died is taken over
by another once its lease ends; a member whose handler failed is looked at again
soon, and the failure is logged by its type only (an engine's or a bot's message
may name a hidden card, and logs are read by people who also play).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Literal, TypeVar

from gateway.services.context import TableContext

__all__ = ["LEASE_S", "RETRY_S", "drive_due", "drive_tables"]

LEASE_S = 10.0
"""How long a claimed member is left to its worker before another may take it over
(unless its loop names another lease)."""

RETRY_S = 1.0
"""After an unexpected error, a due member is looked at again this much later."""

log = logging.getLogger(__name__)

M = TypeVar("M")


async def drive_due(
    ctx: TableContext, what: str, handle: Callable[[TableContext, M], Awaitable[float | None]],
    claim: Callable[[float, float], Awaitable[list[M]]],
    release: Callable[[M, float, float | None], Awaitable[object]], *, lease_s: float = LEASE_S,
) -> int:
    """Claim the due members of a leased index for ``lease_s`` and ``handle`` them
    concurrently, each released to be looked at again when ``handle`` says (``None``: no
    need); returns how many were claimed. ``what`` names a member in the log line."""
    now = ctx.now()
    lease_end = now + lease_s
    claimed = await claim(now, lease_end)

    async def drive(member: M) -> None:
        try:
            next_due = await handle(ctx, member)
        except Exception as error:
            log.error("%s %s failed: %s", what, member, type(error).__name__)
            next_due = ctx.now() + RETRY_S
        await release(member, lease_end, next_due)

    await asyncio.gather(*(drive(member) for member in claimed))
    return len(claimed)


async def drive_tables(
    ctx: TableContext, queue: Literal["clock", "bots"], what: str,
    handle: Callable[[TableContext, str], Awaitable[float | None]],
) -> int:
    """:func:`drive_due` over the tables due in one of the table store's queues."""
    return await drive_due(
        ctx, what, handle,
        lambda now, lease_end: ctx.store.claim(queue, now, lease_end),
        lambda table_id, lease_end, next_due: ctx.store.release(queue, table_id, lease_end, next_due))
