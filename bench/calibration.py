"""Calibration bench: do the final fit's 95% intervals hold 95%?

Finishing orders are drawn from the Plackett-Luce model itself, with known
strengths, on a real duplicate plan (:func:`tournament.plan.plan_tournament`:
six entrants, four seats, every board in all four rotations), and fitted by
:func:`tournament.fit.bootstrap` exactly as the report fits them. A
scenario fixes the spread of the true strengths, the number of boards and the
per-board **seat luck**: on each board every seat gets a bonus drawn from
``N(0, luck²)``, the same in every rotation (a strong hand dealt to a seat),
which the seated entrant adds to its strength at that table. Seat luck is
noise the model does not have, so it pulls the strengths the fit converges
to towards the average; an interval is judged against those (the fit of
:data:`CONVERGED_BOARDS` boards of the scenario), which without luck are the
true strengths themselves. A scenario is
repeated ``--repeats`` times (each its own seed), and the bench prints per
scenario:

* **coverage**: the share of (repetition, entrant) intervals containing the
  true strength (centred like the fit's, mean 0 over entrants); target
  :data:`COVERAGE_TARGET`;
* **misses inward / outward**: the share with the truth beyond the interval's
  end nearer the average entrant (the fit overstated the entrant's distance
  from the average: a strong entrant's truth below its interval), and beyond
  the far end; neither may exceed twice the other. Pooling plain below and
  above misses over entrants would hide the imbalance, since the strongest
  entrant's misses below mirror the weakest one's above;
* **rank coverage**: the share of interval-aware ranks (``"2–4"``) containing
  the true rank, target at least :data:`RANK_COVERAGE_TARGET`, and their mean
  width in places (``"2–4"`` is 3 places).

    .venv/bin/python bench/calibration.py [--repeats 200] [--samples 200]
        [--scenario NAME ...] [--strict]

``--strict`` exits 1 when a scenario misses a target. Every scenario with 200
repetitions refits 40,000 bootstrap resamples: a few minutes per scenario on
one core.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# Run as a script, this file's folder comes first on sys.path and its own name
# would hide the ``tournament`` package; drop the folder before importing it.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from tournament.fit import bootstrap, estimates, fit_strengths  # noqa: E402
from tournament.plan import plan_tournament  # noqa: E402
from tournament.results import TableResult  # noqa: E402

COVERAGE_TARGET = (0.94, 0.97)
"""The pooled coverage of the 95% intervals must lie in this range."""

RANK_COVERAGE_TARGET = 0.95
"""Interval-aware ranks must contain the true rank at least this often."""

SEATS = 4

CONVERGED_BOARDS = 3000
"""Boards fitted to find the strengths the fit converges to under seat luck."""


@dataclass(frozen=True)
class Scenario:
    """True strengths (mean 0), boards, and the standard deviation of per-board seat luck."""

    name: str
    strengths: tuple[float, ...]
    boards: int
    luck: float


def _spread(width: float) -> tuple[float, ...]:
    """Six strengths evenly spaced over ``[-width/2, width/2]``."""
    return tuple(float(value) for value in np.linspace(-width / 2, width / 2, 6))


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("narrow, 6 boards", _spread(1.0), 6, 0.0),
    Scenario("narrow, 12 boards", _spread(1.0), 12, 0.0),
    Scenario("narrow, 40 boards", _spread(1.0), 40, 0.0),
    Scenario("wide, 12 boards", _spread(3.0), 12, 0.0),
    Scenario("wide, 40 boards", _spread(3.0), 40, 0.0),
    Scenario("narrow, 12 boards, seat luck", _spread(1.0), 12, 0.7),
    Scenario("wide, 40 boards, seat luck", _spread(3.0), 40, 0.7),
)
"""The scenarios benchmarked: spread of strengths, boards, seat luck."""


@dataclass(frozen=True)
class Calibration:
    """One scenario's figures over its repetitions (shares of all entrant intervals)."""

    coverage: float
    inward: float
    outward: float
    rank_coverage: float
    rank_width: float

    def meets_targets(self) -> bool:
        """Coverage in range, balanced misses, ranks covering enough."""
        low, high = COVERAGE_TARGET
        balanced = self.inward <= 2 * self.outward and self.outward <= 2 * self.inward
        return (low <= self.coverage <= high and balanced
                and self.rank_coverage >= RANK_COVERAGE_TARGET)


