"""Tournament benchmark: how much duplicate play cuts the noise of a rating difference.

House-bot tournaments are played in-process (:mod:`tournament.house`) in two
forms with the same number of tables:

* **duplicate**: ``--boards`` boards, every group playing every board in all
  ``seats`` rotations (``boards × seats`` tables for a field of ``seats``);
* **plain**: as many tables, each on a fresh deal with the field seated in a
  seeded random order.

Each form is repeated over ``--repeats`` tournament seeds; every repetition is
fitted (:func:`tournament.fit.fit_strengths`) and the rating differences named
in :data:`FIELDS` are recorded. The bench prints each difference's mean and
standard deviation per form and the ratio of the standard deviations,
duplicate over plain. Target: at most :data:`RATIO_TARGET` for the mixed
field's greedy-minus-greedy difference (the luck-of-the-deal noise between
equals, which is what duplicate removes; the greedy-minus-random differences
are mostly the prior's, because greedy finishes first almost every time).

    .venv/bin/python bench/tournament.py [--game market-fortune] [--mode fortune]
        [--boards 6] [--repeats 20] [--field mixed] [--strict]

The standard deviation's ratio over a few dozen tournaments is itself noisy
(about ±25% at 30 to 40 per form), so it is printed with a bootstrap 95%
interval over the tournaments. A second, sharper measure uses the duplicate
form alone: the **within-board correlation** ``ρ`` of the first
difference's per-table points (the tables of one board share the deal). A
tournament's mean over ``m`` tables per board has ``1 + (m−1)ρ`` times the
variance of one over as many independent tables; below 1 is duplicate's
gain. It is printed with a bootstrap 95% interval over the tournaments.

It also prints the in-process rate of house-bot tables
(:func:`in_process_tables_per_second`), the baseline against which the
gateway's tournament throughput is compared (games/s through the gateway
divided by this; target at least 0.3). The gateway half is measured by the
gateway's own code; :func:`main` takes ``gateway_rate`` to print the ratio.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path and its own name
# would hide the ``tournament`` package; drop the folder before importing it.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from tournament.fit import fit_strengths  # noqa: E402
from tournament.house import play_plans  # noqa: E402
from tournament.plan import TablePlan, plan_tournament  # noqa: E402
from tournament.results import TableResult  # noqa: E402
from tournament.standings import seat_points, standings  # noqa: E402

RATIO_TARGET = 0.7
"""Duplicate's standard deviation may be at most this share of plain seating's."""


@dataclass(frozen=True)
class Difference:
    """A rating difference measured per tournament: mean strength of ``ahead`` minus ``behind``."""

    name: str
    ahead: tuple[str, ...]
    behind: tuple[str, ...]

    def of(self, values: dict[str, float]) -> float:
        """The difference in one tournament's values (fitted strengths or points per table)."""
        return (statistics.fmean(values[e] for e in self.ahead)
                - statistics.fmean(values[e] for e in self.behind))


@dataclass(frozen=True)
class Field:
    """A field of house bots (ids ``bot#n`` name the bot) and the differences it measures.

    The first difference is the one the target applies to.
    """

    entrants: tuple[str, ...]
    differences: tuple[Difference, ...]


FIELDS: dict[str, Field] = {
    "mixed": Field(
        ("greedy#1", "greedy#2", "random#1", "random#2"),
        (Difference("greedy#1 - greedy#2", ("greedy#1",), ("greedy#2",)),
         Difference("greedy - random", ("greedy#1", "greedy#2"), ("random#1", "random#2")))),
    "greedy-vs-random": Field(
        ("greedy#1", "random#1", "random#2", "random#3"),
        (Difference("random#1 - random#2", ("random#1",), ("random#2",)),
         Difference("greedy - random", ("greedy#1",), ("random#1", "random#2", "random#3")))),
}
"""The fields benchmarked, by name."""


def duplicate_plans(entrants: Sequence[str], boards: int, seed: int) -> list[TablePlan]:
    """The duplicate form: every board in every rotation."""
    return plan_tournament(format="duplicate", entrants=entrants, baselines=[],
                           seats=len(entrants), boards=boards, rounds=None, seed=seed)


