"""Engine benchmark: playout speed, state size, and step cost against a JSON round trip.

For every game in :func:`engine.registry.all_games` (with a per-game table
configuration, 4 seats where the game allows it) this prints:

* random playouts per second and steps per second (informational);
* the JSON size of mid-game states (the state half-way through a seeded random
  game), target at most 8 KB for the largest one;
* the ratio of one ``apply`` + ``view`` step to one JSON round trip of the
  state (``model_dump_json`` + ``model_validate_json``), target at most 0.5
  for Market Fortune (:data:`STEP_RATIO_TARGETS`; other games: information).
  The round trip is the in-run baseline, so the ratio means the same on a slow
  or a fast machine: the gateway pays a round trip per action anyway, and the
  rules should cost well under that. Both sides are timed on the same states,
  every step of whole seeded random games played in a child process, each
  state read back from its JSON as the gateway holds it (no object shared
  with the step before, no view of it built here before it is timed), with
  the garbage collector paused as timeit does. The same figure on the
  playout's own states (which share unchanged parts and were viewed during
  the playout, so caches hit) is printed after it, for information only.

    .venv/bin/python bench/engine.py [--game NAME] [--seconds 3] [--strict] [--against DIR]

Only prints; ``--strict`` makes a FAIL exit with status 1. ``--against DIR``
first measures the engine of another checkout (``DIR``, e.g. a worktree at an
older commit: ``git worktree add --detach /tmp/before <commit>``) with this
file's code, in a child process that imports ``engine`` from ``DIR``, then this
checkout's: before and after in one run, on the same machine.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path and its own name
# would hide the ``engine`` package; drop the folder before importing it.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from engine.bots import RANDOM  # noqa: E402
from engine.core import Action, Game, Seat, TableConfig  # noqa: E402
from engine.registry import all_games, get_game  # noqa: E402
from engine.simulation import play_table  # noqa: E402

STATE_SIZE_TARGET = 8 * 1024
"""Bytes of JSON a mid-game state may take at most."""
STEP_RATIO_TARGETS: dict[str, float] = {"market-fortune": 0.5}
"""Per game, the share of a JSON round trip ``apply`` + ``view`` may cost at most.

