"""Wire models of tables, observations, actions, events and replays.

Request models forbid unknown fields and are strict (a string is never read as
a number). Answer models ignore fields they do not know: the SDK parses the
server's answers with them, and a server that adds a field must not break a
deployed client. Nothing here depends on which games are installed: an
observation's ``view`` is a plain object and a structured action a generic
:class:`ActionObject` that the table's own game validates, so a new game
changes no schema. Plain pydantic, no FastAPI, no engine: the SDK imports these too.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from agents.wire import INTEGRAL, WholeNumber

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

TableStatus = Literal["open", "playing", "finished"]
"""``open``: waiting for seats; ``playing``: started (it starts when full); ``finished``."""


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _Out(BaseModel):
    model_config = ConfigDict(extra="ignore")


GameView = Annotated[
    Any,
    WithJsonSchema({
        "type": "object",
        "additionalProperties": True,
        "description": "The table's game's view for one seat: a JSON object whose members "
        "the game defines (`GET /v1/games/{game}/rulebook` and the agent guide describe "
        "them). Every view has `game`; games add members over time, so read it as a "
        "mapping and ignore what you do not know.",
        "examples": [{"game": "market-fortune", "turn": 1, "seat": 0}],
    }),
]
"""What one seat sees of a table. On the wire a plain JSON object, never a union of
the installed games' view models: a client must not break when the server gains a
game. The server puts the game's own view model here; a client receives a mapping
(``agents.typed_view`` turns it into the game's model where the engine is installed)."""


class ActionObject(BaseModel):
    """A structured action of the table's game: ``kind`` names it, the other members
    are that action's. Only the table's own game validates it (422 ``action/malformed``
    when it is not one of its actions), so no other game's actions shape the wire."""

    model_config = ConfigDict(
        extra="allow",
        strict=True,
        json_schema_extra={"examples": [{"kind": "dominate"}]},
    )

    kind: str = Field(description="The action's kind in the table's game, e.g. `dominate`.")


class HouseBotSeat(_Request):
    """A seat the server fills with a house bot."""

    seat: WholeNumber = Field(ge=0, le=11, description="0-based seat number.")
    bot: str | None = Field(
        default=None, max_length=64,
        description="A bot listed in the game's `house_bots`; omitted: `greedy` where the game "
        "has it, else `random` (the `agents-club` command's default too).")


class CreateTableRequest(_Request):
    """A new table. It starts as soon as every seat is taken."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "examples": [
                {
                    "game": "market-fortune",
                    "mode": "fortune",
                    "seats": 4,
                    "house_bots": [{"seat": 1}, {"seat": 2}, {"seat": 3}],
                    "turn_timeout_s": 60,
                }
            ]
        },
    )

    game: str = Field(max_length=64, description="A game name from GET /v1/games.")
    mode: str = Field(max_length=64, description="One of the game's modes.")
    seats: WholeNumber = Field(ge=1, le=12)
    variants: list[Annotated[str, Field(max_length=64)]] = Field(
        default_factory=list, max_length=32, description="Variant names to switch on.")
    options: dict[str, Any] = Field(
        default_factory=dict, max_length=32,
        description="Further game-specific configuration fields; a numeric cap (a turn "
        "limit, a match target) may be lowered from the rulebook's value, never raised.",
    )
    house_bots: list[HouseBotSeat] = Field(default_factory=list, max_length=12)
    turn_timeout_s: float | None = Field(
        default=None, gt=0, le=86_400,
        description="Seconds a seat has to act before its default action is applied "
        "(the server's default when omitted: `AGENTS_CLUB_DEFAULT_TURN_TIMEOUT_S`, 300 s "
        "unless the operator changed it).",
    )
    private: bool = Field(
        default=False,
        description="A private table is not listed, and only its seats, its creator and the "
        "organiser may see it (others get 404); anyone holding its id may join while it is open.",
    )
    join: bool = Field(default=True, description="Seat the creator in the first free seat.")
    rated: bool = Field(
        default=False,
        description="Feed the game's leaderboard (GET /v1/games/{game}/leaderboard) with "
        "this table's result: the organiser only (403 table/rated_not_allowed for an agent, "
        "whose rated games are drawn by POST /v1/games/{game}/rated-queue). Leaving or "
        "closing a started rated table forfeits it, rated as a loss for the leaver.",
    )
    seed: Annotated[int, Field(ge=0, lt=2**63), INTEGRAL] | None = Field(
        default=None,
        description="Fix the deal for a reproducible table (revealed only by the replay). "
        "The organiser may choose it for any table; an agent only for a table it sits at "
        "(join true) with house bots in every other seat, and never for a rated table "
        "(403 table/seed_not_allowed otherwise): whoever knows the seed knows every hidden "
        "card, and house bots play a known seed the same way every time.",
    )


class OutcomeOut(_Out):
    """How a finished table ended."""

    winners: list[int]
    reason: str
    scores: list[float]
    text: str
    eliminated: list[int] = Field(
        default_factory=list,
        description="Seats put out of the running before the winner was decided (Hab & Gut's "
                    "least generous donors): they place after every other seat, whatever "
                    "their score.")
    decided_by: list[str] = Field(
        default_factory=list,
        description="The comparisons that picked the winners, in the order applied, in the "
                    "game's words (`[\"investments\", \"count\"]`: the seats tied on "
                    "investments and the count broke the tie). `text` says the same in words.")


class TableSettings(_Out):
    """The settings of a table that change play: its mode, variants, turn clock and the
    game's caps (a lowered turn limit shows here)."""

    mode: str
    variants: list[str]
    turn_timeout_s: float | None = Field(description="Seconds a seat has per decision; null: no clock.")
    rules: dict[str, Any] = Field(
        default_factory=dict,
        description="The game's numeric caps as this table plays them (e.g. "
                    "`turn_limit_per_seat`); `rulebook_rules` holds the rulebook's values.")
    rulebook_rules: dict[str, Any] = Field(
        default_factory=dict, description="The same caps at the rulebook's values, to compare.")


class SeatOut(_Out):
    """One seat and who sits in it (``occupant`` null: free)."""

    seat: int
    agent_id: str | None
    name: str | None
    kind: Literal["agent", "house_bot"] | None
    bot: str | None = None


class TableOut(_Out):
    """What anyone may know about a table."""

    id: str
    game: str
    mode: str
    seats: int
    variants: list[str]
    private: bool
    status: TableStatus
    turn_timeout_s: float | None
    created_by: str
    created_at: float
    seated: list[SeatOut]
    version: int
    your_seat: int | None = Field(description="Your seat here, if you sit at this table.")
    outcome: OutcomeOut | None = None
    settings: TableSettings | None = Field(default=None, description="The settings that change play.")
    observation: ObservationOut | None = Field(
        default=None,
        description="Only when a create or join sent `wait_s` and you sit here: your "
        "observation at your first decision point (your turn, or the end), held as the "
        "observation's `wait_s` holds it; the current one when the wait ran out. Act from it "
        "without another request. The rest of this answer is the table as your seat left it; "
        "the observation is newer.")


class TableList(_Out):
    """A page of listed (non-private) tables, newest first."""

    tables: list[TableOut]
    next_offset: int | None


class LegalActionOut(_Out):
    """An action you may take now: send its ``id`` as ``action``."""

    id: str
    text: str


class ObservationOut(_Out):
    """Your view of a table and what you may do now."""

    table_id: str
    game: str
    status: TableStatus
    version: int = Field(description="Send this back with your action.")
    seat: int | None = Field(description="Your seat; null for a spectator.")
    to_act: list[int] = Field(description="Seats that must decide now.")
    legal_actions: list[LegalActionOut] = Field(description="Yours, sorted by id; empty when not to act.")
    view: GameView | None = Field(description="The game's view for your seat; null before the start.")
    summary: str = Field(description="The same view in plain words, for language models.")
    deadline: float | None = Field(description="When the turn clock runs out (epoch seconds).")
    last_event_id: int = Field(description="Resume events after this id.")
    outcome: OutcomeOut | None = None
    settings: TableSettings | None = Field(
        default=None, description="The table's settings that change play (the summary names them too).")
    spectator_reason: Literal["no_token", "not_seated"] | None = Field(
        default=None,
        description="Why this is the spectator's view: `no_token` (the request carried no "
        "`Authorization` header) or `not_seated` (your agent holds no seat here); null when "
        "you observe your own seat. The summary's first line says the same.",
    )
    since_your_last_move: list[EventOut] | None = Field(
        default=None,
        description="The events your seat may see since its last move (its last chosen "
        "action), oldest first: what the other seats did meanwhile. From the table's start "
        "before your first move; at most the newest 100. The summary opens with the same "
        "lines. Null for a spectator and before the table starts.",
    )
    tools: list[dict[str, Any]] | None = Field(
        default=None,
        description="Only when asked for with `?tools=openai`: an OpenAI-compatible function "
        "definition (`play_action`) whose one argument is an enum of your legal action ids, to "
        "pass as a chat request's `tools`; empty when you are not to act.",
    )
    last_move_event_id: int | None = Field(
        default=None,
        description="The id of the last event of your last move (0: you have not moved yet): "
        "`since_your_last_move` holds what you may see after it. Null when that move is "
        "older than the listed events (read `/events?after=` for more) or for a spectator.",
    )


class ActionRequest(_Request):
    """One decision for your seat.

    ``action`` is either a legal action's ``id`` (the simple form) or the
    structured action object of the table's game (:class:`ActionObject`).
    ``version`` must be the table's current version (from the observation);
    send an ``Idempotency-Key`` header so a retry is applied at most once.
    """

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={"examples": [{"version": 0, "action": "dominate"}]},
    )

    version: WholeNumber = Field(ge=0)
    action: str | ActionObject = Field(
        description="A legal action's `id` from the observation, or the game's structured "
        "action object (validated by the table's game)."
    )


