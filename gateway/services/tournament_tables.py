"""Tables the server deals itself, every seat taken at once: a tournament's (seeded by its
board) and the rated queue's (:mod:`gateway.services.rated_queue`).

Kept apart from :func:`gateway.services.tables.create_table`, the public path
(where a caller never chooses a seed): a tournament table's seed is its
board's, its seats are its plan's entrants, and its id is derived from the
tournament, so the compare-and-set on version -1 creates it at most once however
often the scheduler retries.
"""

from __future__ import annotations

from typing import Any

from gateway.errors import ProblemError
from gateway.services.actions import Events, commit_record, load_table
from gateway.services.context import TableContext
from gateway.services.records import SeatRecord, TableRecord, game_or_problem
from gateway.services.tables import CAS_ATTEMPTS, closed, seat_event, start_if_full

__all__ = ["CANCELLED", "close_tournament_table", "create_tournament_table"]

CANCELLED = "cancelled"
"""The outcome ``reason`` of a tournament table closed because its tournament was cancelled."""


async def create_tournament_table(
    ctx: TableContext,
    *,
    table_id: str,
    tournament_id: str | None,
    created_by: str,
    game_name: str,
    mode: str,
    variants: list[str],
    config: dict[str, Any],
    seated: list[SeatRecord],
    seed: int,
    turn_timeout_s: float,
    rated: bool,
) -> bool:
    """Deal and start one table with every seat taken; False when ``table_id`` exists already.

    The table is private (seen by its seats and the organiser only, never listed)
    and its record names the tournament (``None``: the rated queue's), not the board.
    """
    game = game_or_problem(game_name)
    state = game.new_table(game.config_model.model_validate(config), seed)
    now = ctx.now()
    events: Events = [(None, {
        "kind": "table.created",
        "text": f"The {'rated queue' if tournament_id is None else 'tournament'} opened a "
                f"{game.info.title} table for {len(seated)}.",
        "data": {"game": game_name, "mode": mode, "seats": len(seated)},
    })]
    for seat, occupant in enumerate(seated):
        events.append((None, seat_event("seat.joined", seat, occupant, "took")))
    record = start_if_full(TableRecord(
        id=table_id, game=game_name, mode=mode, seats=len(seated), variants=variants,
        config=config, private=True, turn_timeout_s=turn_timeout_s, created_by=created_by,
        created_at=now, seated=list(seated), seed=seed, tournament=tournament_id, rated=rated,
    ), now, events)
    return (await commit_record(ctx, record, game, state, events, now)).applied


async def close_tournament_table(ctx: TableContext, table_id: str, text: str) -> bool:
    """End a tournament table that is still being played, nobody winning; False when it
    was over already (or does not exist)."""
    for _attempt in range(CAS_ATTEMPTS):
        try:
            loaded = await load_table(ctx, table_id)
        except ProblemError:  # a table never created: nothing to close
            return False
        if loaded.record.status == "finished":
            return False
        events: Events = []
        now = ctx.now()
        record = closed(loaded.record, now, events, CANCELLED, text)
        result = await commit_record(ctx, record, loaded.game, loaded.state, events, now,
                                     version=loaded.version)
        if result.applied:
            return True
    return False