def synthetic_results(scenario: Scenario, seed: int) -> list[TableResult]:
    """One tournament's finishes drawn from ``scenario``'s Plackett-Luce model.

    Plackett-Luce order = the seats sorted by strength plus a standard Gumbel
    draw (the Gumbel-max form of the model), so a whole order is one draw.
    """
    names = [f"e{number}" for number in range(len(scenario.strengths))]
    strength = dict(zip(names, scenario.strengths, strict=True))
    plans = plan_tournament(format="duplicate", entrants=names, baselines=[], seats=SEATS,
                            boards=scenario.boards, rounds=None, seed=seed)
    rng = np.random.default_rng(seed)
    luck = {board: rng.normal(0.0, scenario.luck, SEATS) if scenario.luck else np.zeros(SEATS)
            for board in range(scenario.boards)}
    results = []
    for plan in plans:
        utility = (np.array([strength[name] for name in plan.seating]) + luck[plan.board]
                   + rng.gumbel(size=SEATS))
        order = np.argsort(-utility)
        places = [0] * SEATS
        for place, seat in enumerate(order):
            places[int(seat)] = place + 1
        results.append(TableResult(index=plan.index, board=plan.board, round=plan.round,
                                   table_id=f"t{plan.index}", seating=plan.seating,
                                   placements=tuple(places), scores=(), reason="finished",
                                   finished_at=float(plan.index)))
    return results


def converged_strengths(scenario: Scenario) -> dict[str, float]:
    """The strengths the fit converges to in ``scenario`` (mean 0; see the module docstring)."""
    names = [f"e{number}" for number in range(len(scenario.strengths))]
    if not scenario.luck:
        centred = np.array(scenario.strengths) - np.mean(scenario.strengths)
        return {name: float(value) for name, value in zip(names, centred, strict=True)}
    many = Scenario(scenario.name, scenario.strengths, CONVERGED_BOARDS, scenario.luck)
    return fit_strengths(synthetic_results(many, seed=-1 % 2**32))


def _rank_span(rank: str) -> tuple[int, int]:
    """``"2–4"`` as ``(2, 4)``; ``"3"`` as ``(3, 3)``."""
    best, _, worst = rank.partition("–")
    return int(best), int(worst or best)


def calibrate(scenario: Scenario, repeats: int, samples: int, first_seed: int = 0) -> Calibration:
    """Fit ``repeats`` synthetic tournaments of ``scenario`` and pool the intervals' record."""
    names = [f"e{number}" for number in range(len(scenario.strengths))]
    truth = converged_strengths(scenario)
    true_rank = {name: 1 + sum(other > truth[name] for other in truth.values()) for name in names}
    counts = {"inside": 0, "inward": 0, "outward": 0, "rank_inside": 0, "rank_width": 0}
    total = 0
    for seed in range(first_seed, first_seed + repeats):
        results = synthetic_results(scenario, seed)
        for line in estimates(results, bootstrap(results, samples=samples, seed=seed)):
            value = truth[line.entrant]
            below, above = value < line.low, value > line.high
            counts["inward"] += below if value > 0 else above
            counts["outward"] += above if value > 0 else below
            counts["inside"] += line.low <= value <= line.high
            best, worst = _rank_span(line.rank)
            counts["rank_inside"] += best <= true_rank[line.entrant] <= worst
            counts["rank_width"] += worst - best + 1
            total += 1
    return Calibration(coverage=counts["inside"] / total, inward=counts["inward"] / total,
                       outward=counts["outward"] / total,
                       rank_coverage=counts["rank_inside"] / total,
                       rank_width=counts["rank_width"] / total)


def main(argv: Sequence[str] | None = None) -> int:
    """Print every chosen scenario's calibration; with ``--strict``, 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--scenario", action="append", choices=[s.name for s in SCENARIOS])
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args(argv)
    chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    print(f"{args.repeats} tournaments per scenario, {args.samples} bootstrap resamples each; "
          f"6 entrants, {SEATS} seats, duplicate (every board in {SEATS} rotations)")
    print(f"{'scenario':<32} {'coverage':>8} {'inward':>7} {'outward':>7} "
          f"{'rank cov':>8} {'rank width':>10}")
    failed = False
    for scenario in chosen:
        figures = calibrate(scenario, args.repeats, args.samples)
        verdict = "ok" if figures.meets_targets() else "MISS"
        failed |= verdict == "MISS"
        print(f"{scenario.name:<32} {figures.coverage:8.3f} {figures.inward:7.3f} "
              f"{figures.outward:7.3f} {figures.rank_coverage:8.3f} {figures.rank_width:10.2f}  "
              f"{verdict}", flush=True)
    print(f"targets: coverage {COVERAGE_TARGET[0]}–{COVERAGE_TARGET[1]}, neither side's misses "
          f"more than twice the other's, rank coverage >= {RANK_COVERAGE_TARGET}")
    return 1 if failed and args.strict else 0


if __name__ == "__main__":
    raise SystemExit(main())