The target is the Market Fortune engine's (4 seats, Fortune mode). Other
games print their ratio for information: Hab & Gut's state is a third the
size (its round trip about half as dear) while a step does about as much
work, so the same share would ask a step twice as cheap as Market Fortune's.
"""

TABLES: dict[str, tuple[str, int]] = {
    "market-fortune": ("fortune", 4),
    "hab-und-gut": ("standard", 4),
}
"""Game name -> (mode, seats) to benchmark; other games get their first mode."""

SAMPLE_GAMES = 20
"""Seeded games whose mid-game states are measured."""
RATIO_GAMES = 4
"""Seeded games whose every step is timed for the ratio."""


def table_config(game: Game[Any, Any, Any]) -> TableConfig:
    """The configuration benchmarked for ``game``."""
    mode_name, seats = TABLES.get(game.info.name, (game.info.modes[0].name, 4))
    mode = next(m for m in game.info.modes if m.name == mode_name)
    seats = max(mode.min_seats, min(mode.max_seats, seats))
    config: TableConfig = game.config_model(mode=mode.name, seats=seats)
    return config


def verdict(passed: bool) -> str:
    """PASS or FAIL."""
    return "PASS" if passed else "FAIL"


@dataclass(frozen=True)
class Throughput:
    """Random playouts run for a fixed time."""

    games: int
    steps: int
    seconds: float


def measure_throughput(
    game: Game[Any, Any, Any], config: TableConfig, seed: int, budget: float
) -> Throughput:
    """Play seeded random games until ``budget`` seconds have passed."""
    bots = [RANDOM] * config.seats
    games = steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < budget or games == 0:
        steps += play_table(game, config, seed + games, bots).steps
        games += 1
    return Throughput(games, steps, time.perf_counter() - start)


def mid_game_states(game: Game[Any, Any, Any], config: TableConfig, seed: int) -> list[Any]:
    """The state half-way through each of :data:`SAMPLE_GAMES` seeded random games."""
    states = []
    for offset in range(SAMPLE_GAMES):
        playout = play_table(game, config, seed + offset, [RANDOM] * config.seats)
        state = game.new_table(config, seed + offset)
        for seat, action_id in playout.log[: playout.steps // 2]:
            state, _ = game.apply(state, seat, game.parse_action(action_id))
        states.append(state)
    return states


def recorded_steps(
    game: Game[Any, Any, Any], config: TableConfig, seed: int
) -> list[tuple[Any, Seat, Action]]:
    """Every ``(state before, seat, action)`` of :data:`RATIO_GAMES` seeded random games,
    played in this process."""
    steps: list[tuple[Any, Seat, Action]] = []
    for offset in range(RATIO_GAMES):
        playout = play_table(game, config, seed + offset, [RANDOM] * config.seats)
        state = game.new_table(config, seed + offset)
        for seat, action_id in playout.log:
            action = game.parse_action(action_id)
            steps.append((state, seat, action))
            state, _ = game.apply(state, seat, action)
    return steps


def recorded_elsewhere(
    game: Game[Any, Any, Any], config: TableConfig, seed: int
) -> list[tuple[Any, Seat, Action]]:
    """The steps of :func:`recorded_steps`, played in a child process and read back here
    from their JSON, as the gateway holds each state.

    The playout's bots look at the view of every state they decide on, and the
    engine remembers views by value. Recorded in this process, the timed views
    of those very states would come out of that memory, which a gateway worker,
    seeing each new state for the first time, does not have. The timing
    process meets each state first when it times it, and its memory fills
    only as a worker's would: from the steps before.
    """
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        rows: list[tuple[str, Seat, str]] = pool.apply(
            _recorded_json, (game.info.name, config.model_dump(mode="json"), seed)
        )
    return [
        (game.state_model.model_validate_json(state), seat, game.parse_action(action_id))
        for state, seat, action_id in rows
    ]


def _recorded_json(game_name: str, config: dict[str, Any], seed: int) -> list[tuple[str, Seat, str]]:
    """:func:`recorded_steps` as JSON, state by state (run in the child process)."""
    game = get_game(game_name)
    steps = recorded_steps(game, game.config_model.model_validate(config), seed)
    return [(state.model_dump_json(), seat, action.id) for state, seat, action in steps]


REPEATS = 5
"""Timed rounds, each on its own games; the median round's ratio is reported.

