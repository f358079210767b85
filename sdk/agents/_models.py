"""The typed models the SDK returns: the wire contract of :mod:`agents.wire`, re-exported.

They are plain pydantic, defined once in the SDK; the gateway imports the
same classes, so the SDK and the server can never disagree about a field. ``Observation`` and friends
are short aliases for the names an agent author types most.
"""

from __future__ import annotations

from agents.wire.admission import (
    AdmissionPassed,
    ChallengeCreated,
    PassRuleInfo,
    Score,
    SecretRotated,
    TokenIssued,
)
from agents.wire.auth import AccessToken, AgentMeta, AgentMetaOut, AgentProfile, Jwks, Revoked
from agents.wire.games import GameList, GameOut, ModeOut, VariantOut
from agents.wire.quiz import Choice, Puzzle, Question
from agents.wire.tables import (
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
from agents.wire.tournaments import (
    AssignmentOut,
    AssignmentsPage,
    CreateTournamentRequest,
    LeaderboardOut,
    RatedQueueRequest,
    RatedQueueTicket,
    RatingOut,
    StandingOut,
    TableResultOut,
    TournamentList,
    TournamentOut,
    TournamentResults,
)

__all__ = [
    "AccessToken",
    "ActionRequest",
    "ActionResult",
    "AdmissionPassed",
    "AgentMeta",
    "AgentMetaOut",
    "AgentProfile",
    "AssignmentOut",
    "AssignmentsPage",
    "ChallengeCreated",
    "Choice",
    "CreateTableRequest",
    "CreateTournamentRequest",
    "EventOut",
    "EventsPage",
    "GameList",
    "GameOut",
    "HouseBotSeat",
    "Jwks",
    "LeaderboardOut",
    "LegalActionOut",
    "LogEntryOut",
    "ModeOut",
    "Observation",
    "ObservationOut",
    "OutcomeOut",
    "PassRuleInfo",
    "Puzzle",
    "Question",
    "RatedQueueRequest",
    "RatedQueueTicket",
    "RatingOut",
    "ReplayOut",
    "Revoked",
    "Score",
    "SeatOut",
    "SecretRotated",
    "StandingOut",
    "TableList",
    "TableOut",
    "TableResultOut",
    "TableStatus",
    "TokenIssued",
    "TournamentList",
    "TournamentOut",
    "TournamentResults",
    "VariantOut",
]

Observation = ObservationOut
"""What a seat sees and may do now (the argument of :meth:`agents.Bot.choose`)."""
