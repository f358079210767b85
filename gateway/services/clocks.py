"""Turn clocks: when a seat's time runs out, its game's ``default_action`` is applied.

Every worker runs :func:`sweep_clocks` in a loop (:mod:`gateway.services.runtime`). A
deadline lives in the table hash (the truth) and in the ``clock`` index; a worker
claims due tables from the index for a short lease (so the others skip them), re-reads
each table and applies the default action through the same compare-and-set as an
agent's action. Even if two workers did reach the same table, only one commit can
succeed for that version, so the default action is applied exactly once and recorded
with a public ``turn.timeout`` event.
"""

from __future__ import annotations

from gateway.errors import ProblemError
from gateway.services.actions import advance, commit_step, load_table
from gateway.services.context import TableContext
from gateway.services.due import RETRY_S, drive_tables

__all__ = ["expire_table", "sweep_clocks"]

_ATTEMPTS = 10


async def expire_table(ctx: TableContext, table_id: str) -> float | None:
    """Apply the default action if the table's clock ran out; return its next deadline."""
    for _attempt in range(_ATTEMPTS):
        try:
            loaded = await load_table(ctx, table_id)
        except ProblemError:
            return None  # the table is gone
        record, game = loaded.record, loaded.game
        deadline = loaded.snapshot.deadline
        if record.status != "playing" or deadline is None:
            return None
        now = ctx.now()
        if deadline > now:
            return deadline
        bots = record.bot_seats()
        late = [seat for seat in game.to_act(loaded.state) if seat not in bots]
        if not late:
            return None
        seat = late[0]
        step = advance(loaded, seat, game.default_action(loaded.state, seat), by="timeout", now=now)
        _result, written = await commit_step(ctx, loaded, step)
        if written is not None:
            return step.deadline
        # Someone acted meanwhile: read again; the new version has its own deadline.
    return ctx.now() + RETRY_S


async def sweep_clocks(ctx: TableContext) -> int:
    """Claim and handle every due clock once (concurrently); returns how many were looked at."""
    return await drive_tables(ctx, "clock", "turn clock of table", expire_table)
