"""The final report's numbers: a Plackett-Luce fit with bootstrap intervals.

**Model.** Entrant ``i`` has a strength ``θᵢ`` (log scale). A table's finish
is read as the seats being picked one place at a time, each time among those
not yet placed, with chance proportional to ``exp(θ)`` (Plackett-Luce). Seats
that tie are picked together, each against the whole remaining set (the
Breslow treatment of ties, as in Cox regression): a tie for first between
``a`` and ``b`` at a table with ``c`` and ``d`` contributes
``wₐ/(wₐ+w_b+w_c+w_d) · w_b/(wₐ+w_b+w_c+w_d)``, which keeps the
log-likelihood concave. A tied last place still counts (it says the tied
seats are alike).

**Fit.** Newton's method on the log-likelihood plus a tiny Gaussian prior
``-PRIOR_PRECISION/2 · Σθ²`` (a normal prior of standard deviation 10): it
keeps an entrant that won or lost every table finite and makes the maximum
unique, and its pull is negligible next to a few tables of data. Strengths
are reported with their mean over entrants subtracted, so 0 is the average
entrant and a difference of 1 means ``e ≈ 2.7`` times the odds of finishing
ahead in a head-to-head.

**Intervals.** Boards are resampled with replacement (``samples`` times):
every table of a drawn board comes along, all its rotations together, since
those share the deal and are not independent. Each sample is refitted and
centred. The interval is the *basic* (reflected) bootstrap: where the
resamples' 2.5th and 97.5th percentiles lie ``d₋`` below and ``d₊`` above
the estimate, the interval runs from ``d₊`` below it to ``d₋`` above it. The
maximum-likelihood strengths of a few tables are spread out from the average
(a strong entrant's estimate tends high), and the resamples, fitted the same
way, are spread out once more around it; the percentile interval then sits
too far out and misses the truth mostly on the inner side, which reflecting
corrects. A bootstrap over few boards is also too narrow, so each side is
widened by the small-sample factor ``t(B-1)/z · sqrt(B/(B-1))`` for ``B``
boards (Student's t against the normal quantile, and the bootstrap's
``(B-1)/B`` variance bias): 1.44 at 6 boards, 1.17 at 12, 1.05 at 40.
``bench/calibration.py`` checks the coverage on Plackett-Luce finishes drawn
from known strengths (``tests/tournament/test_calibration.py`` runs a seeded
small version). With fewer than ``MIN_BOARDS_FOR_INTERVALS`` boards there is
too little to resample and the intervals are unbounded (``-inf``, ``inf``).
An entrant that finished first (or last) at every table has a strength held
only by the prior, in every resample alike: its interval is then narrow on
that side although the truth may lie further out; read it as "at least" (or
"at most").

**Ranks** are interval-aware, as on Chatbot Arena: an entrant's best rank is
1 + the number of entrants whose interval lies wholly above its own, its worst
rank is the number of entrants minus those whose interval lies wholly below.
``"1"`` means nobody can be above; ``"2–4"`` means the data cannot order it
among those places.

How many boards a difference needs: in Market Fortune (Fortune mode, four
seats), a greedy house bot against three random ones in a duplicate
tournament (four rotations per board) has an interval wholly above the
others' as soon as intervals are given, at
``BOARDS_TO_SEPARATE_GREEDY_FROM_RANDOM`` = 5 boards (20 tables), for each
of the 8 seeds tried (``tests/tournament/test_statistics.py`` checks two; the
greedy bot finishes first at nearly every table). Four identical greedy bots get equal
strengths and overlapping intervals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tournament.results import TableResult

__all__ = [
    "BOARDS_TO_SEPARATE_GREEDY_FROM_RANDOM",
    "MIN_BOARDS_FOR_INTERVALS",
    "PRIOR_PRECISION",
    "Bootstrap",
    "Estimate",
    "bootstrap",
    "estimates",
    "fit_report",
    "fit_strengths",
    "interval_ranks",
    "small_sample_factor",
]

PRIOR_PRECISION = 0.01
"""Precision of the zero-mean normal prior on each strength (standard deviation 10)."""

BOARDS_TO_SEPARATE_GREEDY_FROM_RANDOM = 5
"""Boards after which greedy's interval lies wholly above random's (see the module docstring)."""

MIN_BOARDS_FOR_INTERVALS = 5
"""With fewer boards a resample has too little to vary: intervals are then unbounded."""

_NEWTON_STEPS = 100
_TOLERANCE = 1e-10

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Estimate:
    """One entrant's line of the final fit.

    ``strength`` is the Plackett-Luce maximum (log scale, mean 0 over
    entrants); ``low``/``high`` its bootstrap 95% interval; ``rank`` the
    interval-aware rank (``"1"``, ``"2–4"``); ``games`` the tables it played
    (an addition to the spec, with a default).
    """

    entrant: str
    strength: float
    low: float
    high: float
    rank: str
    games: int = 0


@dataclass(frozen=True)
class _Stages:
    """The results as Plackett-Luce stages, in index arrays for numpy.

    Stage ``s`` picks the seats ``players[s][chosen[s]]`` out of the remaining
    ``players[s][present[s]]``; ``table[s]`` is the result it comes from.
    """

    players: npt.NDArray[np.intp]
    present: npt.NDArray[np.bool_]
    chosen: npt.NDArray[np.bool_]
    table: npt.NDArray[np.intp]


def _stages(results: Sequence[TableResult], index: dict[str, int]) -> _Stages:
    """Break every table's placements into stages (one per distinct place)."""
    width = max(result.seats for result in results)
    players: list[list[int]] = []
    present: list[list[bool]] = []
    chosen: list[list[bool]] = []
    tables: list[int] = []
    for number, result in enumerate(results):
        seated = [index[entrant] for entrant in result.seating]
        for place in sorted(set(result.placements)):
            remaining = [seat for seat, p in enumerate(result.placements) if p >= place]
            if len(remaining) == 1:
                break  # the last seat alone: a factor of 1
            players.append([seated[seat] for seat in remaining] + [0] * (width - len(remaining)))
            present.append([True] * len(remaining) + [False] * (width - len(remaining)))
            chosen.append([result.placements[seat] == place for seat in remaining]
                          + [False] * (width - len(remaining)))
            tables.append(number)
    return _Stages(
        players=np.array(players, dtype=np.intp),
        present=np.array(present, dtype=np.bool_),
        chosen=np.array(chosen, dtype=np.bool_),
        table=np.array(tables, dtype=np.intp),
    )