def plain_plans(entrants: Sequence[str], tables: int, seed: int) -> list[TablePlan]:
    """The plain form: ``tables`` tables, each its own deal, seated in a seeded random order."""
    rng = random.Random(f"plain:{seed}")
    plans = []
    for index in range(tables):
        seating = list(entrants)
        rng.shuffle(seating)
        plans.append(TablePlan(index=index, round=index, board=index, rotation=0,
                               seating=tuple(seating)))
    return plans


def measure(game: str, mode: str, field: Field, repeats: int,
            form: Callable[[Sequence[str], int], list[TablePlan]], *, own_chance: bool,
            boards: list[dict[int, list[float]]] | None = None) -> dict[str, list[float]]:
    """Per difference, its value in each of ``repeats`` tournaments of one form.

    Each difference is measured twice: on the fitted strengths (its name) and
    on points per table (its name with `` (points)``), which is linear in the
    placements and so does not saturate when one side nearly always wins.
    ``boards``, when given, receives each tournament's
    :func:`board_points_differences` of the first difference.
    """
    values: dict[str, list[float]] = {}
    for difference in field.differences:
        values[difference.name] = []
        values[difference.name + " (points)"] = []
    for repetition in range(repeats):
        plans = form(field.entrants, repetition)
        results: list[TableResult] = play_plans(game=game, mode=mode, plans=plans,
                                                seed=10_000 + repetition, own_chance=own_chance)
        strengths = fit_strengths(results)
        if boards is not None:
            boards.append(board_points_differences(results, field.differences[0]))
        points = {row.entrant: row.points_per_game for row in standings(results, field.entrants)}
        for difference in field.differences:
            values[difference.name].append(difference.of(strengths))
            values[difference.name + " (points)"].append(difference.of(points))
    return values


def board_points_differences(results: Sequence[TableResult], difference: Difference,
                             ) -> dict[int, list[float]]:
    """Per board, the first entrant of each side's points minus the other's, per shared table."""
    by_board: dict[int, list[float]] = {}
    for result in results:
        points = dict(zip(result.seating, seat_points(result.placements), strict=True))
        ahead, behind = difference.ahead[0], difference.behind[0]
        if ahead in points and behind in points:
            by_board.setdefault(result.board, []).append(points[ahead] - points[behind])
    return by_board


def variance_ratio(tournaments: Sequence[dict[int, list[float]]]) -> float:
    """``1 + (m−1)ρ``: the within-board correlation's variance factor (see the module docstring).

    ``ρ`` is the one-way ANOVA intraclass correlation of the per-table
    differences grouped by (tournament, board), ``m`` the tables per board.
    """
    groups = [values for boards in tournaments for values in boards.values() if len(values) > 1]
    size = statistics.fmean(len(values) for values in groups)
    grand = statistics.fmean(value for values in groups for value in values)
    between = sum(len(values) * (statistics.fmean(values) - grand) ** 2 for values in groups)
    within = sum((value - statistics.fmean(values)) ** 2 for values in groups for value in values)
    between_mean = between / (len(groups) - 1)
    within_mean = within / (sum(len(values) for values in groups) - len(groups))
    rho = (between_mean - within_mean) / (between_mean + (size - 1) * within_mean)
    return 1 + (size - 1) * rho


def bootstrap_interval(statistic: Callable[[Sequence[int]], float], count: int,
                       seed: int = 0, samples: int = 1000) -> tuple[float, float]:
    """A percentile 95% interval of ``statistic`` over resamples of ``count`` tournament indices."""
    rng = random.Random(seed)
    values = sorted(statistic([rng.randrange(count) for _ in range(count)])
                    for _ in range(samples))
    return values[int(0.025 * samples)], values[int(0.975 * samples) - 1]


def in_process_tables_per_second(game: str, mode: str, field: Field, tables: int) -> float:
    """House-bot tables per second played in-process (``agents-club simulate``'s path)."""
    plans = plain_plans(field.entrants, tables, seed=1)
    started = time.perf_counter()
    play_plans(game=game, mode=mode, plans=plans, seed=1)
    return tables / (time.perf_counter() - started)


