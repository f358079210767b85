"""Answers of the spectator pages' own endpoint: a finished table's positions, step by step."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.wire.tables import OutcomeOut, SeatOut

__all__ = ["ReplayEventOut", "ReplayPositions", "ReplayStepOut"]


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReplayEventOut(_Out):
    """An event of the step, public or not (after the end every event is public)."""

    kind: str
    text: str
    audience: list[int] | None = Field(description="Null: public during play; else the seats it was for.")


class ReplayStepOut(_Out):
    """One position of the game: the deal (step 0) or the position after one action."""

    step: int
    version: int | None = Field(default=None, description="The table version the action was sent with.")
    seat: int | None = Field(default=None, description="Who acted (null at the deal).")
    action: str | None = Field(default=None, description="The action id applied.")
    by: Literal["agent", "house_bot", "timeout"] | None = None
    at: float | None = Field(default=None, description="When it was applied (epoch seconds).")
    events: list[ReplayEventOut]
    view: dict[str, Any] = Field(description="The spectator's view of this position (as in an observation).")
    seat_views: list[dict[str, Any]] = Field(
        description="Per seat, the fields of that seat's own view that differ from the spectator's "
        "(its hand, its Strategies, its shares...): public once the table is over.")


class ReplayPositions(_Out):
    """Every position of a finished table, rebuilt from its seed and action log."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{
        "table_id": "9604e6be75a1a30c", "game": "hab-und-gut", "mode": "standard", "seats": 3,
        "seated": [{"seat": i, "agent_id": f"agt_{i}", "name": name, "kind": "agent"}
                   for i, name in enumerate(("Ada", "Brook", "Cyd"))],
        "steps": [
            {"step": 0, "events": [], "view": {"game": "hab-und-gut", "seat": None, "round": 1, "turn": 1},
             "seat_views": [{"my_shares": []}, {"my_shares": []}, {"my_shares": []}]},
            {"step": 1, "version": 7, "seat": 0, "action": "buy:coffee", "by": "agent", "at": 1764650000.5,
             "events": [{"kind": "stock.buy", "text": "Seat 0 buys one coffee share for 40.", "audience": None}],
             "view": {"game": "hab-und-gut", "seat": None, "round": 1, "turn": 1},
             "seat_views": [{"my_shares": [{"id": "coffee.1", "commodity": "coffee"}]}, {}, {}]},
        ],
        "outcome": {"reason": "end", "winners": [1], "scores": [310.0, 420.0, 180.0], "text": "Seat 1 wins."},
    }]})

    table_id: str
    game: str
    mode: str
    seats: int
    seated: list[SeatOut] = Field(description="Who sat where (as in the table's facts).")
    steps: list[ReplayStepOut]
    outcome: OutcomeOut | None
