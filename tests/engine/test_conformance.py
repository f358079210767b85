"""Every game on the engine contract, checked by the conformance kit (engine.testing).

The registered games run with short caps where they offer them, so whole
games (and Championship matches) end within the test; the toy High Card
(tests/engine/toy_game.py) shows that a small new game passes as it is, and
two broken copies of it show that the kit catches a leak and an apply that
lets a seat act out of turn.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from engine.assembly import AssembledGame, assemble
from engine.core import Event, MalformedAction, Seat, TableConfig
from engine.registry import all_games, get_game, package_of
from engine.testing import check_game
from tests.engine import toy_game
from tests.engine.toy_game import GAME as HIGH_CARD
from tests.engine.toy_game import Choice, HighCardState, HighCardView

SHORT: dict[str, dict[str, Any]] = {
    "market-fortune": {"turn_limit_per_seat": 5, "match_game_limit": 2},
}
"""Per game, config options that keep a random game short (the game's own caps)."""


def _configs(name: str) -> list[TableConfig]:
    game = get_game(name)
    return [
        game.config_model(mode=mode.name, seats=seats, **SHORT.get(name, {}))
        for mode in game.info.modes
        for seats in sorted({mode.min_seats, mode.max_seats})
    ]


@pytest.mark.parametrize("name", sorted(all_games()))
def test_every_registered_game_passes_the_kit(name: str) -> None:
    report = check_game(get_game(name), _configs(name), seeds=(3,), max_steps=300)
    assert report.games == len(_configs(name)) and report.steps > 100
    assert report.refusals > 50 and report.ids_seen > 10
    assert report.finished >= 1


@pytest.mark.parametrize("name", sorted(all_games()))
def test_every_registered_game_is_assembled_as_data(name: str) -> None:
    # One way to make a game (docs/new-game.md): its rule functions, no forwarding class.
    assert isinstance(get_game(name), AssembledGame)
    assert importlib.import_module(package_of(name)).GAME is get_game(name)


def test_the_toy_game_passes_the_kit() -> None:
    configs = [TableConfig(mode="plain", seats=seats) for seats in (2, 3, 4)]
    report = check_game(HIGH_CARD, configs, seeds=(0, 1, 2))
    assert report.games == report.finished == 9
    assert report.refusals > 0 and report.ids_seen >= 5


def _leaky_view(state: HighCardState, seat: Seat | None) -> HighCardView:
    seen = toy_game.view(state, seat)
    return seen.model_copy(update={"pile": (*seen.pile, state.deck[-1])})


def _lax_apply(state: HighCardState, seat: Seat, action: Choice) -> tuple[HighCardState, list[Event]]:
    """Plays whoever sends the action as if it were the seat to act."""
    return toy_game.apply(state, min(state.turn, len(state.hands) - 1), action)


@pytest.mark.parametrize(("part", "breach"), [({"view": _leaky_view}, "names hidden"),
                                              ({"apply": _lax_apply}, "out of turn")])
def test_the_kit_catches_a_broken_game(part: dict[str, Any], breach: str) -> None:
    broken = assemble(**{**toy_game.PARTS, **part})
    configs = [TableConfig(mode="plain", seats=3)]
    with pytest.raises(AssertionError, match=breach):
        check_game(broken, configs, seeds=(0, 1, 2, 3))


def test_an_assembled_game_gets_ids_a_default_action_and_a_summary() -> None:
    state = HIGH_CARD.new_table(TableConfig(mode="plain", seats=2), 4)
    assert [a.id for a in HIGH_CARD.legal_actions(state, 0)] == ["keep", "swap"]
    assert HIGH_CARD.parse_action("swap") == Choice(kind="swap")
    with pytest.raises(MalformedAction):
        HIGH_CARD.parse_action("swap:now")
    assert HIGH_CARD.default_action(state, 0) == Choice(kind="keep")
    assert '"hand"' in HIGH_CARD.summary(state, 0)
