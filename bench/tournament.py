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
from tournament.standings import standings  # noqa: E402

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
            ) -> dict[str, list[float]]:
    """Per difference, its value in each of ``repeats`` tournaments of one form.

    Each difference is measured twice: on the fitted strengths (its name) and
    on points per table (its name with `` (points)``), which is linear in the
    placements and so does not saturate when one side nearly always wins.
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
        points = {row.entrant: row.points_per_game for row in standings(results, field.entrants)}
        for difference in field.differences:
            values[difference.name].append(difference.of(strengths))
            values[difference.name + " (points)"].append(difference.of(points))
    return values


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
    duplicate = measure(game, mode, field, repeats,
                        lambda entrants, seed: duplicate_plans(entrants, boards, seed),
                        own_chance=own_chance)
    plain = measure(game, mode, field, repeats,
                    lambda entrants, seed: plain_plans(entrants, tables, seed),
                    own_chance=own_chance)
    passed = True
    for number, name in enumerate(duplicate):
        spread_duplicate = statistics.stdev(duplicate[name])
        spread_plain = statistics.stdev(plain[name])
        ratio = spread_duplicate / spread_plain if spread_plain else float("nan")
        verdict = ""
        if number == 0:
            ok = spread_plain > 0 and ratio <= RATIO_TARGET
            passed = passed and ok
            verdict = f"  target <= {RATIO_TARGET}: {'ok' if ok else 'FAIL'}"
        print(f"  {name:>31}: duplicate mean {statistics.fmean(duplicate[name]):+.3f}"
              f" sd {spread_duplicate:.3f} | plain mean {statistics.fmean(plain[name]):+.3f}"
              f" sd {spread_plain:.3f} | ratio {ratio:.2f}{verdict}")
    return passed


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
