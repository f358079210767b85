"""What every table service needs: the stores, the settings, and a nudge for the house-bot driver."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from gateway.clock import Clock, wall_clock
from gateway.config import Settings
from gateway.services.known_tables import KnownTables
from gateway.services.parsed_states import ParsedStates
from gateway.services.table_hooks import TableHooks
from gateway.services.waiters import Waiters
from gateway.store.active_tables import ActiveTableStore
from gateway.store.tables import TableStore

__all__ = ["TableContext"]


@dataclass
class TableContext:
    """Shared by the routes, the turn-clock sweeper and the house-bot driver of one worker.

    ``bots_due`` wakes this worker's house-bot driver at once when a commit
    leaves a bot to act, so bots answer promptly instead of at the next poll;
    the Redis index still lets any worker pick the table up.
    """

    store: TableStore
    settings: Settings
    active_tables: ActiveTableStore
    """Each agent's unfinished tables (the per-agent table cap)."""
    waiters: Waiters
    """This worker's held waits (observe, long-poll, SSE) and the reader that wakes them."""
    tournaments: TableHooks
    """What tables tell and ask the tournaments (:mod:`gateway.services.table_hooks`)."""
    bots_due: asyncio.Event = field(default_factory=asyncio.Event)
    parsed_states: ParsedStates = field(default_factory=ParsedStates)
    """States this worker parsed or wrote lately (saves parsing the same JSON again)."""
    known_tables: KnownTables = field(default_factory=KnownTables)
    """Each table's newest read or write by this worker (an action may start from it)."""
    clock: Clock = wall_clock
    """The app's clock (:mod:`gateway.clock`)."""

    def now(self) -> float:
        """Wall-clock time in epoch seconds (deadlines are shared between workers)."""
        return self.clock()
