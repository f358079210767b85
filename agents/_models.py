"""The typed models the SDK returns: the gateway's own wire schemas, re-exported.

They are plain pydantic (``gateway.schemas`` imports no FastAPI), so the SDK
and the server can never disagree about a field. ``Observation`` and friends
are short aliases for the names an agent author types most.
"""

from __future__ import annotations

from gateway.schemas.games import GameList, GameOut, ModeOut, VariantOut
from gateway.schemas.tables import (
    ActionRequest,
    ActionResult,
    CreateTableRequest,
    EventOut,
    EventsPage,
    HouseBotSeat,
    LegalActionOut,
    LogEntryOut,
    ObservationOut,
    OutcomeOut,
    ReplayOut,
    SeatOut,
    TableList,
    TableOut,
    TableStatus,
)

__all__ = [
    "ActionRequest",
    "ActionResult",
    "CreateTableRequest",
    "EventOut",
    "EventsPage",
    "GameList",
    "GameOut",
    "HouseBotSeat",
    "LegalActionOut",
    "LogEntryOut",
    "ModeOut",
    "Observation",
    "ObservationOut",
    "OutcomeOut",
    "ReplayOut",
    "SeatOut",
    "TableList",
    "TableOut",
    "TableStatus",
    "VariantOut",
]

Observation = ObservationOut
"""What a seat sees and may do now (the argument of :meth:`agents.Bot.choose`)."""
