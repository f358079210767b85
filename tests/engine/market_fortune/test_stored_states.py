"""Stored tables keep loading: a state's JSON keeps its shape.

``data/stored_states.jsonl`` holds states (one JSON document a line) dumped
by the engine at commit 6b08409, picked from seeded random Fortune and
Championship games so that between them they hold every optional part of a
state. The gateway keeps tables as this JSON, so every line must load, dump
back byte for byte, and play on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.market_fortune import GAME
from engine.market_fortune.state import MarketFortuneState

STORED = (Path(__file__).parent / "data" / "stored_states.jsonl").read_text().splitlines()


def _parts(state: MarketFortuneState) -> set[str]:
    """The optional parts ``state`` holds."""
    investments = [inv for seat in state.seats for inv in seat.investments]
    present = {
        "attack": state.attack is not None,
        "attack defender": state.attack is not None and state.attack.defender is not None,
        "attack queue": state.attack is not None and bool(state.attack.queue),
        "task": bool(state.tasks),
        "task forbid": any(task.forbid is not None for task in state.tasks),
        "task other": any(task.other is not None for task in state.tasks),
        "task locked": any(task.locked for task in state.tasks),
        "reveal": any(seat.revealed is not None for seat in state.seats),
        "marked": any(inv.marked for inv in investments),
        "face up": any(inv.face_up for inv in investments),
        "innovation": any(inv.innovation is not None for inv in investments),
        "skip next": any(seat.skip_next for seat in state.seats),
        "match total": any(seat.match_total for seat in state.seats),
        "locked pile cards": bool(state.locked),
        "momentum": state.momentum is not None,
        "extra turn": state.extra_turn,
        "last game": state.last_game is not None,
        "result": state.result is not None,
    }
    return {part for part, held in present.items() if held}


def test_the_stored_states_hold_every_optional_part() -> None:
    held = set().union(*(_parts(MarketFortuneState.model_validate_json(line)) for line in STORED))
    assert held == {
        "attack", "attack defender", "attack queue", "task", "task forbid", "task other", "task locked",
        "reveal", "marked", "face up", "innovation", "skip next", "match total", "locked pile cards",
        "momentum", "extra turn", "last game", "result",
    }  # fmt: skip


@pytest.mark.parametrize("line", STORED)
def test_a_stored_state_loads_and_dumps_back_unchanged(line: str) -> None:
    assert MarketFortuneState.model_validate_json(line).model_dump_json() == line


@pytest.mark.parametrize("line", STORED)
def test_a_stored_state_plays_on(line: str) -> None:
    state = MarketFortuneState.model_validate_json(line)
    for seat in (*GAME.to_act(state), None):
        GAME.view(state, seat)
        GAME.summary(state, seat)
    for seat in GAME.to_act(state):
        after, _ = GAME.apply(state, seat, GAME.default_action(state, seat))
        assert MarketFortuneState.model_validate_json(after.model_dump_json()) == after
