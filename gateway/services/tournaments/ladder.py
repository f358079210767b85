"""The per-game ladder: every rated table, tournament or not, rated exactly once."""

from __future__ import annotations

import json

from agents.wire.auth import AgentMetaOut
from agents.wire.tournaments import (
    LeaderboardOut,
)
from gateway.errors import ProblemError
from gateway.services import tables as tables_service
from gateway.services.actions import load_table
from gateway.services.agents import meta_out
from gateway.services.context import TableContext
from gateway.services.due import drive_due
from gateway.services.records import TableRecord, game_or_problem
from gateway.services.tournaments.state import (
    rated_out,
    result_of,
    store_of,
)
from tournament.plan import TablePlan
from tournament.results import TableResult

__all__ = [
    "LADDER_LEASE_S",
    "LADDER_RECHECK_S",
    "leaderboard",
    "note_rated_finish",
    "sweep_ladder",
]


LADDER_LEASE_S = 10.0
"""How long a claimed pending table is left to its worker before another may take it."""

LADDER_RECHECK_S = 30.0
"""How soon the ladder's sweep looks again at a rated table that is still being played."""


async def sweep_ladder(ctx: TableContext) -> int:
    """Put every finished rated table still pending on its ladder (once: HSETNX by table
    id); tables still played are looked at again later, unknown ones forgotten. Returns
    how many were looked at (:func:`~gateway.services.due.drive_due`)."""
    store = store_of(ctx)
    return await drive_due(
        ctx, "pending ladder table", _rate_if_finished, store.claim_ladder_pending,
        lambda pending, lease_end, next_due: store.release_ladder_pending(
            *pending, lease_end, next_due),
        lease_s=LADDER_LEASE_S)


async def _rate_if_finished(ctx: TableContext, pending: tuple[str, str]) -> float | None:
    """Rate a pending table once it has finished; when to look again (``None``: done, or a
    table never written because its create failed)."""
    _game, table_id = pending
    try:
        loaded = await load_table(ctx, table_id)
    except ProblemError:
        return None
    if loaded.record.status != "finished":
        return ctx.now() + LADDER_RECHECK_S
    await note_rated_finish(ctx, loaded.record)
    return None


async def note_rated_finish(ctx: TableContext, record: TableRecord) -> None:
    """Put a rated ordinary table that just finished on its game's ladder (once).

    Tournament tables are put there by their tournament's scheduler, with the
    entrants' ids; a table closed before its game ended (nobody won it) is not rated.
    """
    if not record.rated or record.tournament is not None or record.outcome is None:
        return
    if record.outcome.get("reason") in (tables_service.ABANDONED, tables_service.CLOSED):
        return
    seating: list[str] = []
    for seat, occupant in enumerate(record.seated):
        entrant = "?" if occupant is None else (
            occupant.agent_id if occupant.kind == "agent" else f"bot:{occupant.bot}")
        seating.append(entrant if entrant not in seating else f"{entrant}:{seat}")
    plan = TablePlan(index=0, round=0, board=0, rotation=0, seating=tuple(seating))
    result = await result_of(ctx, plan, record)
    if result is not None:
        await store_of(ctx).record_ladder(record.game, record.id, json.dumps(result.to_json()))


async def _display_names(
    ctx: TableContext, entrants: set[str]
) -> tuple[dict[str, str], dict[str, AgentMetaOut]]:
    """Each ladder entrant's display name: the agent's registered name, ``greedy bot`` for
    ``bot:greedy``; the id itself for an agent no longer known. A second seat of the same
    agent at one table (``agt_…:2``) keeps its seat suffix. Beside them, each known
    agent's public metadata (its predecessor is the lineage)."""
    agents = ctx.agents
    names: dict[str, str] = {}
    metadata: dict[str, AgentMetaOut] = {}
    for entrant in entrants:
        base, _, seat = entrant.partition(":") if entrant.startswith("agt_") else (entrant, "", "")
        if base.startswith("bot:"):
            names[entrant] = f"{base.removeprefix('bot:')} bot"
            continue
        agent = await agents.get_agent(base)
        shown = agent.name if agent is not None else base
        names[entrant] = f"{shown} (seat {seat})" if seat else shown
        if agent is not None:
            metadata[entrant] = await meta_out(agents, agent)
    return names, metadata


async def leaderboard(ctx: TableContext, game: str) -> LeaderboardOut:
    """Live ratings over every rated table of ``game`` in finish order, best first; ``name``
    is each entrant's display name, ``agent`` an agent's metadata and lineage."""
    game_or_problem(game)
    stored = [TableResult.from_json(json.loads(raw)) for raw in await store_of(ctx).ladder(game)]
    names, metadata = await _display_names(
        ctx, {entrant for result in stored for entrant in result.seating})
    ratings = await rated_out(ctx, f"ladder:{game}", stored, names.__getitem__)
    return LeaderboardOut(game=game, tables=len(stored), ratings=[
        rating.model_copy(update={"agent": metadata.get(rating.entrant)}) for rating in ratings])

