"""The edge rulings of engine/market_fortune/rulebook.md sections 9 and 12, one scenario each."""

from __future__ import annotations

from typing import Any

from engine.market_fortune import GAME, cards
from engine.market_fortune.audit import hidden_from
from engine.market_fortune.state import Investment, MarketFortuneState
from engine.market_fortune.view import FACE_DOWN
from tests.engine.market_fortune.conftest import MF, InvestmentSpec

NO_PAIRS = ("S.energy.1", "S.banking.2", "S.health.3", "S.retail.4", "R.media.1", "R.mining.2", "R.farming.3", "R.property.4")


def _red(mf: MF, card: str, **kw: Any) -> MarketFortuneState:
    hands = {0: NO_PAIRS[:6], **kw.pop("hands", {})}
    strategies = kw.pop("strategies", {})
    strategies = {**strategies, 0: (card, *strategies.get(0, ()))}
    return mf.build(hands=hands, strategies=strategies, stage="red", **kw)


def test_theft_against_an_empty_hand_takes_and_discards_nothing(mf: MF) -> None:
    state, _ = mf.act(_red(mf, "X.theft.1"), "play:X.theft.1@1", "decline")
    assert state.tasks == () and len(state.seats[0].hand) == 6 and GAME.to_act(state) == [1]


def test_negotiation_with_an_empty_hand_gives_nothing_and_still_takes(mf: MF) -> None:
    state = mf.build(hands={1: ["S.telecom.1"]}, strategies={0: ["X.negotiation.1"]}, stage="red")
    state, _ = mf.act(state, "play:X.negotiation.1@1", "decline")
    assert state.seats[0].hand == ("S.telecom.1",) and state.seats[1].hand == ()


def test_a_second_block_before_the_turn_still_costs_one_turn(mf: MF) -> None:
    state = _red(mf, "X.regulatory_block.1")
    state = state.model_copy(update={"seats": (state.seats[0], state.seats[1].model_copy(update={"skip_next": True}), *state.seats[2:])})
    state, events = mf.act(state, "play:X.regulatory_block.1@1", "decline")
    assert [e.data["seat"] for e in events if e.kind == "skip"] == [1] and GAME.to_act(state) == [2]


def test_a_blocked_seat_loses_its_shrewd_move_extra_turn(mf: MF) -> None:
    state = mf.build(
        hands={0: NO_PAIRS[:6]},
        strategies={0: ["X.shrewd_move.1"], 1: ["X.wrong_analyst.1"]},
        stage="red",
        turn=3,
    )
    state, _ = mf.act(state, "play:X.shrewd_move.1")
    assert GAME.to_act(state) == [0]
    state = state.model_copy(update={"seats": (state.seats[0].model_copy(update={"skip_next": True}), *state.seats[1:])})
    state, _ = mf.act(state, "build:stock_deck")
    assert GAME.to_act(state) == [1]  # no extra turn: turn passes on
    blocked = mf.build(hands={0: NO_PAIRS[:6]}, strategies={0: ["X.shrewd_move.1"]}, stage="red", turn=3)
    blocked = blocked.model_copy(update={"seats": (blocked.seats[0].model_copy(update={"skip_next": True}), *blocked.seats[1:])})
    blocked, events = mf.act(blocked, "play:X.shrewd_move.1")
    assert [e.data["seat"] for e in events if e.kind == "skip"] == [0]
    assert GAME.to_act(blocked) == [1] and blocked.turn == 5  # the skipped turn counts (3.7)


def test_group_reds_need_a_target(mf: MF) -> None:
    ahead = {0: [("S.telecom.1", "R.telecom.1")]}
    inflation = _red(mf, "X.inflation.1", investments=ahead)
    assert "play:X.inflation.1" not in mf.ids(inflation)  # everybody is behind seat 0
    systemic = _red(mf, "X.systemic_risk.1", investments=ahead)
    assert "play:X.systemic_risk.1" not in mf.ids(systemic)  # the only leader is seat 0
    crash = _red(mf, "X.market_crash.1")
    assert "play:X.market_crash.1" in mf.ids(crash)  # playable when nobody has an investment


def test_stablecoin_draws_from_the_rebuilt_deck(mf: MF) -> None:
    others = [c for c in cards.STRATEGY_IDS if c not in ("X.theft.1", "X.stablecoin.1")]
    state = mf.build(hands={0: NO_PAIRS[:6], 1: ["S.telecom.1"]}, strategies={0: ["X.theft.1"], 1: ["X.stablecoin.1"], 2: others}, stage="red")
    state, events = mf.act(state, "play:X.theft.1@1", "defend:X.stablecoin.1")
    # The pile holds Theft and Stablecoin, so the deck is rebuilt from them (4.3).
    assert len(state.seats[1].strategies) == 1 and any(e.kind == "reshuffle" for e in events)


