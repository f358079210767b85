"""House bots: seats the server plays itself, so one agent can sit against three bots.

A commit that leaves a house-bot seat to act puts the table in the ``bots`` index and
wakes this worker's driver. Every worker runs :func:`drive_bots` in a loop
(:mod:`gateway.services.runtime`); a table is claimed by one worker for a short lease
and its bots play (through the same compare-and-set as an agent's action) until an
agent must decide or the table ends. Bots see only their seat's view
(:func:`engine.bots.decide`) and draw chance from a seed derived from the table's, so
a table with a fixed seed replays the same way.
"""

from __future__ import annotations

import asyncio
import logging

from engine.bots import bot_seed, decide, get_bot
from gateway.errors import ProblemError
from gateway.services.actions import advance, commit_step, load_table
from gateway.services.context import TableContext

__all__ = ["LEASE_S", "drive_bots", "play_bots"]

LEASE_S = 10.0
"""How long a claimed table is left to its worker before another may take it over."""

_MAX_MOVES = 2000
"""Bot moves per claim: a bound so one table never holds a worker forever."""

_RETRY_S = 1.0

log = logging.getLogger(__name__)


async def play_bots(ctx: TableContext, table_id: str) -> float | None:
    """Play the table's due house-bot moves; return when to look again (``None``: not needed)."""
    for _move in range(_MAX_MOVES):
        try:
            loaded = await load_table(ctx, table_id)
        except ProblemError:
            return None
        record, game = loaded.record, loaded.game
        if record.status != "playing":
            return None
        bots = record.bot_seats()
        due = [seat for seat in game.to_act(loaded.state) if seat in bots]
        if not due:
            return None
        seat = due[0]
        bot = get_bot(record.game, bots[seat])
        action = decide(bot, game, loaded.state, seat, bot_seed(record.seed, loaded.version, seat))
        step = advance(loaded, seat, action, by="house_bot", now=ctx.now())
        await commit_step(ctx, loaded, step, announce_bots=False)
        # Applied or not (an agent acted meanwhile), read again and carry on.
        if ctx.settings.house_bot_delay_s > 0:
            return ctx.now() + ctx.settings.house_bot_delay_s
    return ctx.now()


async def _play_claimed(ctx: TableContext, table_id: str, lease_end: float) -> None:
    try:
        next_due = await play_bots(ctx, table_id)
    except Exception as error:
        # Type and place only: a bot's or the engine's message may name a hidden card.
        log.error("house bots of table %s failed: %s", table_id, type(error).__name__)
        next_due = ctx.now() + _RETRY_S
    await ctx.store.release("bots", table_id, lease_end, next_due)


async def drive_bots(ctx: TableContext) -> int:
    """Claim every table where a bot is due and play them concurrently; returns the count."""
    now = ctx.now()
    lease_end = now + LEASE_S
    claimed = await ctx.store.claim("bots", now, lease_end)
    await asyncio.gather(*(_play_claimed(ctx, table_id, lease_end) for table_id in claimed))
    return len(claimed)
