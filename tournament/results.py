"""One finished tournament table, as the tournament mathematics sees it.

A :class:`TableResult` is what the gateway stores per plan index when a table
ends, and everything else in this package (standings, live ratings, the fit,
the report) is computed from a list of them. It is plain data with a JSON
round trip (``TableResult.from_json(r.to_json()) == r``).

Placements are per seat, 1 = first, in competition order: seats that tie share
the better place and the next place is skipped (``1, 1, 3, 4``).
:func:`placements` turns an engine :class:`~engine.core.Outcome` (winners and
scores) into them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["TableResult", "never_moved", "placements"]


def never_moved(log: Iterable[Mapping[str, Any]], agent_seats: Iterable[int]) -> tuple[int, ...]:
    """The ``agent_seats`` that made no move of their own in an action ``log``: each of
    their moves was the turn clock's (``by`` ``timeout``), if they had any.

    On a rated table these seats lose on time (pass them to :func:`placements` as
    ``lost_on_time``): otherwise a second agent that joins and never moves would hand
    a rated win to whoever arranged the table, and an idler would be rated on the
    clock's play. The log records who made each move, so a replay of the seed and the
    log reaches the same placements.
    """
    moved = {int(entry["seat"]) for entry in log if entry.get("by") == "agent"}
    return tuple(sorted(set(agent_seats) - moved))


def placements(winners: Sequence[int], scores: Sequence[float], seats: int,
               eliminated: Sequence[int] = (), lost_on_time: Sequence[int] = ()
               ) -> tuple[int, ...]:
    """The place of every seat: winners share place 1, the rest follow by score.

    Non-winners are ordered by score, highest first; equal scores tie and share
    the better place (``1, 1, 3, 4``). Empty ``scores`` count as zeros, so every
    non-winner then shares the place after the winners. With no winners at all
    the table is ordered by score alone. ``eliminated`` seats (out of the running
    before the winner was decided) come after every other seat, by score among
    themselves. ``lost_on_time`` seats (:func:`never_moved`) win nothing and place as
    eliminated ones do.

    :raises ValueError: if ``seats`` < 1, a winner or an eliminated seat is not a
        seat, a winner is eliminated, or ``scores`` is neither empty nor one per seat.
    """
    if seats < 1:
        raise ValueError(f"a table has at least one seat, got {seats}")
    if lost_on_time:
        winners = [seat for seat in winners if seat not in lost_on_time]
        eliminated = sorted({*eliminated, *lost_on_time})
    if scores and len(scores) != seats:
        raise ValueError(f"{seats} seats need {seats} scores (or none), got {len(scores)}")
    if any(not 0 <= seat < seats for seat in winners):
        raise ValueError(f"winners {tuple(winners)} are not all seats of a {seats}-seat table")
    if any(not 0 <= seat < seats for seat in eliminated):
        raise ValueError(f"eliminated {tuple(eliminated)} are not all seats of a {seats}-seat table")
    won, out = set(winners), set(eliminated)
    if won & out:
        raise ValueError(f"seats {sorted(won & out)} both won and were eliminated")
    points = [float(score) for score in scores] if scores else [0.0] * seats
    places: list[int] = []
    for seat in range(seats):
        if seat in won:
            places.append(1)
            continue
        # Everyone still in the running finishes ahead of an eliminated seat.
        ahead = len(won) + (seats - len(won) - len(out) if seat in out else 0)
        better = sum(1 for other in range(seats)
                     if other not in won and (other in out) == (seat in out)
                     and points[other] > points[seat])
        places.append(ahead + better + 1)
    return tuple(places)


def _check_placements(values: tuple[int, ...]) -> None:
    """Raise ``ValueError`` unless ``values`` are competition-order places of their seats."""
    seats = len(values)
    for place in values:
        better = sum(1 for other in values if other < place)
        if place != better + 1:
            raise ValueError(f"placements {values} are not in competition order (1, 1, 3, ...)")
    if seats and min(values) != 1:
        raise ValueError(f"placements {values} have no first place")


@dataclass(frozen=True)
class TableResult:
    """How one planned table ended: who sat where and the place of every seat.

    ``seating`` and ``placements`` are per seat (the same order); ``scores`` are
    the engine outcome's, per seat, or empty when the game gives none.
    ``finished_at`` is a Unix time; live ratings apply results in the order the
    caller gives, which should be finish order.

    :raises ValueError: on construction, if the per-seat tuples disagree in
        length, an entrant sits twice, or the placements are not in competition
        order.
    """

    index: int
    board: int
    round: int
    table_id: str
    seating: tuple[str, ...]
    placements: tuple[int, ...]
    scores: tuple[float, ...]
    reason: str
    finished_at: float

    def __post_init__(self) -> None:
        """Check the per-seat tuples agree (a bad result must not reach the ratings)."""
        seats = len(self.seating)
        if seats < 2:
            raise ValueError(f"a result needs at least two seats, got {seats}")
        if len(set(self.seating)) != seats:
            raise ValueError(f"an entrant sits twice at table {self.table_id!r}: {self.seating}")
        if len(self.placements) != seats:
            raise ValueError(f"{seats} seats need {seats} placements, got {len(self.placements)}")
        if self.scores and len(self.scores) != seats:
            raise ValueError(f"{seats} seats need {seats} scores (or none), got {len(self.scores)}")
        _check_placements(self.placements)

    @property
    def seats(self) -> int:
        """The number of seats at the table."""
        return len(self.seating)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict; :meth:`from_json` reads it back to an equal result."""
        return {
            "index": self.index,
            "board": self.board,
            "round": self.round,
            "table_id": self.table_id,
            "seating": list(self.seating),
            "placements": list(self.placements),
            "scores": list(self.scores),
            "reason": self.reason,
            "finished_at": self.finished_at,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> TableResult:
        """Read a result written by :meth:`to_json`.

        :raises ValueError: if a field is missing or has the wrong type, or the
            result is inconsistent (see the class docstring).
        """
        try:
            return cls(
                index=_integer(raw["index"], "index"),
                board=_integer(raw["board"], "board"),
                round=_integer(raw["round"], "round"),
                table_id=_text(raw["table_id"], "table_id"),
                seating=tuple(_text(entrant, "seating") for entrant in _list(raw["seating"], "seating")),
                placements=tuple(_integer(place, "placements")
                                 for place in _list(raw["placements"], "placements")),
                scores=tuple(_number(score, "scores") for score in _list(raw.get("scores", []), "scores")),
                reason=_text(raw["reason"], "reason"),
                finished_at=_number(raw["finished_at"], "finished_at"),
            )
        except KeyError as missing:
            raise ValueError(f"a table result needs the field {missing.args[0]!r}") from None


def _integer(value: Any, name: str) -> int:
    """``value`` if it is an int (not a bool), else ``ValueError`` naming the field."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return value


def _number(value: Any, name: str) -> float:
    """``value`` as a finite float if it is a number (not a bool), else ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def _text(value: Any, name: str) -> str:
    """``value`` if it is a string, else ``ValueError`` naming the field."""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string, got {value!r}")
    return value


def _list(value: Any, name: str) -> list[Any]:
    """``value`` if it is a list or tuple, else ``ValueError`` naming the field."""
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{name} must be a list, got {value!r}")
    return list(value)
