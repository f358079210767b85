"""What one action of ``bench/gateway.py``'s game costs in game work alone, measured in-process.

``bench/gateway.py`` compares the throughput of whole actions (HTTP, auth,
Redis, the engine, observations) with a baseline request that does one Redis
GET and SET. This script isolates the part of an action that the baseline
can never share: the game work the gateway does for it, on the same table
configuration (Market Fortune, family mode, two seats), timed with the
gateway's own functions on states read back from JSON (as a worker that did
not write them meets them, so no memo helps):

* ``parse``: the state from its JSON (a worker that did not write it);
* ``apply``: the engine step;
* ``state JSON``: the state the commit stores;
* ``observation``: a seat's observation built and serialised (view, legal
  actions with their texts, the summary), as the action's answer carries one
  and a held observation answers one.

Per action the gateway pays: one parse (on the worker that did not write the
table, only when the turn passes), apply, state JSON, the actor's observation,
and one more observation per turn change (the held observation of the seat
that is to act next). The turn-change share is counted on the played games.
Everything is also printed against one JSON round trip of the state
(``model_dump_json`` + ``model_validate_json``), the in-run baseline
``bench/engine.py`` uses, so the figures mean the same on any machine.

    .venv/bin/python bench/action_work.py [--games 6]

Only prints (information beside the figures of ``bench/gateway.py``).
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path and its own name
# would hide the ``gateway`` package; drop the folder before importing it.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from engine.core import Action, Game, Seat  # noqa: E402
from engine.registry import get_game  # noqa: E402
from gateway.services.loaded_table import LoadedTable  # noqa: E402
from gateway.services.observations import observation  # noqa: E402
from gateway.services.records import SeatRecord, TableRecord  # noqa: E402
from gateway.store.table_rows import TableSnapshot  # noqa: E402

GAME, MODE, SEATS = "market-fortune", "family", 2
"""The table ``bench/gateway.py`` plays."""

Step = tuple[str, Seat, Action, bool]
"""A state's JSON, the seat that acts, its action, and whether who acts changes after it."""


def _record(config: Any) -> TableRecord:
    """A playing two-seat table's record, both seats agents (the bench's tables)."""
    seated: list[SeatRecord | None] = [SeatRecord(agent_id=f"bench-{seat}", name=f"bench{seat}", kind="agent")
              for seat in range(SEATS)]
    return TableRecord(
        id="bench-table", game=GAME, mode=MODE, seats=SEATS, variants=[],
        config=config.model_dump(mode="json"), private=False, turn_timeout_s=600,
        created_by="bench-0", created_at=0.0, status="playing", seated=seated, seed=0,
    )


def _played(game: Game[Any, Any, Any], config: Any, games: int) -> list[Step]:
    """Every step of ``games`` seeded random games."""
    rng = random.Random(1)
    steps: list[Step] = []
    for seed in range(games):
        state = game.new_table(config, seed)
        while game.outcome(state) is None:
            seat = game.to_act(state)[0]
            action = rng.choice(game.legal_actions(state, seat))
            after, _events = game.apply(state, seat, action)
            steps.append((state.model_dump_json(), seat, action, game.to_act(after) != game.to_act(state)))
            state = after
    return steps


def _timed(steps: list[Step], work: Callable[[Any, Step], object], game: Game[Any, Any, Any]) -> float:
    """Mean microseconds of ``work(fresh state, step)`` over every step (states parsed
    before the clock starts, the garbage collector paused as timeit does)."""
    fresh = [game.state_model.model_validate_json(step[0]) for step in steps]
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        for state, step in zip(fresh, steps, strict=True):
            work(state, step)
        elapsed = time.perf_counter() - started
    finally:
        gc.enable()
    return elapsed / len(steps) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6, help="seeded random games to time")
    args = parser.parse_args(argv)
    game = get_game(GAME)
    config = game.config_model.model_validate({"mode": MODE, "seats": SEATS})
    record = _record(config)
    steps = _played(game, config, max(1, args.games))
    turn_share = sum(step[3] for step in steps) / len(steps)

    snapshot = TableSnapshot(table_id=record.id, record_json="", state=None, version=1, seq=1,
                             deadline=None)

    def observe(state: Any, step: Step) -> str:
        loaded = LoadedTable(snapshot=snapshot, record=record, game=game, state=state)
        return observation(loaded, step[1], since=None, spectator_reason=None).model_dump_json()

    costs = {
        "parse": _timed(steps, lambda state, step: game.state_model.model_validate_json(step[0]), game),
        "apply": _timed(steps, lambda state, step: game.apply(state, step[1], step[2]), game),
        "state JSON": _timed(steps, lambda state, step: state.model_dump_json(), game),
        "observation": _timed(steps, observe, game),
    }
    round_trip = _timed(steps, lambda state, step: game.state_model.model_validate_json(
        state.model_dump_json()), game)
    per_action = (costs["apply"] + costs["state JSON"] + costs["observation"]
                  + turn_share * (costs["parse"] + costs["observation"]))
    print(f"{len(steps)} steps of {args.games} games ({GAME}, {MODE}, {SEATS} seats); "
          f"who acts changes after {turn_share:.0%} of them")
    for name, micros in costs.items():
        print(f"  {name:<12} {micros:7.1f} us   {micros / round_trip:5.2f} JSON round trips")
    print(f"game work per action: {per_action:.1f} us = {per_action / round_trip:.2f} JSON round trips "
          f"(apply + state JSON + observation, and per turn change a parse + an observation)")
    print(f"JSON round trip of the state: {round_trip:.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