Five, not three: on a shared machine one round in three or four can be
slowed by other load, and the median of three then moved by a few hundredths."""


def measure_step_ratio(
    game: Game[Any, Any, Any], config: TableConfig, seed: int, *, fresh: bool = True
) -> tuple[float, float]:
    """Seconds of one ``apply`` + ``view`` and of one JSON round trip, on the same states.

    Each of :data:`REPEATS` rounds records the steps of its own
    :data:`RATIO_GAMES` seeded random games in a child process
    (:func:`recorded_elsewhere`: no state was viewed in this process before it
    is timed, and none shares an object with the step before, as in the
    gateway) and times both sides on the same states: the step applies the
    recorded action and builds the acting seat's view of the result; the
    round trip dumps the state to JSON and validates it back. Returns the round
    with the median ratio.

    ``fresh=False`` records in this process and times the playout's own
    states, which share every unchanged part with the step before and whose
    views were built during the playout, as in a simulation: caches then
    hit, so that figure is only informative.
    """
    rounds: list[tuple[float, float]] = []
    for repeat in range(REPEATS):
        record = recorded_elsewhere if fresh else recorded_steps
        steps = record(game, config, seed + 1000 * (repeat + 1))
        states = [state for state, _, _ in steps]
        # Like timeit, pause the garbage collector while timing: the thousands of
        # states held here would make any full collection cost milliseconds,
        # charged to whichever side happened to allocate at that moment.
        gc.collect()
        gc.disable()
        try:
            rounds.append(_time_both(game, states, steps))
        finally:
            gc.enable()
    rounds.sort(key=lambda times: times[0] / times[1])
    return rounds[len(rounds) // 2]


def _time_both(
    game: Game[Any, Any, Any], states: list[Any], steps: list[tuple[Any, Seat, Action]]
) -> tuple[float, float]:
    """Seconds per step of ``apply`` + ``view``, then of a JSON round trip, on ``states``."""
    state_model = game.state_model
    start = time.perf_counter()
    for state, (_, seat, action) in zip(states, steps, strict=True):
        after, _ = game.apply(state, seat, action)
        game.view(after, seat)
    step_time = (time.perf_counter() - start) / len(steps)
    start = time.perf_counter()
    for state in states:
        state_model.model_validate_json(state.model_dump_json())
    round_trip = (time.perf_counter() - start) / len(steps)
    return step_time, round_trip


def bench_game(game: Game[Any, Any, Any], seed: int, budget: float) -> bool:
    """Print the figures for one game; returns whether every target passed."""
    config = table_config(game)
    print(f"{game.info.name} ({config.mode}, {config.seats} seats)")

    throughput = measure_throughput(game, config, seed, budget)
    print(
        f"  random playouts      {throughput.games / throughput.seconds:9.1f} games/s"
        f"  {throughput.steps / throughput.seconds:10.0f} steps/s"
        f"  ({throughput.games} games, {throughput.steps} steps in {throughput.seconds:.1f} s)"
    )

    sizes = [len(state.model_dump_json().encode()) for state in mid_game_states(game, config, seed)]
    size_ok = max(sizes) <= STATE_SIZE_TARGET
    print(
        f"  mid-game state JSON  mean {statistics.mean(sizes) / 1024:5.2f} KB, max {max(sizes) / 1024:5.2f} KB"
        f"  target max <= {STATE_SIZE_TARGET / 1024:.1f} KB  {verdict(size_ok)}"
    )

    step_time, round_trip = measure_step_ratio(game, config, seed)
    ratio = step_time / round_trip
    target = STEP_RATIO_TARGETS.get(game.info.name)
    ratio_ok = target is None or ratio <= target
    print(
        f"  apply+view / JSON round trip  {ratio:5.2f}"
        f"  ({step_time * 1e6:.0f} us / {round_trip * 1e6:.0f} us)"
        + (f"  target <= {target:.2f}  {verdict(ratio_ok)}" if target is not None
           else "  (information: no target for this game)")
        + "  (states read back from JSON, as the gateway holds them)"
    )
    step_time, round_trip = measure_step_ratio(game, config, seed, fresh=False)
    print(
        f"  apply+view / JSON round trip  {step_time / round_trip:5.2f}"
        f"  ({step_time * 1e6:.0f} us / {round_trip * 1e6:.0f} us)"
        "  informative: a playout's own states, sharing unchanged parts"
    )
    return size_ok and ratio_ok


def main(argv: list[str] | None = None) -> int:
    """Benchmark the chosen games (default: all); returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="game to benchmark (repeatable; default all)")
    parser.add_argument("--seconds", type=float, default=3.0, help="playout time per game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target fails")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="first measure the engine of the checkout in DIR (before)")
    args = parser.parse_args(argv)
    games = all_games()
    chosen = args.game or list(games)
    unknown = [name for name in chosen if name not in games]
    if unknown:
        print(f"unknown game(s): {', '.join(unknown)}; installed: {', '.join(games)}", file=sys.stderr)
        return 2
    passed = True
    for name in chosen:
        if args.against is not None:
            _bench_elsewhere(args.against, name, args.seed, args.seconds)
            print(f"after: the engine of {Path(sys.modules['engine'].__file__ or '.').parent.parent}",
                  flush=True)
        passed = bench_game(games[name], args.seed, args.seconds) and passed
        print()
    return 1 if args.strict and not passed else 0


def _bench_elsewhere(root: Path, game: str, seed: int, seconds: float) -> None:
    """Print the figures of ``game`` for the engine of the checkout at ``root``: this file
    run again with ``root`` first on the import path."""
    print(f"before: the engine of {root.resolve()}", flush=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(root.resolve()), *filter(None, [os.environ.get("PYTHONPATH")])])}
    subprocess.run([sys.executable, __file__, "--game", game, "--seed", str(seed),
                    "--seconds", str(seconds)], env=env, check=True)


if __name__ == "__main__":
    sys.exit(main())
