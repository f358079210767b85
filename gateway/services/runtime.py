"""The table runtime of one worker: its shared :class:`TableContext` and background tasks,
which :func:`gateway.app.create_app`'s lifespan starts once Redis is connected and cancels
at shutdown."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import FastAPI

from gateway.config import Settings
from gateway.services.clocks import run_clock_sweeper
from gateway.services.context import TableContext
from gateway.services.house_bots import run_house_bots
from gateway.services.retention import run_retention_sweeper
from gateway.services.tournaments import TournamentHooks, run_tournaments
from gateway.store.active_tables import ActiveTableStore
from gateway.store.tables import TableStore

__all__ = ["start", "table_context"]


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
            clock=app.state.clock,
            waiters=app.state.waiters,
            bind_tournaments=TournamentHooks,
        )
        app.state.table_context = context
    return context


async def start(app: FastAPI) -> list[asyncio.Task[Any]]:
    context = table_context(app)
    return [
        asyncio.create_task(run_clock_sweeper(context), name="turn-clock-sweeper"),
        asyncio.create_task(run_house_bots(context), name="house-bots"),
        asyncio.create_task(run_retention_sweeper(context), name="retention-sweeper"),
        asyncio.create_task(run_tournaments(context), name="tournaments"),
    ]
