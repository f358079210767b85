"""Wire models of tournaments, their results, assignments and the per-game leaderboard.

Requests are strict and forbid unknown fields, as every request here. Nothing
in these answers names a board before every table of that board is over:
a board tells an entrant which of its tables share a deal.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from agents.wire import WholeNumber
from agents.wire.auth import AgentMetaOut

__all__ = [
    "AssignmentOut",
    "AssignmentsPage",
    "CreateTournamentRequest",
    "DuplicateForm",
    "LeaderboardOut",
    "ProgressOut",
    "QueueStatus",
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

TournamentFormat = Literal["duplicate", "round_robin", "swiss", "gauntlet"]
DuplicateForm = Literal["disjoint", "rotated"]
TournamentStatus = Literal["running", "finished", "cancelled"]
QueueStatus = Literal["waiting", "seated", "expired", "left"]
"""A rated-queue ticket: ``waiting`` for a draw; ``seated`` at ``table_id``; ``expired``
(it waited the longest the queue holds an agent with no draw); ``left`` the queue."""

ENTRANT_PATTERN = (r"^(agt_[0-9a-f]{1,64}|bot:[a-z0-9_-]{1,32}(#[0-9]{1,3})?"
                   r"|[A-Za-z0-9](?:[A-Za-z0-9 _.\-]{0,62}[A-Za-z0-9_.\-])?)$")
"""An entrant: a registered agent's id or name, or ``bot:<name>`` for a house bot;
``bot:<name>#<n>`` enters another copy of the same bot (``bot:greedy#1``, ``bot:greedy#2``).
The server turns a name into its agent's id."""

Entrant = Annotated[str, StringConstraints(pattern=ENTRANT_PATTERN)]


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateTournamentRequest(BaseModel):
    """A tournament: who plays, which game, in which format, on how many boards."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "examples": [
                {
                    "name": "Friday duplicate",
                    "game": "market-fortune",
                    "mode": "fortune",
                    "seats": 4,
                    "entrants": ["agt_0123456789abcdef0123", "agt_fedcba9876543210fedc",
                                 "bot:greedy", "bot:random"],
                    "format": "duplicate",
                    "boards": 8,
                    "turn_timeout_s": 60,
                    "max_concurrent_tables": 4,
                    "rated": True,
                }
            ]
        },
    )

    name: str = Field(min_length=1, max_length=80, description="Shown in listings and the report.")
    game: str = Field(description="A game name from GET /v1/games.")
    mode: str = Field(description="One of the game's modes.")
    seats: WholeNumber = Field(ge=2, le=12, description="Seats per table.")
    variants: list[str] = Field(default_factory=list, max_length=16,
                                description="Variant names to switch on.")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="Further game configuration, as for `POST /v1/tables` (caps may be "
        "lowered, never raised).")
    entrants: list[Entrant] = Field(
        min_length=1, max_length=64,
        description="Who is ranked: registered agents by id (`agt_...`) or name, and house "
        "bots (`bot:greedy`; `bot:greedy#2` for a second copy); each at most once. A name "
        "must be exactly one agent's (422 `tournament/unknown_entrant` otherwise); the "
        "tournament lists ids.")
    baselines: list[Entrant] = Field(
        default_factory=list, max_length=8,
        description="House bots (`bot:random`) every entrant plays against in `gauntlet`; "
        "in the other formats they fill seats when there are fewer entrants than seats.")
    format: TournamentFormat = Field(
        description="`duplicate`: each board (one deal) played in several seat rotations, "
        "luck compared seat by seat; `round_robin`: balanced groups, seats rotated; `swiss`: "
        "rounds grouped by standing; `gauntlet`: every entrant against the baselines.")
    duplicate_form: DuplicateForm | None = Field(
        default=None,
        description="How `duplicate` and `gauntlet` share out a board's rotations. "
        "`disjoint`: each table of a board is played by another group, so no entrant ever "
        "plays a board twice (nothing it remembers of a table tells it a deal still to "
        "play); needs the field to fill two tables at once (in gauntlet: the entrants). "
        "`rotated`: one group plays the board in every seat rotation, so every entrant holds "
        "every seat of the deal (an entrant that remembers knows every hand at its later "
        "rotations). Left out: `disjoint` when the field fills two tables, else `rotated`. "
        "422 `tournament/invalid` for `disjoint` on a smaller field, or for any form in "
        "`round_robin` or `swiss`.",
        examples=["disjoint"])
    boards: WholeNumber = Field(default=1, ge=1, le=500,
                        description="Boards (deals) to play: one per round, in every format.")
    rounds: WholeNumber | None = Field(default=None, ge=1, le=500,
                               description="Rounds; when given it must equal `boards`.")
    turn_timeout_s: float = Field(
        default=60.0, gt=0, le=3600,
        description="Seconds a seat has to act before its default action is applied: an "
        "absent entrant loses only its own turns.")
    max_concurrent_tables: WholeNumber = Field(default=4, ge=1, le=64,
                                       description="The most tables played at once.")
    rated: bool = Field(default=False, description="Feed the game's leaderboard.")
    private: bool = Field(default=False,
                          description="Not listed; only its organiser sees it.")


class ProgressOut(_Out):
    """How far a tournament is: tables planned so far, by state."""

    total: int = Field(description="Tables to play in all (a swiss tournament plans a round "
                       "at a time: its later rounds are counted as large as the first).")
    done: int
    running: int
    waiting: int


class StandingOut(_Out):
    """One entrant's standing: the format's points, games, wins, placements."""

    entrant: str
    name: str
    points: float
    games: int
    wins: int
    mean_placement: float | None = Field(description="Null before its first game.")
    by_seat: list[float | None] = Field(description="Mean placement per seat position "
                                        "(null where it never sat).")


class RatingOut(_Out):
    """A live OpenSkill (Plackett-Luce) rating; ``ordinal`` = mu - 3 sigma is the shown number."""

    entrant: str
    name: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    provisional: bool = Field(description="True while sigma is high: too few games to trust.")
    agent: AgentMetaOut | None = Field(
        default=None, description="On the leaderboard, an agent's public metadata; its "
        "`predecessor` is the earlier version it follows (the lineage).")


class TournamentTableOut(_Out):
    """A table of a published board (or, for the organiser, any created table)."""

    index: int
    table_id: str
    url: str
    round: int
    board: int
    status: Literal["waiting", "running", "finished"]
    seating: list[str]
    placements: list[int] | None = None


class TournamentOut(_Out):
    """A tournament's facts, progress, standings and live ratings."""

    id: str
    name: str
    game: str
    mode: str
    seats: int
    variants: list[str]
    format: TournamentFormat
    duplicate_form: DuplicateForm | None = Field(
        default=None, description="The form played (null in formats without rotations).")
    boards: int
    rounds: int | None
    entrants: list[str]
    baselines: list[str]
    turn_timeout_s: float
    max_concurrent_tables: int
    rated: bool
    private: bool
    agents: dict[str, AgentMetaOut] = Field(
        default_factory=dict, description="Each agent entrant's public metadata (model, "
        "provider, version, link, predecessor) as it was when the tournament was created.")
    status: TournamentStatus
    created_by: str
    created_at: float
    finished_at: float | None
    progress: ProgressOut
    standings: list[StandingOut]
    ratings: list[RatingOut]
    tables: list[TournamentTableOut] = Field(
        description="Tables of boards every table of which is over (all created tables for "
        "the organiser): a board is withheld until then, so an entrant cannot tell which "
        "of its tables share a deal.")


