"""The market phase (rulebook 5): one card in full, one at half, from the two holders beside you."""

from __future__ import annotations

import pytest

from engine.core import IllegalAction
from engine.hab_und_gut import GAME
from engine.hab_und_gut.components import TRACK
from engine.hab_und_gut.state import HabState
from tests.engine.hab_und_gut.conftest import HG, TableBuilder


def _market_state(table: TableBuilder, hg: HG, seats: int = 4) -> HabState:
    state = table(seats=seats)
    # Seat 0's left holder is holder 0, its right holder is the last one.
    state = hg.set_holder(state, 0, "M.salt.+6.a", "M.coal.+2.a", "M.coal.+2.b")
    state = hg.set_holder(state, seats - 1, "M.coffee.+6.a", "M.tea.-4.a")
    return hg.finish_stock_phase(state)


def _price(state: HabState, commodity: str) -> int:
    return TRACK[
        state.prices[("coal", "wheat", "coffee", "rubber", "tea", "salt").index(commodity)]
    ]


def test_a_seat_plays_one_card_in_full_and_halves_one_from_the_other_holder(table: TableBuilder, hg: HG) -> None:
    state = _market_state(table, hg)
    assert [a.id for a in GAME.legal_actions(state, 0)] == [
        "play:left:coal+2", "play:left:salt+6", "play:right:coffee+6", "play:right:tea-4",
    ]  # fmt: skip
    state, events = hg.act(state, 0, "play:left:salt+6")
    assert _price(state, "salt") == TRACK[8 + 6]
    assert [a.id for a in GAME.legal_actions(state, 0)] == [
        "halve:right:coffee+6",
        "halve:right:tea-4",
    ]
    state, events = hg.act(state, 0, "halve:right:coffee+6")
    assert _price(state, "coffee") == TRACK[8 + 3]
    assert state.discards == ("M.salt.+6.a", "M.coffee.+6.a")
    assert events[0].kind == "card_played" and events[0].data["mode"] == "half"
    assert state.actor == 1


def test_both_cards_may_not_come_from_the_same_holder(table: TableBuilder, hg: HG) -> None:
    state, _ = hg.act(_market_state(table, hg), 0, "play:left:salt+6")
    with pytest.raises(IllegalAction) as caught:
        GAME.apply(state, 0, GAME.parse_action("halve:left:coal+2"))
    assert caught.value.rule == "5.1"


def test_the_full_card_comes_first(table: TableBuilder, hg: HG) -> None:
    state = _market_state(table, hg)
    with pytest.raises(IllegalAction) as caught:
        GAME.apply(state, 0, GAME.parse_action("halve:right:tea-4"))
    assert caught.value.rule == "5.2"
    state, _ = hg.act(state, 0, "play:right:tea-4")
    with pytest.raises(IllegalAction) as caught:
        GAME.apply(state, 0, GAME.parse_action("play:left:salt+6"))
    assert caught.value.rule == "5.2"


def test_a_card_that_is_not_in_the_holder_cannot_be_picked(table: TableBuilder, hg: HG) -> None:
    with pytest.raises(IllegalAction) as caught:
        GAME.apply(_market_state(table, hg), 0, GAME.parse_action("play:left:wheat+6"))
    assert caught.value.rule == "5.1"


def test_negative_cards_halve_towards_zero_spaces(table: TableBuilder, hg: HG) -> None:
    state, _ = hg.act(_market_state(table, hg), 0, "play:left:coal+2", "halve:right:tea-4")
    assert _price(state, "tea") == TRACK[8 - 2]
    assert _price(state, "coal") == TRACK[8 + 2]


def test_a_duplicate_face_removes_the_lowest_id(table: TableBuilder, hg: HG) -> None:
    state, _ = hg.act(_market_state(table, hg), 0, "play:left:coal+2")
    assert "M.coal.+2.a" in state.discards and "M.coal.+2.b" in state.holders[0]


def test_prices_stop_at_the_ends_of_the_track(table: TableBuilder, hg: HG) -> None:
    state = hg.with_prices(_market_state(table, hg), salt=235, tea=5)
    state, _ = hg.act(state, 0, "play:left:salt+6", "halve:right:tea-4")
    assert _price(state, "salt") == 250
    assert _price(state, "tea") == 0


def test_each_seat_uses_its_own_left_and_right_holders(table: TableBuilder, hg: HG) -> None:
    state = hg.set_holder(table(seats=3), 1, "M.wheat.+4.a")
    state = hg.finish_stock_phase(state)
    state, _ = hg.act(state, 0, GAME.legal_actions(state, 0)[0].id)
    state, _ = hg.act(state, 0, GAME.legal_actions(state, 0)[0].id)
    # Seat 1 sees holder 1 on its left and holder 0 on its right.
    assert "play:left:wheat+4" in [a.id for a in GAME.legal_actions(state, 1)]
    assert all(h.holder in (1, 0) for h in hg.view(state, 1).holders)


def test_every_holder_loses_exactly_two_cards_a_turn(table: TableBuilder, hg: HG) -> None:
    for seats in (3, 4, 5):
        state = table(seats=seats)
        for turn in range(1, 5):
            state = hg.play_turns(state, 1)
            if turn < 4:
                assert [len(h) for h in state.holders] == [8 - 2 * turn] * seats


def test_the_market_runs_clockwise_from_the_first_player_who_moves_left_each_turn(
    table: TableBuilder, hg: HG
) -> None:
    state = table(seats=3)
    openers = []
    for _ in range(8):
        openers.append(state.first_player)
        state = hg.finish_stock_phase(state)
        order = []
        turn = state.turn
        while state.phase == "market" and state.turn == turn:
            if state.full_side is None:
                order.append(state.actor)
            state, _ = GAME.apply(state, state.actor, GAME.legal_actions(state, state.actor)[0])
        assert order == [(openers[-1] + i) % 3 for i in range(3)]
    assert openers == [0, 1, 2, 0, 1, 2, 0, 1]


def test_the_default_action_picks_a_legal_card(table: TableBuilder, hg: HG) -> None:
    state = _market_state(table, hg)
    first = GAME.default_action(state, 0)
    assert first.id == "play:left:coal+2"
    state, _ = GAME.apply(state, 0, first)
    assert GAME.default_action(state, 0) in GAME.legal_actions(state, 0)
