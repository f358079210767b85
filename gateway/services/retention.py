"""Retention: what the gateway keeps, and for how long.

* A finished table's keys (hash, events, log, turns) expire ``finished_table_ttl_s``
  after its end, set by the very commit that ends it (:func:`gateway.services.actions.retention`);
  its cached replay expires as long after its first read.
* Idempotency records (a fingerprint and a version, ``IdempotencyRecord``) expire after a day;
  create claims, rate windows and challenges carry their own TTLs.
* The listing index cannot expire member by member, so this sweeper drops listed ids
  whose table is gone: the oldest entries, a batch per round.
* Tables that never finish (an open table nobody joins) are kept: they count against
  their creator's cap, who may close them.
"""

from __future__ import annotations

from gateway.services.context import TableContext

__all__ = ["SWEEP_BATCH", "prune_expired", "prune_listing"]

SWEEP_BATCH = 500
"""Listed ids looked at per round (the oldest first)."""


async def prune_listing(ctx: TableContext) -> int:
    """Drop the listed ids, created before the retention window, whose table has expired;
    returns how many went. A table created that long ago and still there (a long game)
    stays listed."""
    before = ctx.now() - ctx.settings.finished_table_ttl_s
    ids = await ctx.store.listed_before(before, SWEEP_BATCH)
    if not ids:
        return 0
    present = {raw["id"] for raw in await ctx.store.load_records(ids)}
    return await ctx.store.prune_unwritten([i for i in ids if i not in present], before)


async def prune_expired(ctx: TableContext) -> None:
    while await prune_listing(ctx) >= SWEEP_BATCH:
        pass