def test_momentum_gives_nothing_when_no_strategy_is_left(mf: MF) -> None:
    state = mf.build(hands={0: ("S.energy.5", "R.energy.5")}, strategies={2: list(cards.STRATEGY_IDS)})
    state, events = mf.act(mf.roll(state, plus=True), "risk:S.energy.5+R.energy.5")
    assert len(state.seats[0].investments) == 1 and state.seats[0].strategies == ()
    assert any(e.kind == "no_strategy" for e in events)


def test_every_wrong_analyst_in_a_group_attack_sends_it_back_once(mf: MF) -> None:
    mine = [("S.telecom.1", "R.telecom.1"), ("S.aerospace.2", "R.aerospace.2")]
    state = _red(mf, "X.market_crash.1", investments={0: mine}, strategies={1: ["X.wrong_analyst.1"], 3: ["X.wrong_analyst.2"]})
    state, _ = mf.act(state, "play:X.market_crash.1", "defend:X.wrong_analyst.1")
    assert GAME.to_act(state) == [0]
    state, _ = mf.act(state, "decline")
    assert state.seats[0].investments == ()
    state, _ = mf.act(state, "decline", "defend:X.wrong_analyst.2", "decline")
    assert state.attack is None and GAME.to_act(state) == [1]


def test_innovation_goes_to_the_strategy_pile_with_its_investment(mf: MF) -> None:
    mixed = Investment(stock="S.telecom.1", ret="R.aerospace.2", innovation="X.innovation.1")
    state = _red(mf, "X.systemic_risk.1", investments={1: [mixed]})
    state, _ = mf.act(state, "play:X.systemic_risk.1", "decline")
    assert state.strategy_pile == ("X.systemic_risk.1", "X.innovation.1")
    assert {"S.telecom.1", "R.aerospace.2"} <= set(state.seats[1].hand)


def test_a_failed_count_loses_the_mark_of_the_returned_investment(mf: MF) -> None:
    marked = Investment(stock="S.energy.1", ret="R.energy.1", marked=True)
    weak: list[InvestmentSpec] = [marked, ("S.banking.1", "R.banking.1"), ("S.health.1", "R.health.1")]
    state = mf.roll(
        mf.build(hands={0: ("S.retail.1", "R.retail.1")}, investments={0: weak}, deck_tops={"strategy_deck": ["X.theft.2"]}),
        plus=True,
    )
    state, _ = mf.act(state, "risk:S.retail.1+R.retail.1", "declare", "return:S.energy.1")
    assert not any(inv.marked for inv in state.seats[0].investments)
    assert all(inv.face_up for inv in state.seats[0].investments)


def test_locked_cards_are_unlocked_when_their_pile_is_shuffled_into_a_deck(mf: MF) -> None:
    state = mf.build(mode="championship", hands={0: NO_PAIRS[:6]}, empty_decks=["stock_deck"])
    below, top = state.stock_pile[0], state.stock_pile[-1]
    state = state.model_copy(update={"locked": ((below, 1), (top, 1))})
    assert mf.view(state, 0).stock_pile[0] == FACE_DOWN
    state, _ = mf.act(state, "build:stock_deck")
    assert state.locked == ((top, 1),) and state.stock_pile == (top,)
    assert top in hidden_from(state, 0) and top not in hidden_from(state, 1)


def test_bailout_cannot_take_a_face_down_card(mf: MF) -> None:
    ahead = {1: [("S.telecom.1", "R.telecom.1")], 2: [("S.mining.1", "R.mining.1")], 3: [("S.media.5", "R.media.5")]}
    state = _red(mf, "X.bailout.1", mode="championship", investments=ahead, stock_pile=["S.aerospace.5", "S.energy.3"])
    state = state.model_copy(update={"locked": (("S.aerospace.5", 2),)})
    state, _ = mf.act(state, "play:X.bailout.1")
    assert mf.ids(state) == ["take:S.energy.3"]


def test_market_crash_losses_lie_face_down_in_championship(mf: MF) -> None:
    state = _red(mf, "X.market_crash.1", mode="championship", investments={2: [("S.mining.3", "R.mining.4")]})
    state, events = mf.act(state, "play:X.market_crash.1", "decline", "decline", "decline")
    assert set(state.locked) == {("S.mining.3", 2), ("R.mining.4", 2)}
    assert "S.mining.3" not in mf.public_text(events)
    assert mf.view(state, 2).stock_pile == ("S.mining.3",) and mf.view(state, 0).stock_pile == (FACE_DOWN,)