def _maximise(stages: _Stages, entrants: int, table_weights: Floats,
              start: Floats | None = None) -> Floats:
    """The strengths maximising the weighted log-likelihood plus prior (Newton, with backtracking).

    ``start`` is where Newton starts (zeros by default); the maximum is unique,
    so it changes only the time taken.
    """
    weight = table_weights[stages.table]
    picked = stages.chosen.sum(axis=1).astype(np.float64)
    chosen_total = np.bincount(stages.players[stages.chosen],
                               weights=np.repeat(weight, stages.chosen.sum(axis=1)),
                               minlength=entrants)
    flat = (stages.players[:, :, None] * entrants + stages.players[:, None, :]).ravel()
    pair_present = (stages.present[:, :, None] & stages.present[:, None, :]).ravel()

    def objective(theta: Floats) -> float:
        strengths = np.where(stages.present, theta[stages.players], -np.inf)
        top = strengths.max(axis=1)
        log_sum = top + np.log(np.exp(strengths - top[:, None]).sum(axis=1))
        chosen_sum = np.where(stages.chosen, theta[stages.players], 0.0).sum(axis=1)
        return float((weight * (chosen_sum - picked * log_sum)).sum()
                     - PRIOR_PRECISION / 2 * theta @ theta)

    theta: Floats = np.zeros(entrants) if start is None else start.copy()
    value = objective(theta)
    for _ in range(_NEWTON_STEPS):
        strengths = np.where(stages.present, theta[stages.players], -np.inf)
        odds = np.exp(strengths - strengths.max(axis=1)[:, None])
        share = odds / odds.sum(axis=1)[:, None]
        load = (weight * picked)[:, None] * share
        expected = np.bincount(stages.players[stages.present], weights=load[stages.present],
                               minlength=entrants)
        gradient = chosen_total - expected - PRIOR_PRECISION * theta
        outer = (load[:, :, None] * share[:, None, :]).ravel()
        products = np.asarray(np.bincount(flat[pair_present], weights=outer[pair_present],
                                          minlength=entrants * entrants),
                              dtype=np.float64).reshape(entrants, entrants)
        hessian: Floats = products - np.diag(expected) - PRIOR_PRECISION * np.eye(entrants)
        step = np.asarray(np.linalg.solve(hessian, -gradient), dtype=np.float64)
        size = 1.0
        while True:
            candidate = theta + size * step
            candidate_value = objective(candidate)
            if candidate_value >= value - 1e-12 or size < 1e-6:
                break
            size /= 2
        theta, value = candidate, candidate_value
        if float(np.abs(size * step).max()) < _TOLERANCE:
            break
    centred: Floats = theta - theta.mean()
    return centred


