"""A seat's observation of a table: its view, who acts, its legal actions, a summary.

Built in two places from the same facts: ``GET .../observation`` (from the
table as read from Redis) and the answer to an action (from the state the
action just produced, so a bot that acts again needs no second request).
"""

from __future__ import annotations

from typing import Any

from engine.core import Game
from gateway.schemas.tables import LegalActionOut, ObservationOut, OutcomeOut
from gateway.services.records import TableRecord

__all__ = ["observation", "outcome_out"]


def outcome_out(record: TableRecord) -> OutcomeOut | None:
    """A finished table's outcome as sent to clients (``None`` while it is not over)."""
    return OutcomeOut.model_validate(record.outcome) if record.outcome else None


def observation(
    *,
    table_id: str,
    record: TableRecord,
    game: Game[Any, Any, Any],
    state: Any,
    seat: int | None,
    version: int,
    deadline: float | None,
    last_event_id: int,
) -> ObservationOut:
    """What ``seat`` (``None``: a spectator) sees of ``state`` at ``version``."""
    if record.status == "open":
        free = sum(occupant is None for occupant in record.seated)
        return ObservationOut(
            table_id=table_id, game=record.game, status="open", version=version,
            seat=seat, to_act=[], legal_actions=[], view=None,
            summary=f"Waiting for {free} more player(s); the table starts when every seat is taken.",
            deadline=None, last_event_id=last_event_id,
        )
    to_act = game.to_act(state)
    legal = game.legal_actions(state, seat) if seat is not None and seat in to_act else []
    return ObservationOut(
        table_id=table_id,
        game=record.game,
        status=record.status,
        version=version,
        seat=seat,
        to_act=to_act,
        legal_actions=[LegalActionOut(id=action.id, text=action.text) for action in legal],
        view=game.view(state, seat),
        summary=game.summary(state, seat),
        deadline=deadline,
        last_event_id=last_event_id,
        outcome=outcome_out(record),
    )
