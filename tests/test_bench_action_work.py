"""``bench/action_work.py`` times the steps of whole games, and knows when the turn passes."""

from __future__ import annotations

from bench import action_work
from engine.market_fortune.state import MarketFortuneState
from engine.registry import get_game


def test_the_steps_are_whole_games_and_mark_each_change_of_who_acts() -> None:
    game = get_game(action_work.GAME)
    config = game.config_model.model_validate({"mode": action_work.MODE, "seats": action_work.SEATS})
    steps = action_work._played(game, config, 2)
    replayed = 0
    state = game.new_table(config, 0)
    for state_json, seat, action, passes in steps:
        if game.outcome(state) is not None:
            state = game.new_table(config, 1)  # the second game
        assert MarketFortuneState.model_validate_json(state_json) == state
        assert seat == game.to_act(state)[0] and action in game.legal_actions(state, seat)
        after, _ = game.apply(state, seat, action)
        assert passes == (game.to_act(after) != game.to_act(state))
        state, replayed = after, replayed + 1
    assert game.outcome(state) is not None and replayed == len(steps)
    assert any(step[3] for step in steps) and not all(step[3] for step in steps)
