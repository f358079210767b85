"""What the gateway keeps about a table besides the engine state, and the errors it raises.

A :class:`TableRecord` is stored as JSON in the table hash next to the state.
It holds the seed, which never leaves the gateway before the table ends: the
public :class:`agents.wire.tables.TableOut` is built from it field by field.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, ValidationError

from engine.core import Game, Seat
from engine.registry import UnknownGame, all_games, get_game
from gateway.errors import ProblemError
from gateway.openapi_docs import PROBLEM_CATALOGUE, register_problem
from gateway.principal import Principal

__all__ = ["SeatRecord", "TableRecord", "game_or_problem", "problem"]

register_problem(
    "table/invalid_config", 422, "Invalid table configuration",
    "Market Fortune's `family` mode seats 2 to 6 players.",
)
register_problem(
    "table/not_started", 409, "Table not started", "The table starts when every seat is taken."
)
register_problem("table/finished", 409, "Table finished", "The table is over; see its replay.")
register_problem(
    "table/unknown_bot", 422, "Unknown house bot",
    "No house bot `genius` for this game; see GET /v1/games.",
)
# 409, not 429: the cap counts unfinished tables, not requests over time, so
# waiting does not help by itself, and clients (our SDK among them) retry every 429.
register_problem(
    "table/too_many", 409, "Too many unfinished tables",
    "You have 10 unfinished tables (the limit is 10); before creating another, finish one, "
    "or close one (POST /v1/tables/{id}/close: an open one, or a started one where only house "
    "bots play with you; it also closes when its last agent leaves).",
)
register_problem(
    "table/seed_not_allowed", 403, "Seed not allowed",
    "An agent may choose the seed only of a table it sits at with house bots in every other "
    "seat; the server deals every other table from a seed nobody knows before the end.",
)
register_problem(
    "table/rated_not_allowed", 403, "Rated table not allowed",
    "An agent never opens a rated table: rated games are drawn by the public rated queue "
    "(POST /v1/games/{game}/rated-queue) or played in the organiser's tournaments.",
)
register_problem(
    "queue/not_queued", 404, "Not in the rated queue",
    "You are not in the market-fortune rated queue; join it first.",
)
register_problem(
    "table/not_creator", 403, "Not the table's creator",
    "Only the agent that created this table may close it.",
)


def problem(code: str, detail: str, **extra: Any) -> ProblemError:
    """A :class:`ProblemError` for a registered ``code`` (status and title from the catalogue)."""
    spec = PROBLEM_CATALOGUE[code]
    return ProblemError(spec.status, code, spec.title, detail, **extra)


def schema_errors(error: ValidationError | RequestValidationError) -> list[dict[str, Any]]:
    """pydantic's errors as a ``request/invalid`` problem lists them: where, why, which;
    never the rejected input, which may hold a secret."""
    return [{"loc": [str(part) for part in e["loc"]], "msg": e["msg"], "type": e["type"]}
            for e in error.errors()]


def invalid(sentence: str, errors: list[dict[str, Any]]) -> ProblemError:
    """``request/invalid`` for ``errors`` (``loc``, ``msg``, ``type`` each), as HTTP, MCP and
    the bot socket answer a request that fails its schema: ``sentence`` ("The request does
    not match its schema") and the first five places that failed."""
    where = ", ".join(".".join(entry["loc"]) for entry in errors[:5])
    return problem("request/invalid", f"{sentence} ({where}).", errors=errors)


def game_or_problem(name: str) -> Game[Any, Any, Any]:
    """The game called ``name``; a ``game/not_found`` problem naming every game otherwise."""
    try:
        return get_game(name)
    except UnknownGame:
        raise problem("game/not_found", f"No game is called {name!r}; see GET /v1/games.",
                      games=sorted(all_games())) from None


class SeatRecord(BaseModel):
    """Who sits in a seat: an agent, or a house bot driven by the server."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent_id: str
    name: str
    kind: Literal["agent", "house_bot"] = "agent"
    bot: str | None = None


class TableRecord(BaseModel):
    """A table's facts other than the engine state (stored, never sent as is).

    Frozen, and changed only by copying (``model_copy(update=...)`` with new
    lists): a commit hands the table it wrote to other requests' waits
    (:meth:`gateway.services.waiters.Waiters.deliver`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    game: str
    mode: str
    seats: int
    variants: list[str]
    config: dict[str, Any]
    """The game's full ``config_model`` dump, for the replay."""
    private: bool
    turn_timeout_s: float | None
    created_by: str
    created_at: float
    status: Literal["open", "playing", "finished"] = "open"
    seated: list[SeatRecord | None]
    seed: int
    outcome: dict[str, Any] | None = None
    started_at: float | None = None
    finished_at: float | None = None
    tournament: str | None = None
    """The tournament this table is part of (never told to its seats: see
    :mod:`gateway.services.tournaments`)."""
    rated: bool = False
    """Whether the table's result feeds its game's leaderboard."""

    def seat_of(self, agent_id: str) -> Seat | None:
        """The seat ``agent_id`` sits in, if any (house-bot seats never match)."""
        for seat, occupant in enumerate(self.seated):
            if occupant is not None and occupant.kind == "agent" and occupant.agent_id == agent_id:
                return seat
        return None

    def seat_for(self, principal: Principal | None) -> Seat | None:
        """The seat the caller holds (``None``: a spectator, or no caller at all)."""
        return self.seat_of(principal.agent_id) if principal is not None else None

    def bot_seats(self) -> dict[Seat, str]:
        return {
            seat: occupant.bot or "random"
            for seat, occupant in enumerate(self.seated)
            if occupant is not None and occupant.kind == "house_bot"
        }

    @property
    def full(self) -> bool:
        return all(occupant is not None for occupant in self.seated)
