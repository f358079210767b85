"""The disjoint duplicate form keeps the report's comparisons like with like.

A board's tables are played by different groups: the duplicate score of a seat
compares the players of different groups who held that seat of the same deal.
Copies of one house bot in one seat of one deal play alike, so a field of
copies scores 0 everywhere; a greedy bot among random ones scores above them,
board by board, on the deals both sides held; the fit and the standings take
the results as they are.
"""

from __future__ import annotations

import math
from collections import defaultdict

from tournament.fit import fit_report
from tournament.house import play_plans
from tournament.plan import plan_tournament
from tournament.report import duplicate_scores
from tournament.standings import standings

GAME, MODE = "market-fortune", "fortune"


def test_identical_bots_in_different_groups_score_zero_on_every_board() -> None:
    entrants = [f"greedy#{number}" for number in range(8)]
    plans = plan_tournament(format="duplicate", entrants=entrants, baselines=[], seats=4,
                            boards=3, rounds=None, seed=4)
    assert len(plans) == 6 and {plan.rotation for plan in plans} == {0, 1}
    results = play_plans(game=GAME, mode=MODE, plans=plans, seed=4)
    scores = duplicate_scores(results)
    assert set(scores) == set(entrants)
    for by_board in scores.values():
        assert sorted(by_board) == ["0", "1", "2"]  # one table of each board
        assert all(math.isclose(score, 0.0, abs_tol=1e-9) for score in by_board.values())


def test_a_seat_is_compared_among_the_groups_that_held_it() -> None:
    entrants = ["greedy#0", "greedy#1", *(f"random#{number}" for number in range(6))]
    plans = plan_tournament(format="duplicate", entrants=entrants, baselines=[], seats=4,
                            boards=8, rounds=None, seed=2)
    results = play_plans(game=GAME, mode=MODE, plans=plans, seed=2)
    scores = duplicate_scores(results)
    # Per board, the scores of each seat's holders cancel: the seat's mean is the baseline.
    by_board: dict[int, float] = defaultdict(float)
    for boards in scores.values():
        for board, score in boards.items():
            by_board[int(board)] += score
    assert all(math.isclose(total, 0.0, abs_tol=1e-9) for total in by_board.values())
    greedy = sum(sum(scores[name].values()) for name in ("greedy#0", "greedy#1")) / 2
    random = sum(sum(scores[f"random#{n}"].values()) for n in range(6)) / 6
    assert greedy > random
    rows = {row.entrant: row for row in standings(results, entrants)}
    assert all(row.games == 8 for row in rows.values())  # one table per board each
    fitted = {line.entrant: line for line in fit_report(results, samples=50, seed=2)}
    assert min(fitted[f"greedy#{n}"].strength for n in range(2)) > max(
        fitted[f"random#{n}"].strength for n in range(6))