def _entrants(results: Sequence[TableResult]) -> list[str]:
    """Every seated entrant, in order of first appearance."""
    return list(dict.fromkeys(entrant for result in results for entrant in result.seating))


def fit_strengths(results: Sequence[TableResult]) -> dict[str, float]:
    """The Plackett-Luce strengths (mean 0 over the seated entrants), no intervals."""
    if not results:
        return {}
    entrants = _entrants(results)
    stages = _stages(results, {entrant: i for i, entrant in enumerate(entrants)})
    theta = _maximise(stages, len(entrants), np.ones(len(results)))
    return {entrant: float(theta[i]) for i, entrant in enumerate(entrants)}


def interval_ranks(intervals: Sequence[tuple[float, float]]) -> list[str]:
    """Interval-aware ranks for ``(low, high)`` intervals (see the module docstring)."""
    count = len(intervals)
    ranks = []
    for low, high in intervals:
        best = 1 + sum(1 for other_low, _ in intervals if other_low > high)
        worst = count - sum(1 for _, other_high in intervals if other_high < low)
        ranks.append(str(best) if best == worst else f"{best}–{worst}")
    return ranks


@dataclass(frozen=True)
class Bootstrap:
    """The fit and its bootstrap resamples, before they are read as intervals.

    ``entrants`` in order of first appearance; ``strengths`` the fit over all
    tables; ``draws`` one row per resample (``samples`` × entrants, empty when
    there are fewer than :data:`MIN_BOARDS_FOR_INTERVALS` boards); ``boards``
    the number of distinct boards.
    """

    entrants: tuple[str, ...]
    strengths: Floats
    draws: Floats
    boards: int

    def intervals(self) -> tuple[Floats, Floats]:
        """The 95% intervals, ``(low, high)`` per entrant (see the module docstring).

        The basic bootstrap: the estimate's distance from each side of the
        resamples' 2.5–97.5 percentile range is laid on the other side, then
        widened by :func:`small_sample_factor`. Unbounded without draws.
        """
        if not len(self.draws):
            return (np.full(len(self.entrants), -np.inf), np.full(len(self.entrants), np.inf))
        widen = small_sample_factor(self.boards)
        below = np.percentile(self.draws, 2.5, axis=0)
        above = np.percentile(self.draws, 97.5, axis=0)
        low: Floats = self.strengths - widen * np.maximum(above - self.strengths, 0.0)
        high: Floats = self.strengths + widen * np.maximum(self.strengths - below, 0.0)
        return low, high

    def stronger(self) -> Floats:
        """``P[i, j]``: the share of resamples in which entrant ``i`` fits stronger than ``j``.

        Ties count half. ``nan`` everywhere without draws.
        """
        count = len(self.entrants)
        if not len(self.draws):
            return np.full((count, count), np.nan)
        ahead = (self.draws[:, :, None] > self.draws[:, None, :]).mean(axis=0)
        level = (self.draws[:, :, None] == self.draws[:, None, :]).mean(axis=0)
        share: Floats = ahead + level / 2
        return share


