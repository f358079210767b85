"""The listed legal actions are exactly the actions ``apply`` accepts, on real game states."""

from __future__ import annotations

import pytest

from engine.chance import draw_below
from engine.core import IllegalAction
from engine.hab_und_gut import GAME
from engine.hab_und_gut.actions import parse_action
from engine.hab_und_gut.components import COMMODITIES, MARKET_VALUES
from engine.hab_und_gut.state import HabConfig

EVERY_ID = sorted(
    {"end"}
    | {f"{verb}:{c}" for verb in ("buy", "sell", "donate") for c in COMMODITIES}
    | {
        f"{verb}:{side}:{c}{v:+d}"
        for verb in ("play", "halve")
        for side in ("left", "right")
        for c in COMMODITIES
        for v in MARKET_VALUES
    }
)


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_legal_actions_match_what_apply_accepts(seats: int) -> None:
    for seed in range(4):
        state = GAME.new_table(HabConfig(seats=seats), 500 + seed)
        step = 0
        while GAME.outcome(state) is None:
            seat = state.actor
            listed = {a.id for a in GAME.legal_actions(state, seat)}
            accepted = set()
            for action_id in EVERY_ID:
                try:
                    GAME.apply(state, seat, parse_action(action_id))
                except IllegalAction:
                    continue
                accepted.add(action_id)
            assert listed == accepted, (step, listed ^ accepted)
            assert GAME.default_action(state, seat).id in listed
            for other in range(seats):
                if other != seat:
                    assert GAME.legal_actions(state, other) == []
            legal = sorted(listed)
            state, _ = GAME.apply(
                state, seat, parse_action(legal[draw_below(seed, step, len(legal))])
            )
            step += 1
