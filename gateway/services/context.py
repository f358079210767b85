"""What every table service needs: the stores, the settings, and a nudge for the house-bot driver."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import InitVar, dataclass, field

from gateway.clock import Clock, wall_clock
from gateway.config import Settings
from gateway.services.table_hooks import TableHooks
from gateway.services.waiters import Waiters
from gateway.store.active_tables import ActiveTableStore
from gateway.store.auth import AuthStore
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
    agents: AuthStore
    """Agent records and token revocations: every authenticated request asks it."""
    waiters: Waiters
    """This worker's held waits (observe, long-poll, SSE) and the reader that wakes them."""
    bind_tournaments: InitVar[Callable[[TableContext], TableHooks]]
    """Makes :attr:`tournaments` for this context (:mod:`gateway.services.table_hooks`)."""
    bots_due: asyncio.Event = field(default_factory=asyncio.Event)
    clock: Clock = wall_clock
    """The app's clock (:mod:`gateway.clock`)."""
    tournaments: TableHooks = field(init=False)
    """What tables tell and ask the tournaments, bound to this context."""

    def __post_init__(self, bind_tournaments: Callable[[TableContext], TableHooks]) -> None:
        self.tournaments = bind_tournaments(self)

    def now(self) -> float:
        """Wall-clock time in epoch seconds (deadlines are shared between workers)."""
        return self.clock()
