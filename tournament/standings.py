"""Standings: points, games, wins and placements per entrant, from table results.

Points are the same in every format: at a table of ``seats`` seats, place
``p`` is worth ``seats - p``, and seats that tie share the mean of the places
they cover (two seats sharing first at four seats get ``(3 + 2) / 2 = 2.5``
each), so every table hands out the same total. ``mean_placement`` and
``by_seat`` use the places as recorded (a shared first counts as 1).

Standings are ordered by points per game, best first (byes make game counts
differ by a table or a board), then by total points, wins, mean placement and
finally the entrant id, so the order is total and deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tournament.results import TableResult

__all__ = ["Standing", "seat_points", "standings"]


@dataclass(frozen=True)
class Standing:
    """One entrant's line of the standings.

    ``by_seat[k]`` is the mean placement in seat position ``k`` (``nan`` where
    the entrant never sat there).
    """

    entrant: str
    points: float
    games: int
    wins: int
    mean_placement: float
    by_seat: tuple[float, ...]

    @property
    def points_per_game(self) -> float:
        """``points / games`` (0 without games): what the order is by."""
        return self.points / self.games if self.games else 0.0


def seat_points(placements: Sequence[int]) -> tuple[float, ...]:
    """The points of every seat for one table's placements (see the module docstring)."""
    seats = len(placements)
    return tuple(seats - place - (placements.count(place) - 1) / 2 for place in placements)


def standings(results: Sequence[TableResult], entrants: Sequence[str]) -> list[Standing]:
    """The standings of ``entrants`` and of anyone else seated in ``results``, best first.

    Entrants without a result appear with zero games. The seat positions
    counted are ``0 .. max seats - 1`` over the results.
    """
    seats = max((result.seats for result in results), default=0)
    names = list(dict.fromkeys([*entrants, *(p for r in results for p in r.seating)]))
    points = dict.fromkeys(names, 0.0)
    games = dict.fromkeys(names, 0)
    wins = dict.fromkeys(names, 0)
    placed = dict.fromkeys(names, 0)
    seat_sum = {name: [0] * seats for name in names}
    seat_games = {name: [0] * seats for name in names}
    for result in results:
        for seat, (name, place, won) in enumerate(
                zip(result.seating, result.placements, seat_points(result.placements), strict=True)):
            points[name] += won
            games[name] += 1
            wins[name] += place == 1
            placed[name] += place
            seat_sum[name][seat] += place
            seat_games[name][seat] += 1
    rows = [
        Standing(
            entrant=name,
            points=points[name],
            games=games[name],
            wins=wins[name],
            mean_placement=placed[name] / games[name] if games[name] else math.nan,
            by_seat=tuple(total / count if count else math.nan
                          for total, count in zip(seat_sum[name], seat_games[name], strict=True)),
        )
        for name in names
    ]
    rows.sort(key=lambda row: (-row.points_per_game, -row.points, -row.wins,
                               row.mean_placement if row.games else math.inf, row.entrant))
    return rows
