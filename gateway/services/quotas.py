"""The cap on unfinished tables per agent (``max_active_tables_per_agent``).

A table counts against the agent that created it from its creation until it
finishes: by its game's end (an action, a turn clock, a house bot), or before
the start when its last agent leaves or its creator closes it. Without a cap one agent
could open any number of tables of house bots, which the server plays at its
own expense. The organiser is exempt: tournaments open many tables at once.

The count lives in :class:`gateway.store.active_tables.ActiveTableStore`; a
create reserves its table id there (atomically against the cap) before it
writes the table. A reservation whose table never appears (the write failed,
the worker stopped) is dropped by :func:`reserve`'s pruning once it is old.
"""

from __future__ import annotations

from gateway.principal import Principal
from gateway.services.context import TableContext
from gateway.services.records import TableRecord, problem

__all__ = ["LISTED_IN_PROBLEM", "UNWRITTEN_AFTER_S", "exempt", "release", "reserve", "unreserve"]

UNWRITTEN_AFTER_S = 60.0
"""A reservation (or a listing entry) whose table still does not exist this long after is
a create that died before writing it (a create takes milliseconds): it is dropped."""

LISTED_IN_PROBLEM = 20
"""At most this many of the agent's unfinished table ids are named in ``table/too_many``."""


def exempt(principal: Principal) -> bool:
    return principal.kind == "organiser"


async def reserve(ctx: TableContext, principal: Principal, table_id: str, now: float) -> bool:
    """Count ``table_id`` against ``principal`` before it is written.

    Returns False when nothing was reserved (the organiser).

    :raises gateway.errors.ProblemError: ``table/too_many`` at the cap.
    """
    if exempt(principal):
        return False
    limit = ctx.settings.max_active_tables_per_agent
    agent_id = principal.agent_id
    if await ctx.active_tables.reserve(agent_id, table_id, limit, now):
        return True
    # At the cap: members whose removal was lost (finished tables, creates that never
    # wrote their table) must not lock the agent out, so drop them and try once more.
    remaining = await _prune(ctx, agent_id, now)
    if len(remaining) < limit and await ctx.active_tables.reserve(agent_id, table_id, limit, now):
        return True
    raise problem(
        "table/too_many",
        f"You have {len(remaining)} unfinished tables (the limit is {limit}); before creating "
        "another, finish one, or close one (POST /v1/tables/{id}/close: an open one, or a "
        "started one where only house bots play with you; it also closes when its last "
        "agent leaves).",
        limit=limit,
        active_tables=remaining[:LISTED_IN_PROBLEM],
    )


async def release(ctx: TableContext, record: TableRecord) -> None:
    """Stop counting a table that finished or was abandoned against its creator (idempotent)."""
    await ctx.active_tables.release(record.created_by, record.id)


async def unreserve(ctx: TableContext, principal: Principal, table_id: str) -> None:
    """Drop a reservation whose create will not write ``table_id`` (idempotent)."""
    if not exempt(principal):
        await ctx.active_tables.release(principal.agent_id, table_id)


async def _prune(ctx: TableContext, agent_id: str, now: float) -> list[str]:
    """Drop the agent's members that no longer count; return the ids that still do."""
    members = await ctx.active_tables.members(agent_id)
    records = {raw["id"]: raw for raw in await ctx.store.load_records(list(members))}
    stale = []
    for table_id, reserved_at in members.items():
        raw = records.get(table_id)
        if raw is None:
            if reserved_at < now - UNWRITTEN_AFTER_S:
                stale.append(table_id)
        elif raw.get("status") == "finished":
            stale.append(table_id)
    await ctx.active_tables.release(agent_id, *stale)
    return [table_id for table_id in members if table_id not in stale]