def bench_field(game: str, mode: str, name: str, boards: int, repeats: int, *,
                own_chance: bool) -> bool:
    """Print the two forms' spreads for one field; whether the target difference met the target."""
    field = FIELDS[name]
    seats = len(field.entrants)
    tables = boards * seats
    chance = "own chance per entrant" if own_chance else "house bots' seat-bound chance"
    print(f"{game} ({mode}), field {name}: {', '.join(field.entrants)}; {chance}; "
          f"{tables} tables per tournament, {repeats} tournaments per form")
    per_board: list[dict[int, list[float]]] = []
    duplicate = measure(game, mode, field, repeats,
                        lambda entrants, seed: duplicate_plans(entrants, boards, seed),
                        own_chance=own_chance, boards=per_board)
    plain = measure(game, mode, field, repeats,
                    lambda entrants, seed: plain_plans(entrants, tables, seed),
                    own_chance=own_chance)
    passed = True
    for number, name in enumerate(duplicate):
        spread_duplicate = statistics.stdev(duplicate[name])
        spread_plain = statistics.stdev(plain[name])
        ratio = spread_duplicate / spread_plain if spread_plain else float("nan")
        low, high = bootstrap_interval(
            lambda drawn, name=name: _spread_ratio(  # type: ignore[misc]
                [duplicate[name][i] for i in drawn], [plain[name][i] for i in drawn]), repeats)
        verdict = ""
        if number == 0:
            ok = spread_plain > 0 and ratio <= RATIO_TARGET
            passed = passed and ok
            verdict = f"  target <= {RATIO_TARGET}: {'ok' if ok else 'FAIL'}"
        print(f"  {name:>31}: duplicate mean {statistics.fmean(duplicate[name]):+.3f}"
              f" sd {spread_duplicate:.3f} | plain mean {statistics.fmean(plain[name]):+.3f}"
              f" sd {spread_plain:.3f} | ratio {ratio:.2f} (95% {low:.2f}–{high:.2f}){verdict}")
    first = field.differences[0].name
    factor = variance_ratio(per_board)
    low, high = bootstrap_interval(lambda drawn: variance_ratio([per_board[i] for i in drawn]),
                                   repeats)
    print(f"  {first} within-board variance factor: {factor:.2f} (95% {low:.2f}–{high:.2f}; "
          f"below 1 is duplicate's gain)")
    return passed


def _spread_ratio(duplicate: Sequence[float], plain: Sequence[float]) -> float:
    """Duplicate's standard deviation over plain's (``nan`` when plain's is 0)."""
    spread = statistics.pstdev(plain)
    return statistics.pstdev(duplicate) / spread if spread else float("nan")


def main(argv: list[str] | None = None, *, gateway_rate: float | None = None) -> int:
    """Run the bench; returns the exit status (1 on a failed target with ``--strict``).

    ``gateway_rate`` (tables per second through the gateway, measured by the
    caller) adds the throughput ratio against the in-process rate.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="market-fortune")
    parser.add_argument("--mode", default="fortune")
    parser.add_argument("--boards", type=int, default=6, help="boards per duplicate tournament")
    parser.add_argument("--repeats", type=int, default=20, help="tournaments per form")
    parser.add_argument("--field", action="append", choices=sorted(FIELDS),
                        help="field to play (repeatable; default all)")
    parser.add_argument("--own-chance", action="store_true",
                        help="every entrant draws its own chance at every table (like an agent "
                             "that does not repeat itself) instead of the house bots' seat-bound "
                             "chance")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target fails")
    args = parser.parse_args(argv)
    if args.boards < 1 or args.repeats < 2:
        parser.error("--boards must be at least 1 and --repeats at least 2")
    passed = True
    for name in args.field or list(FIELDS):
        passed = bench_field(args.game, args.mode, name, args.boards, args.repeats,
                             own_chance=args.own_chance) and passed
        print()
    rate = in_process_tables_per_second(args.game, args.mode, FIELDS["mixed"], 20)
    print(f"in-process house-bot tables: {rate:.1f}/s")
    if gateway_rate is not None:
        print(f"through the gateway: {gateway_rate:.1f}/s, ratio {gateway_rate / rate:.2f} "
              f"(target >= 0.3)")
    return 1 if args.strict and not passed else 0


if __name__ == "__main__":
    sys.exit(main())
