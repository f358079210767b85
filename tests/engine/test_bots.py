"""The generic bot contract: the random bot, bot seeds and the bot lookup."""

from __future__ import annotations

from collections import Counter
from typing import Literal

import pytest

from engine.bots import RANDOM, NoLegalAction, UnknownBot, bot_seed, get_bot
from engine.core import Action, View
from engine.registry import get_game


class Pick(Action):
    kind: Literal["pick"] = "pick"
    number: int

    @property
    def id(self) -> str:
        return f"pick:{self.number}"

    @property
    def text(self) -> str:
        return f"pick {self.number}"


LEGAL = [Pick(number=n) for n in range(5)]
VIEW = View(game="none", seat=0)
ANY_GAME = get_game("market-fortune")
"""The random bot reads no game: any will do."""


def test_random_is_deterministic_per_seed() -> None:
    first = [RANDOM.choose(ANY_GAME, VIEW, LEGAL, 0, seed) for seed in range(200)]
    again = [RANDOM.choose(ANY_GAME, VIEW, LEGAL, 0, seed) for seed in range(200)]
    assert first == again


def test_random_is_roughly_uniform_over_legal_actions() -> None:
    picks = Counter(
        RANDOM.choose(ANY_GAME, VIEW, LEGAL, 0, bot_seed(1, step, 0)).id
        for step in range(5000)
    )
    assert set(picks) == {action.id for action in LEGAL}
    # 1000 expected each; 5 standard deviations is about 140.
    assert all(850 < count < 1150 for count in picks.values()), picks


def test_random_refuses_an_empty_list() -> None:
    with pytest.raises(NoLegalAction):
        RANDOM.choose(ANY_GAME, VIEW, [], 0, 1)


def test_bot_seeds_differ_by_table_step_and_seat() -> None:
    seeds = {bot_seed(table, step, seat) for table in range(5) for step in range(20) for seat in range(4)}
    assert len(seeds) == 5 * 20 * 4
    assert bot_seed(3, 4, 1) == bot_seed(3, 4, 1)
    assert bot_seed(3, 0, 0) != 3  # never the table seed itself


def test_unknown_game_or_bot_is_refused() -> None:
    with pytest.raises(UnknownBot, match="no game"):
        get_bot("no-such-game", "random")


def test_every_game_has_the_random_bot_and_its_own_bots() -> None:
    from engine.bots import available_bots
    from engine.registry import all_games

    for name in all_games():
        assert available_bots(name)["random"] is RANDOM
    assert "greedy" in available_bots("market-fortune")
    with pytest.raises(UnknownBot, match="known: greedy, random"):
        get_bot("market-fortune", "clever")


def test_decide_gives_a_legal_action_from_the_seat_view() -> None:
    from engine.bots import decide
    from engine.market_fortune import GAME
    from engine.market_fortune.state import MarketFortuneConfig

    state = GAME.new_table(MarketFortuneConfig(seats=4), 5)
    seat = GAME.to_act(state)[0]
    choices = {decide(RANDOM, GAME, state, seat, bot_seed(5, 0, n)).id for n in range(60)}
    legal = {action.id for action in GAME.legal_actions(state, seat)}
    assert choices <= legal and len(choices) > 1
    with pytest.raises(NoLegalAction):
        decide(RANDOM, GAME, state, (seat + 1) % 4, 0)
