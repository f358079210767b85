"""A finished tournament's reproducible bundle (:mod:`tournament.bundle` reads and checks it)."""

from __future__ import annotations

import asyncio
from typing import Any

from gateway import __version__
from gateway.principal import Principal
from gateway.services import replays as replays_service
from gateway.services.context import TableContext
from gateway.services.tournaments.exports import report, results
from gateway.services.tournaments.resource import get_tournament
from tournament.bundle import BUNDLE_FORMAT

__all__ = ["bundle"]


async def bundle(
    ctx: TableContext, tournament_id: str, principal: Principal | None, *, address: str
) -> dict[str, Any]:
    """Configuration, plan, entrants and names, board seeds, results in plan order with
    their rotation, every published replay, the report (with its fit's seed) and the
    gateway's version, in one document. Only once the tournament is over (the report's
    ``tournament/not_finished`` before); without a token it counts its replays against the
    address's anonymous allowance, as ``replays.jsonl`` does."""
    made = await report(ctx, tournament_id, principal)
    shown = await results(ctx, tournament_id, principal)
    await replays_service.limit_anonymous_replays(ctx, principal, address, replays=len(shown.results))
    replays = [
        await asyncio.to_thread(  # a long replay's JSON form is tens of ms of CPU
            (await replays_service.published_replay(ctx, result.table_id))
            .model_dump, mode="json")
        for result in shown.results]  # every board is over: the report opened
    return {
        "format": BUNDLE_FORMAT,
        "software": {"gateway": __version__},
        "tournament": (await get_tournament(ctx, tournament_id, principal)).model_dump(mode="json"),
        "results": [result.model_dump(mode="json") for result in shown.results],
        "board_seeds": shown.board_seeds,
        "replays": replays,
        "report": made,
    }
