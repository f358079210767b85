"""The Plackett-Luce fit: known strengths recovered, ties, bootstrap over boards, ranks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.tournament.helpers import result
from tournament.fit import (
    MIN_BOARDS_FOR_INTERVALS,
    fit_report,
    fit_strengths,
    interval_ranks,
)
from tournament.results import TableResult

TRUE = {"a": 1.2, "b": 0.6, "c": 0.0, "d": -0.3, "e": -0.6, "f": -0.9}


def _synthetic(tables: int, seed: int, *, seats: int = 4, copies: int = 1) -> list[TableResult]:
    """Plackett-Luce finishes drawn with the strengths in TRUE (``copies`` tables per board)."""
    rng = np.random.default_rng(seed)
    names = list(TRUE)
    results = []
    for board in range(tables):
        seating = [names[i] for i in rng.choice(len(names), seats, replace=False)]
        remaining, order = list(seating), []
        while remaining:
            odds = np.exp([TRUE[name] for name in remaining])
            pick = remaining[int(rng.choice(len(remaining), p=odds / odds.sum()))]
            order.append(pick)
            remaining.remove(pick)
        for copy in range(copies):
            results.append(result(seating, [order.index(n) + 1 for n in seating],
                                  index=board * copies + copy, board=board))
    return results


def _centred(values: dict[str, float]) -> dict[str, float]:
    mean = sum(values.values()) / len(values)
    return {name: value - mean for name, value in values.items()}


def test_the_fit_recovers_known_strengths() -> None:
    fitted = fit_strengths(_synthetic(1500, seed=1))
    truth = _centred(TRUE)
    assert abs(sum(fitted.values())) < 1e-9
    for name, value in truth.items():
        assert abs(fitted[name] - value) < 0.12, (name, fitted[name], value)


def test_the_intervals_cover_the_truth_and_order_the_clear_cases() -> None:
    estimates = fit_report(_synthetic(600, seed=2), samples=150, seed=0)
    truth = _centred(TRUE)
    covered = sum(e.low <= truth[e.entrant] <= e.high for e in estimates)
    assert covered >= 5
    assert [e.entrant for e in estimates][:2] == ["a", "b"]
    assert estimates[0].rank == "1"
    assert estimates[-1].entrant == "f"
    assert all(e.low <= e.strength <= e.high for e in estimates)
    assert sum(e.games for e in estimates) == 600 * 4


def test_ties_are_evidence_of_equality() -> None:
    tables = [result(["a", "b", "c"], [1, 1, 3], index=i) for i in range(20)]
    fitted = fit_strengths(tables)
    assert fitted["a"] == pytest.approx(fitted["b"], abs=1e-9)
    assert fitted["a"] > fitted["c"]
    everyone_ties = fit_strengths([result(["a", "b", "c"], [1, 1, 1], index=i) for i in range(5)])
    assert all(value == pytest.approx(0.0, abs=1e-9) for value in everyone_ties.values())


def test_an_unbeaten_entrant_stays_finite() -> None:
    finish = ["a", "b", "c", "d"]  # always this order; a sits in every seat in turn
    tables = []
    for i in range(12):
        seating = finish[i % 4:] + finish[:i % 4]
        tables.append(result(seating, [finish.index(n) + 1 for n in seating], index=i))
    assert {t.seating.index("a") for t in tables} == {0, 1, 2, 3}
    estimates = fit_report(tables, samples=50)
    assert estimates[0].entrant == "a"
    assert all(math.isfinite(value) for e in estimates for value in (e.strength, e.low, e.high))
    assert estimates[0].strength < 10


def test_rotations_of_a_board_are_resampled_together() -> None:
    # The same finishes, once as 4 copies on each of 60 boards, once as 240 boards:
    # the point estimate is the same, the board-level intervals are about twice as wide.
    grouped = _synthetic(60, seed=4, copies=4)
    spread = [result(r.seating, r.placements, index=r.index, board=r.index) for r in grouped]
    as_boards = {e.entrant: e for e in fit_report(grouped, samples=150, seed=1)}
    as_tables = {e.entrant: e for e in fit_report(spread, samples=150, seed=1)}
    for name, estimate in as_boards.items():
        assert estimate.strength == pytest.approx(as_tables[name].strength, abs=1e-9)
    ratio = (sum(e.high - e.low for e in as_boards.values())
             / sum(e.high - e.low for e in as_tables.values()))
    assert 1.6 < ratio < 2.5, ratio


def test_too_few_boards_give_unbounded_intervals() -> None:
    tables = [result(["a", "b"], [1, 2], index=i, board=i % (MIN_BOARDS_FOR_INTERVALS - 1))
              for i in range(10)]
    estimates = fit_report(tables, samples=20)
    assert all(e.low == -math.inf and e.high == math.inf for e in estimates)
    assert [e.rank for e in estimates] == ["1–2", "1–2"]
    assert estimates[0].entrant == "a"


def test_the_report_is_deterministic_in_its_seed() -> None:
    tables = _synthetic(40, seed=5)
    assert fit_report(tables, samples=30, seed=9) == fit_report(tables, samples=30, seed=9)
    assert fit_report(tables, samples=30, seed=9) != fit_report(tables, samples=30, seed=8)
    assert fit_report([]) == []
    with pytest.raises(ValueError):
        fit_report(tables, samples=0)


@pytest.mark.parametrize(("intervals", "ranks"), [
    ([(3, 4), (1, 2), (0, 0.5)], ["1", "2", "3"]),
    ([(3, 4), (1, 3.5), (0, 2)], ["1–2", "1–3", "2–3"]),
    ([(0, 1), (0, 1), (0, 1)], ["1–3", "1–3", "1–3"]),
    ([(5, 6), (1, 4), (2, 3), (0, 0.5)], ["1", "2–3", "2–3", "4"]),
])
def test_interval_ranks(intervals: list[tuple[float, float]], ranks: list[str]) -> None:
    assert interval_ranks(intervals) == ranks
