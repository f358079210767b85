"""The table runtime of one worker: its shared :class:`TableContext` and background loops,
which :func:`gateway.app.create_app`'s lifespan starts once Redis is connected and cancels
at shutdown.

Each loop runs one round (a sweep of due clocks, a drive of due house bots or
tournaments, a retention sweep) after another, paced by :func:`run_rounds`. Its work
fails while Redis is down; retrying at its normal interval, a loop would log errors
several times a second through an outage and hammer a Redis trying to come back. So the
pause doubles after each failure up to a cap, an outage's first failure and its recovery
are logged once each, and the first success returns to the normal interval.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

from fastapi import FastAPI

from gateway.config import Settings
from gateway.services.clocks import sweep_clocks
from gateway.services.context import TableContext
from gateway.services.house_bots import drive_bots
from gateway.services.retention import prune_expired
from gateway.services.tournaments import TournamentHooks
from gateway.services.tournaments.scheduler import drive_tournaments
from gateway.store.active_tables import ActiveTableStore
from gateway.store.auth import AuthStore
from gateway.store.tables import TableStore

__all__ = ["BACKOFF_CAP_S", "run_rounds", "start", "table_context"]

BACKOFF_CAP_S = 30.0
"""The longest pause after failed rounds (a loop's own longer interval stays its pause)."""

log = logging.getLogger(__name__)


def table_context(app: FastAPI) -> TableContext:
    """The app's table context, made on first use (Redis must be connected)."""
    context: TableContext | None = getattr(app.state, "table_context", None)
    if context is None or context.store.redis is not app.state.redis:
        settings: Settings = app.state.settings
        replicas = settings.redis_replica_wait  # the WAIT a commit makes: none when 0
        context = TableContext(
            store=TableStore(app.state.redis, app.state.keys, replica_wait=(
                (replicas, settings.redis_replica_wait_timeout_ms) if replicas > 0 else None)),
            settings=settings,
            active_tables=ActiveTableStore(app.state.redis, app.state.keys),
            agents=AuthStore(app.state.redis, app.state.keys),
            clock=app.state.clock,
            waiters=app.state.waiters,
            bind_tournaments=TournamentHooks,
        )
        app.state.table_context = context
    return context


async def start(app: FastAPI) -> list[asyncio.Task[Any]]:
    """Start the worker's loops: turn clocks, house bots (also at once when a commit of
    this worker leaves a bot to act) and tournaments (with the ladder's sweep) every
    ``sweeper_interval_s``, the listing's retention every ``retention_sweep_interval_s``."""
    ctx = table_context(app)
    every = ctx.settings.sweeper_interval_s
    loops: list[tuple[str, Callable[[], Awaitable[object]], float, asyncio.Event | None]] = [
        ("turn-clock sweep", lambda: sweep_clocks(ctx), every, None),
        ("house-bot drive", lambda: drive_bots(ctx), every, ctx.bots_due),
        ("retention sweep", lambda: prune_expired(ctx), ctx.settings.retention_sweep_interval_s,
         None),
        ("tournament drive", lambda: drive_tournaments(ctx), every, None),
    ]
    return [asyncio.create_task(run_rounds(name, one_round, interval_s=interval_s, wake=wake),
                                name=name)
            for name, one_round, interval_s, wake in loops]


async def run_rounds(
    name: str, one_round: Callable[[], Awaitable[object]], *, interval_s: float,
    wake: asyncio.Event | None = None,
) -> NoReturn:
    """Run ``one_round`` until cancelled: ``interval_s`` after a round that worked, after
    one that failed a pause doubling with each failure in a row, capped (cancellation
    always goes through). An outage's first failure is logged with the error's type
    only (an engine message may name a hidden card), and its recovery once.

    ``wake``: after a round that worked, the next starts as soon as it is set (it is
    cleared then), at the latest after ``interval_s``.
    """
    failures = 0
    outage_started = 0.0
    while True:
        try:
            await one_round()
        except asyncio.CancelledError:
            raise
        except Exception as error:
            if failures == 0:
                outage_started = time.monotonic()
                log.error("%s failed: %s; backing off until it works again",
                          name, type(error).__name__)
            failures += 1
            pause = min(interval_s * 2.0 ** min(failures, 30),
                        max(BACKOFF_CAP_S, interval_s))
        else:
            if failures:
                log.warning("%s works again after %d failed round(s) in %.1f s",
                            name, failures, time.monotonic() - outage_started)
                failures = 0
            pause = interval_s
        if wake is None or failures:
            await asyncio.sleep(pause)
        else:
            # asyncio.timeout, not wait_for: on Python 3.11 a cancellation racing a
            # wait_for timeout can surface as TimeoutError, be suppressed here, and the
            # loop would then outlive the app's shutdown.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(pause):
                    await wake.wait()
        if wake is not None:
            wake.clear()
