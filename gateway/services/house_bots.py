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

from engine.bots import bot_seed, decide, get_bot
from gateway.errors import ProblemError
from gateway.services.actions import advance, commit_step, load_table
from gateway.services.context import TableContext
from gateway.services.due import drive_tables
from gateway.services.loaded_table import LoadedTable

__all__ = ["drive_bots", "play_bots"]

_MAX_MOVES = 2000
"""Bot moves per claim: a bound so one table never holds a worker forever."""


async def play_bots(ctx: TableContext, table_id: str) -> float | None:
    """Play the table's due house-bot moves; return when to look again (``None``: not needed).

    Each move plays on the table as its commit wrote it; only a move that lost its
    compare-and-set (an agent, a clock or a record change came first) reads the table again.
    """
    written: LoadedTable | None = None
    for _move in range(_MAX_MOVES):
        if written is not None:
            loaded = written
        else:
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
        _result, written = await commit_step(ctx, loaded, step, announce_bots=False)
        if ctx.settings.house_bot_delay_s > 0:
            return ctx.now() + ctx.settings.house_bot_delay_s
    return ctx.now()


async def drive_bots(ctx: TableContext) -> int:
    """Claim every table where a bot is due and play them concurrently; returns the count."""
    return await drive_tables(ctx, "bots", "house bots of table", play_bots)
