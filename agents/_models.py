"""The typed models the SDK returns: the gateway's own wire schemas, re-exported.

They are plain pydantic (``gateway.schemas`` imports no FastAPI), so the SDK
and the server can never disagree about a field. ``Observation`` and friends
are short aliases for the names an agent author types most.
"""

from __future__ import annotations

from gateway.schemas.admission import (
    AdmissionPassed,
    ChallengeCreated,
    PassRuleInfo,
    Score,
    SecretRotated,
    TokenIssued,
)

# The auth models live in the platform's route module for now (it imports FastAPI);
# when they move to gateway/schemas/auth.py only this import changes.
from gateway.schemas.auth import AccessToken, AgentProfile, Jwks, Revoked
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
from gateway.schemas.tournaments import (
    AssignmentOut,
    AssignmentsPage,
    CreateTournamentRequest,
    LeaderboardOut,
    RatingOut,
    StandingOut,
    TableResultOut,
    TournamentList,
    TournamentOut,
    TournamentResults,
)
from quiz.model import Choice, Puzzle, Question

__all__ = [
    "AccessToken",
    "ActionRequest",
    "ActionResult",
    "AdmissionPassed",
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
