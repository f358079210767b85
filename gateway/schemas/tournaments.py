"""Wire models of tournaments, their results, assignments and the per-game leaderboard.

Defined in the SDK (``agents._wire.tournaments``) and re-exported: one definition of the wire
contract for the gateway and every SDK install.
"""

from agents._wire.tournaments import (
    AssignmentOut,
    AssignmentsPage,
    CreateTournamentRequest,
    LeaderboardOut,
    ProgressOut,
    RatedQueueRequest,
    RatedQueueTicket,
    RatingOut,
    StandingOut,
    TableResultOut,
    TournamentFormat,
    TournamentList,
    TournamentOut,
    TournamentResults,
    TournamentStatus,
    TournamentTableOut,
)

__all__ = [
    "AssignmentOut",
    "AssignmentsPage",
    "CreateTournamentRequest",
    "LeaderboardOut",
    "ProgressOut",
    "RatedQueueRequest",
    "RatedQueueTicket",
    "RatingOut",
    "StandingOut",
    "TableResultOut",
    "TournamentFormat",
    "TournamentList",
    "TournamentOut",
    "TournamentResults",
    "TournamentStatus",
    "TournamentTableOut",
]
