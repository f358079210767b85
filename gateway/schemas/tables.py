"""Wire models of tables, observations, actions, events and replays.

Defined in the SDK (``agents._wire.tables``) and re-exported: one definition of the wire
contract for the gateway and every SDK install.
"""

from agents._wire.tables import (
    ActionObject,
    ActionRequest,
    ActionResult,
    CreateTableRequest,
    EventOut,
    EventsPage,
    GameView,
    HouseBotSeat,
    LegalActionOut,
    LogEntryOut,
    ObservationOut,
    OutcomeOut,
    ReplayOut,
    SeatOut,
    TableList,
    TableOut,
    TableSettings,
    TableStatus,
)

__all__ = [
    "ActionObject",
    "ActionRequest",
    "ActionResult",
    "CreateTableRequest",
    "EventOut",
    "EventsPage",
    "GameView",
    "HouseBotSeat",
    "LegalActionOut",
    "LogEntryOut",
    "ObservationOut",
    "OutcomeOut",
    "ReplayOut",
    "SeatOut",
    "TableList",
    "TableOut",
    "TableSettings",
    "TableStatus",
]
