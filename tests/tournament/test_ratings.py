"""Live ratings: OpenSkill Plackett-Luce, one update per table, provisional while unsure."""

from __future__ import annotations

import random

from tests.tournament.helpers import result
from tournament.ratings import (
    PROVISIONAL_SIGMA,
    LiveRating,
    live_ratings,
    new_rating,
    update_ratings,
)
from tournament.results import TableResult


def test_a_table_moves_the_winner_up_and_the_last_down() -> None:
    ratings = live_ratings([result(["a", "b", "c", "d"], [1, 2, 3, 4])])
    prior = new_rating("x")
    assert ratings["a"].mu > prior.mu > ratings["d"].mu
    assert ratings["a"].mu > ratings["b"].mu > ratings["c"].mu > ratings["d"].mu
    assert all(rating.sigma < prior.sigma for rating in ratings.values())
    assert all(rating.games == 1 for rating in ratings.values())


def test_tied_seats_with_equal_ratings_stay_equal() -> None:
    ratings = live_ratings([result(["a", "b", "c"], [1, 1, 3])])
    assert ratings["a"].mu == ratings["b"].mu > ratings["c"].mu


def test_ordinal_is_mu_minus_three_sigma() -> None:
    rating = live_ratings([result(["a", "b"], [1, 2])])["a"]
    assert rating.ordinal == rating.mu - 3 * rating.sigma
    assert new_rating("a").ordinal == 25.0 - 3 * 25.0 / 3


def test_update_ratings_leaves_its_input_alone_and_matches_the_fold() -> None:
    first = result(["a", "b", "c"], [1, 2, 3], index=0)
    second = result(["c", "a", "d"], [1, 3, 2], index=1)
    before = live_ratings([first])
    copy = dict(before)
    after = update_ratings(before, second)
    assert before == copy
    assert after == live_ratings([first, second])
    assert after["d"].games == 1 and after["a"].games == 2


def _round_robin(entrants: list[str], strength: dict[str, float], tables: int,
                 seed: int) -> list[TableResult]:
    """Tables of four drawn from ``entrants``, finishing by strength plus noise."""
    rng = random.Random(seed)
    results = []
    for index in range(tables):
        seating = rng.sample(entrants, 4)
        ordered = sorted(seating, key=lambda e: -(strength[e] + rng.gauss(0, 1)))
        results.append(result(seating, [ordered.index(e) + 1 for e in seating], index=index))
    return results


def test_ratings_are_deterministic_and_order_the_strong_first() -> None:
    entrants = [f"e{number}" for number in range(6)]
    strength = {name: -float(number) for number, name in enumerate(entrants)}
    results = _round_robin(entrants, strength, 60, seed=3)
    ratings = live_ratings(results)
    assert ratings == live_ratings(results)
    assert ratings["e0"].ordinal > ratings["e2"].ordinal > ratings["e5"].ordinal


def test_a_rating_is_provisional_until_about_a_dozen_four_seat_tables() -> None:
    entrants = [f"e{number}" for number in range(4)]
    strength = dict.fromkeys(entrants, 0.0)
    results = _round_robin(entrants, strength, 30, seed=5)
    assert new_rating("e0").provisional
    games_when_settled = []
    for entrant in entrants:
        ratings: dict[str, LiveRating] = {}
        for count, table in enumerate(results, start=1):
            ratings = update_ratings(ratings, table)
            if not ratings[entrant].provisional:
                games_when_settled.append(count)
                assert ratings[entrant].sigma <= PROVISIONAL_SIGMA
                break
    assert len(games_when_settled) == 4
    assert all(8 <= games <= 16 for games in games_when_settled), games_when_settled