def bootstrap(results: Sequence[TableResult], *, samples: int = 200,
              seed: int = 0) -> Bootstrap:
    """Fit ``results`` and refit ``samples`` resamples of their boards (seeded by ``seed``).

    :raises ValueError: if ``samples`` < 1.
    """
    if samples < 1:
        raise ValueError(f"the bootstrap needs at least one sample, got {samples}")
    entrants = _entrants(results)
    if not results:
        return Bootstrap((), np.zeros(0), np.zeros((0, 0)), 0)
    stages = _stages(results, {entrant: i for i, entrant in enumerate(entrants)})
    theta = _maximise(stages, len(entrants), np.ones(len(results)))
    boards = sorted({result.board for result in results})
    if len(boards) < MIN_BOARDS_FOR_INTERVALS:
        return Bootstrap(tuple(entrants), theta, np.zeros((0, len(entrants))), len(boards))
    board_of = np.array([boards.index(result.board) for result in results], dtype=np.intp)
    rng = np.random.default_rng(seed)
    draws = np.empty((samples, len(entrants)))
    for sample in range(samples):
        drawn = np.bincount(rng.integers(0, len(boards), len(boards)), minlength=len(boards))
        draws[sample] = _maximise(stages, len(entrants), drawn[board_of].astype(np.float64), theta)
    return Bootstrap(tuple(entrants), theta, draws, len(boards))


def fit_report(results: Sequence[TableResult], *, samples: int = 200,
               seed: int = 0) -> list[Estimate]:
    """The fit, its bootstrap 95% intervals over boards and the ranks; strongest first.

    Deterministic in its arguments (``seed`` drives the resampling).

    :raises ValueError: if ``samples`` < 1.
    """
    return estimates(results, bootstrap(results, samples=samples, seed=seed))


def estimates(results: Sequence[TableResult], fitted: Bootstrap) -> list[Estimate]:
    """The report's lines for a :func:`bootstrap` of ``results``; strongest first."""
    low, high = fitted.intervals()
    return _estimates(results, list(fitted.entrants), fitted.strengths, low, high)


_Z = 1.959963984540054
"""The normal distribution's 97.5th percentile."""


def small_sample_factor(boards: int) -> float:
    """How much wider a bootstrap interval over ``boards`` boards is drawn (see the module doc).

    ``t(boards-1) / z · sqrt(boards / (boards-1))``, the Student quantile by its
    Cornish-Fisher expansion (within 0.2% of the exact one from 4 degrees of
    freedom on).

    :raises ValueError: if ``boards`` < 2.
    """
    if boards < 2:
        raise ValueError(f"a small-sample factor needs at least 2 boards, got {boards}")
    freedom = boards - 1
    z = _Z
    t = (z + (z**3 + z) / (4 * freedom)
         + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * freedom**2)
         + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * freedom**3)
         + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * freedom**4))
    return float(t / z * math.sqrt(boards / freedom))


def _estimates(results: Sequence[TableResult], entrants: list[str], theta: Floats, low: Floats,
               high: Floats) -> list[Estimate]:
    """The estimates, strongest first, with their interval-aware ranks."""
    games = {entrant: 0 for entrant in entrants}
    for result in results:
        for entrant in result.seating:
            games[entrant] += 1
    order = sorted(range(len(entrants)), key=lambda i: (-theta[i], entrants[i]))
    intervals = [(float(low[i]), float(high[i])) for i in order]
    return [
        Estimate(entrant=entrants[i], strength=float(theta[i]), low=interval[0],
                 high=interval[1], rank=rank, games=games[entrants[i]])
        for i, interval, rank in zip(order, intervals, interval_ranks(intervals), strict=True)
    ]
