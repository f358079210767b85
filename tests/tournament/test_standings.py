"""Standings: points with shared places, wins, placements per seat position, order."""

from __future__ import annotations

import math

from tests.tournament.helpers import result
from tournament.standings import seat_points, standings


def test_tied_seats_share_the_mean_of_their_places_points() -> None:
    assert seat_points((1, 1, 3, 4)) == (2.5, 2.5, 1.0, 0.0)
    assert seat_points((1, 2, 2, 2)) == (3.0, 1.0, 1.0, 1.0)
    assert seat_points((2, 1, 3)) == (1.0, 2.0, 0.0)
    assert sum(seat_points((1, 1, 1, 1))) == 6.0


def test_a_standing_line_adds_up_the_tables() -> None:
    results = [
        result(["a", "b", "c", "d"], [1, 2, 3, 4], index=0),
        result(["b", "c", "d", "a"], [1, 1, 3, 4], index=1),
        result(["c", "d", "a", "b"], [2, 1, 3, 4], index=2),
    ]
    rows = {row.entrant: row for row in standings(results, ["a", "b", "c", "d"])}
    a = rows["a"]
    assert (a.points, a.games, a.wins) == (3.0 + 0.0 + 1.0, 3, 1)
    assert a.mean_placement == (1 + 4 + 3) / 3
    assert a.by_seat[0] == 1.0
    assert math.isnan(a.by_seat[1])  # a never sat in seat 1
    assert a.by_seat[2:] == (3.0, 4.0)
    assert rows["b"].points == 2.0 + 2.5 + 0.0
    assert rows["b"].wins == 1
    assert rows["c"].points == 1.0 + 2.5 + 2.0
    assert sum(row.points for row in rows.values()) == 3 * 6


def test_order_is_by_points_per_game_then_total() -> None:
    results = [
        result(["a", "b"], [1, 2], index=0),
        result(["a", "b"], [2, 1], index=1),
        result(["c", "b"], [1, 2], index=2),
    ]
    order = [row.entrant for row in standings(results, ["a", "b", "c"])]
    assert order == ["c", "a", "b"]  # c: 1 point in 1 game beats a: 1 point in 2


def test_entrants_without_tables_and_unlisted_players_both_appear() -> None:
    rows = standings([result(["a", "bot:greedy"], [2, 1])], ["a", "z"])
    assert [row.entrant for row in rows] == ["bot:greedy", "a", "z"]
    z = rows[-1]
    assert (z.games, z.points, z.wins) == (0, 0.0, 0)
    assert math.isnan(z.mean_placement)
    assert all(math.isnan(value) for value in z.by_seat)


def test_no_results_gives_the_entrants_in_a_stable_order() -> None:
    assert [row.entrant for row in standings([], ["b", "a"])] == ["a", "b"]
