"""Instructions per engine step (``apply`` + ``view``), counted by callgrind.

Wall-clock figures on a shared machine move by several per cent from run to
run; an instruction count does not. This plays seeded random games of one
game (the table :mod:`bench.engine` benchmarks), writes every ``(state
before, seat, action)`` to a file as JSON, then runs itself twice under
``valgrind --tool=callgrind``: once stepping through the recorded steps and
once stepping through none. Both runs read every state back from its JSON,
as the gateway holds it; the difference of their totals, divided by the
number of steps, is the cost of one step: ``apply`` and the acting seat's
view of the result (the observation the gateway answers an action with),
and with ``--next-view`` also the view of the seat that decides next when
that is another seat. ``--part apply`` counts ``apply`` alone, ``--part
view`` the acting seat's view alone (of each step's result, itself read back
from JSON first, so no view memo holds it from the ``apply`` before): the two
halves of a step, to tell which one a change moved.

    PYTHONPATH=$PWD .venv/bin/python bench/engine_instructions.py [--game NAME] [--games 1] [--seed 1] [--next-view] [--part step|apply|view]

Needs ``valgrind`` on the ``PATH``; only prints.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path and its own name
# would hide the ``engine`` package; drop the folder before importing it.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from bench.engine import recorded_steps, table_config  # noqa: E402
from engine.registry import get_game  # noqa: E402

_COLLECTED = re.compile(r"Collected : (\d+)")


def record(game_name: str, games: int, seed: int, path: Path) -> int:
    """Write the steps of ``games`` seeded random games to ``path``; returns their number."""
    game = get_game(game_name)
    config = table_config(game)
    rows = []
    for offset in range(games):
        for state, seat, action in recorded_steps(game, config, seed + offset):
            rows.append(json.dumps([state.model_dump_json(), seat, action.id]))
    path.write_text("\n".join(rows) + "\n")
    return len(rows)


def step_through(game_name: str, path: Path, steps: int, next_view: bool, part: str = "step") -> None:
    """Read every recorded state back from JSON, then apply and view the first ``steps``
    (``part``: ``apply`` or ``view`` only, see the module docstring)."""
    game = get_game(game_name)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    recorded = [
        (game.state_model.model_validate_json(state), seat, game.parse_action(action_id))
        for state, seat, action_id in rows
    ]
    results = []
    if part == "view":
        for state, seat, action in recorded:
            after, _ = game.apply(state, seat, action)
            results.append((game.state_model.model_validate_json(after.model_dump_json()), seat))
    gc.collect()
    gc.disable()
    if part == "apply":
        for state, seat, action in recorded[:steps]:
            game.apply(state, seat, action)
        return
    if part == "view":
        for after, seat in results[:steps]:
            game.view(after, seat)
        return
    for state, seat, action in recorded[:steps]:
        after, _ = game.apply(state, seat, action)
        game.view(after, seat)
        if next_view:
            for other in game.to_act(after):
                if other != seat:
                    game.view(after, other)


def instructions(game_name: str, path: Path, steps: int, next_view: bool, part: str = "step") -> int:
    """Total instructions callgrind counts for :func:`step_through` of ``steps`` steps."""
    with tempfile.TemporaryDirectory() as folder:
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={folder}/callgrind.out",
            sys.executable,
            __file__,
            "--game",
            game_name,
            "--measure",
            str(path),
            "--steps",
            str(steps),
            "--part",
            part,
        ]
        if next_view:
            command.append("--next-view")
        # No bytecode written: the first run would otherwise compile what the second
        # only loads, and count the compiling as steps.
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
        done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    found = _COLLECTED.search(done.stderr)
    if found is None:
        raise RuntimeError(f"no callgrind total in:\n{done.stderr}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    """Record, measure both runs and print instructions per step."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="market-fortune")
    parser.add_argument("--games", type=int, default=1, help="seeded random games recorded")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--next-view", action="store_true", help="also view the next deciding seat")
    parser.add_argument(
        "--part", choices=("step", "apply", "view"), default="step", help="count a whole step, or one half"
    )
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--steps", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure is not None:
        step_through(args.game, args.measure, args.steps, args.next_view, args.part)
        return 0
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "steps.jsonl"
        steps = record(args.game, args.games, args.seed, path)
        full = instructions(args.game, path, steps, args.next_view, args.part)
        empty = instructions(args.game, path, 0, args.next_view, args.part)
    if args.part != "step":
        views = f"{args.part} only"
    else:
        views = "apply + acting and next seat's views" if args.next_view else "apply + view"
    print(
        f"{args.game}: {views}  {(full - empty) / steps / 1000:.1f}k instructions per step"
        f"  ({steps} steps of {args.games} games from seed {args.seed}; {full} - {empty} Ir)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