class TournamentList(_Out):
    """A page of tournaments, newest first."""

    tournaments: list[TournamentOut]
    next_offset: int | None


class TableResultOut(_Out):
    """A finished table's result: placement (1 = first; ties share) and score per seat."""

    index: int
    round: int
    board: int
    rotation: int = Field(default=0, description="The board's rotation this table played: "
                          "its seat rotation in the rotated form, its place among the "
                          "board's tables (one per group) in the disjoint form, 0 in "
                          "formats without rotations.")
    table_id: str
    seating: list[str]
    placements: list[int]
    scores: list[float]
    reason: str
    finished_at: float


class TournamentResults(_Out):
    """The results of published boards, in plan order (the organiser sees all)."""

    tournament_id: str
    status: TournamentStatus
    results: list[TableResultOut]
    board_seeds: dict[str, int] = Field(description="Board -> seed, for published boards.")


class AssignmentOut(_Out):
    """A table you must play (``kind`` ``table.assigned``), or the end of a tournament
    (``tournament.finished``, ``table_id`` null)."""

    id: str = Field(description="Stream id: pass as `after` to read on.")
    kind: Literal["table.assigned", "tournament.finished"]
    tournament_id: str
    table_id: str | None = None
    seat: int | None = None
    game: str | None = None
    at: float


class AssignmentsPage(_Out):
    """Assignments after ``after`` (none when ``wait`` ran out)."""

    assignments: list[AssignmentOut]
    last_id: str = Field(description="Pass as `after` next time.")


class LeaderboardOut(_Out):
    """Live ratings over every rated table of a game, best first."""

    game: str
    tables: int = Field(description="Rated tables counted.")
    ratings: list[RatingOut]


class RatedQueueRequest(BaseModel):
    """A place in a game's public rated queue: which table to be drawn for."""

    model_config = ConfigDict(
        extra="forbid", strict=True,
        json_schema_extra={"examples": [{"mode": "fortune", "seats": 2}]},
    )

    mode: str = Field(max_length=64, description="One of the game's modes.")
    seats: WholeNumber = Field(ge=2, le=12, description="The table's seats, every one an agent's.")


class RatedQueueTicket(BaseModel):
    """Where the caller stands in a game's rated queue."""

    model_config = ConfigDict(extra="ignore")

    game: str
    mode: str
    seats: int
    status: QueueStatus
    joined_at: float = Field(description="When the caller joined (Unix seconds).")
    expires_at: float = Field(description="When a ticket still waiting then expires.")
    waiting: int = Field(description="Agents waiting in this pool now, the caller included "
                                     "while it waits.")
    table_id: str | None = Field(default=None, description="The rated table the draw seated "
                                                           "the caller at (status `seated`).")
    seat: int | None = None