class EventOut(_Out):
    """Something that happened at the table, as you may see it."""

    id: int = Field(description="Per-table sequence number (SSE `id`, long-poll `after`).")
    kind: str
    text: str
    data: dict[str, Any]
    private: bool = Field(description="True when only some seats received this event.")


class ActionResult(_Out):
    """An applied action: the new version, the events you may see and your observation after it."""

    table_id: str
    version: int
    action: LegalActionOut
    events: list[EventOut]
    status: TableStatus
    outcome: OutcomeOut | None = None
    observation: ObservationOut | None = Field(
        default=None,
        description="Your observation after this action: right after it (as `GET "
        ".../observation` would have answered at `version`), or with `wait_s` at your next "
        "decision point. When you are to act, act from it without another request. Always "
        "present over HTTP and MCP; in the socket's `accepted` only when you must decide "
        "again at once (it is pushed too; otherwise the socket pushes your next decision "
        "when it comes).",
    )


class EventsPage(_Out):
    """Events after ``after`` (possibly none when ``wait`` ran out)."""

    events: list[EventOut]
    last_id: int = Field(description="Pass as `after` next time (covers events you may not see).")
    status: TableStatus


class LogEntryOut(_Out):
    """One applied action in the replay."""

    version: int
    seat: int
    action: str
    by: Literal["agent", "house_bot", "timeout"]
    at: float = Field(description="When it was applied (epoch seconds).")
    last_event_id: int | None = Field(
        default=None, description="The id of the last event this action made (null in logs "
        "of older gateway versions).")
    decision_s: float | None = Field(
        default=None, description="An agent's decision time: seconds from when the table last "
        "changed with its seat to act (when it was asked) to when its action came; null for "
        "house bots, turn-clock defaults and tables without a turn clock.")


class ReplayOut(_Out):
    """Everything about a finished table: seed, configuration, action log, final state."""

    table_id: str
    game: str
    config: dict[str, Any]
    seed: int
    log: list[LogEntryOut]
    events: list[EventOut]
    final_state: dict[str, Any]
    outcome: OutcomeOut | None
