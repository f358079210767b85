"""Setup and the turn: sections 2, 3, 4 and 5 of engine/market_fortune/rulebook.md, one scenario per decision."""

from __future__ import annotations

import re

import pytest

from engine.core import IllegalAction, InvalidConfig, TableConfig
from engine.market_fortune import GAME, cards
from engine.market_fortune.audit import card_locations
from engine.market_fortune.state import Investment, MarketFortuneConfig
from tests.engine.market_fortune.conftest import MF

# Eight building cards of eight industries: no pair can be formed from them.
NO_PAIRS = ("S.energy.1", "S.banking.2", "S.health.3", "S.retail.4", "R.media.1", "R.mining.2", "R.farming.3", "R.property.4")
CARD_ID = re.compile(r"\b[SRX]\.[a-z_]+\.\d\b")


def test_setup_deals_four_stocks_and_four_returns_and_no_strategy() -> None:
    for seats in range(cards.MIN_SEATS, cards.MAX_SEATS + 1):
        state = GAME.new_table(MarketFortuneConfig(seats=seats), seats)
        card_locations(state)
        for seat in state.seats:
            assert sum(c[0] == "S" for c in seat.hand) == cards.STOCKS_DEALT
            assert sum(c[0] == "R" for c in seat.hand) == cards.RETURNS_DEALT
            assert seat.strategies == ()
        assert len(state.strategy_deck) == cards.DECK_SIZE


@pytest.mark.parametrize(
    "config",
    [
        TableConfig(mode="fortune", seats=1),
        TableConfig(mode="fortune", seats=7),
        TableConfig(mode="poker", seats=4),
        TableConfig(mode="fortune", seats=4, variants=("no_such_variant",)),
    ],
)
def test_unplayable_configurations_are_refused(config: TableConfig) -> None:
    with pytest.raises(InvalidConfig):
        GAME.new_table(config, 1)  # type: ignore[arg-type]  # a bare TableConfig on purpose: it must be refused


def test_roll_off_a_single_minus_opens_and_ties_roll_again() -> None:
    # 2.2: every round's contenders are the previous round's "-" seats (or all, if none).
    for seed in range(200):
        state = GAME.new_table(MarketFortuneConfig(seats=5), seed)
        rounds = [dict(re.findall(r"seat (\d) ([+-])", line)) for line in state.roll_off]
        contenders = {str(s) for s in range(5)}
        for faces in rounds:
            assert set(faces) == contenders
            minus = {s for s, face in faces.items() if face == "-"}
            contenders = minus or contenders
        assert contenders == {str(state.active)}


def test_roll_off_cap_lets_the_lowest_seat_still_in_open() -> None:
    # Seed 38065 was found by searching for a 2-seat roll-off without a single "-" in 20 rounds.
    state = GAME.new_table(MarketFortuneConfig(seats=2), 38065)
    assert len(state.roll_off) == cards.ROLL_OFF_LIMIT + 1
    assert f"after {cards.ROLL_OFF_LIMIT} rounds" in state.roll_off[-1]
    last = dict(re.findall(r"seat (\d) ([+-])", state.roll_off[-2]))
    still_in = sorted(int(s) for s in last)
    assert state.active == still_in[0]


def test_build_below_eight_draws_without_discarding(mf: MF) -> None:
    state = mf.build(hands={0: NO_PAIRS[:6]}, deck_tops={"stock_deck": ["S.aerospace.5"]})
    state, _ = mf.act(state, "build:stock_deck")
    assert "S.aerospace.5" in state.seats[0].hand and len(state.seats[0].hand) == 7
    assert GAME.to_act(state) == [1]


def test_build_at_eight_discards_one_and_not_the_card_taken_from_a_pile(mf: MF) -> None:
    state = mf.build(hands={0: NO_PAIRS}, stock_pile=["S.aerospace.5"])
    state, _ = mf.act(state, "build:stock_pile")
    assert state.tasks[0].step == "discard" and state.tasks[0].section == "3.2"
    assert "discard:S.aerospace.5" not in mf.ids(state)
    own, other = mf.view(state, 0).decision, mf.view(state, 1).decision
    assert own is not None and own.forbid == "S.aerospace.5"
    assert other is not None and other.forbid is None
    with pytest.raises(IllegalAction) as error:
        mf.act(state, "discard:S.aerospace.5")
    assert error.value.rule == "3.2"
    state, _ = mf.act(state, "discard:S.energy.1")
    assert state.stock_pile == ("S.energy.1",)
    assert state.seats[0].building_total() == cards.BUILDING_TOTAL
    assert GAME.to_act(state) == [1]


def test_only_the_top_of_a_pile_can_be_taken_and_never_the_strategy_pile(mf: MF) -> None:
    state = mf.build(hands={0: NO_PAIRS[:6]}, stock_pile=["S.aerospace.5", "S.telecom.2"], strategy_pile=["X.theft.1"])
    state, _ = mf.act(state, "build:stock_pile")
    assert "S.telecom.2" in state.seats[0].hand and state.stock_pile == ("S.aerospace.5",)
    assert not any("X." in action_id for action_id in mf.ids(state, 1) if action_id.startswith("build"))


def test_an_empty_deck_reshuffles_its_pile_except_the_top_card(mf: MF) -> None:
    state = mf.build(hands={0: NO_PAIRS[:6]}, empty_decks=["stock_deck"])
    top = state.stock_pile[-1]
    assert state.stock_deck == ()
    state, events = mf.act(state, "build:stock_deck")
    assert state.stock_pile == (top,)
    assert any(e.kind == "reshuffle" for e in events)
    card_locations(state)


def test_a_deck_with_nothing_left_below_its_pile_top_cannot_be_drawn(mf: MF) -> None:
    state = mf.build(hands={0: NO_PAIRS[:6], 1: [c for c in cards.STOCK_IDS if c not in NO_PAIRS][:55]}, empty_decks=["stock_deck"])
    assert len(state.stock_pile) == 1
    assert "build:stock_deck" not in mf.ids(state)
    assert "build:stock_pile" in mf.ids(state)


def test_the_strategy_deck_reshuffles_and_dominate_needs_a_strategy(mf: MF) -> None:
    all_strategies = list(cards.STRATEGY_IDS)
    state = mf.build(hands={0: NO_PAIRS}, empty_decks=["strategy_deck"])
    assert "dominate" in mf.ids(state)
    state, events = mf.act(state, "dominate")
    assert any(e.kind == "reshuffle" for e in events) and len(state.seats[0].strategies) == 1
    nothing = mf.build(hands={0: NO_PAIRS}, strategies={1: all_strategies})
    assert "dominate" not in mf.ids(nothing)
    with pytest.raises(IllegalAction) as error:
        mf.act(nothing, "dominate")
    assert error.value.rule == "4.3"


def test_risk_plus_forms_a_face_down_investment_and_draws_momentum_kept_for_later(mf: MF) -> None:
    hand = (*NO_PAIRS[:6], "S.energy.5", "R.energy.5")
    state = mf.roll(mf.build(hands={0: hand}, deck_tops={"strategy_deck": ["X.shrewd_move.1"]}), plus=True)
    state, events = mf.act(state, "risk:S.energy.5+R.energy.5")
    seat = state.seats[0]
    assert seat.investments == (Investment(stock="S.energy.5", ret="R.energy.5"),)
    assert seat.strategies == ("X.shrewd_move.1",)
    assert GAME.to_act(state) == [1]  # 3.5: the Momentum red cannot be played this turn
    assert "S.energy.5" not in mf.public_text(events)
    assert mf.view(state, 1).players[0].investments[0].stock is None


def test_momentum_red_variant_lets_the_seat_play_a_red_at_once(mf: MF) -> None:
    hand = (*NO_PAIRS[:6], "S.energy.5", "R.energy.5")
    state = mf.build(hands={0: hand}, variants=["momentum_red"], deck_tops={"strategy_deck": ["X.shrewd_move.1"]})
    state, _ = mf.act(mf.roll(state, plus=True), "risk:S.energy.5+R.energy.5")
    assert state.stage == "red" and "play:X.shrewd_move.1" in mf.ids(state)


def test_risk_minus_keeps_the_cards_in_hand_and_tells_no_one_which(mf: MF) -> None:
    hand = (*NO_PAIRS[:6], "S.energy.5", "R.energy.5")
    state = mf.roll(mf.build(hands={0: hand}), plus=False)
    state, events = mf.act(state, "risk:S.energy.5+R.energy.5")
    assert sorted(state.seats[0].hand) == sorted(hand) and state.seats[0].investments == ()
    assert not CARD_ID.search(mf.public_text(events))
    assert GAME.to_act(state) == [1]


def test_risk_needs_one_industry_unless_innovation_is_attached(mf: MF) -> None:
    state = mf.build(hands={0: NO_PAIRS})
    with pytest.raises(IllegalAction) as error:
        mf.act(state, "risk:S.energy.1+R.media.1")
    assert error.value.rule == "3.3"
    state = mf.roll(mf.build(hands={0: NO_PAIRS}, strategies={0: ["X.innovation.1"]}), plus=True)
    assert "risk:S.energy.1+R.media.1+X.innovation.1" in mf.ids(state)
    state, _ = mf.act(state, "risk:S.energy.1+R.media.1+X.innovation.1")
    assert state.seats[0].investments[0].innovation == "X.innovation.1"


def test_dominate_draws_then_at_most_one_red(mf: MF) -> None:
    state = mf.build(
        hands={0: NO_PAIRS},
        strategies={0: ["X.shrewd_move.2", "X.risk_control.1", "X.innovation.2", "X.dividends.1"]},
        deck_tops={"strategy_deck": ["X.theft.1", "X.shrewd_move.1"]},
    )
    state, _ = mf.act(state, "dominate")
    options = mf.ids(state)
    assert options == sorted(options) == ["end", "play:X.shrewd_move.1", "play:X.shrewd_move.2"]
    state, _ = mf.act(state, "play:X.shrewd_move.1")
    assert state.stage == "main" and state.active == 0  # the extra turn, not a second red
    state, _ = mf.act(state, "dominate")  # draws the Theft: a red again
    state, _ = mf.act(state, "end")
    assert GAME.to_act(state) == [1]


def test_optimisation_swaps_then_costs_a_discard(mf: MF) -> None:
    state = mf.build(hands={0: ("S.energy.4", *NO_PAIRS[1:6])}, investments={0: [("S.energy.2", "R.energy.3")]})
    assert "optimise:S.energy.2:S.energy.4" in mf.ids(state)
    assert not any(i.startswith("optimise:R.energy.3") for i in mf.ids(state))  # no Return of energy in hand
    state, _ = mf.act(state, "optimise:S.energy.2:S.energy.4")
    assert state.seats[0].investments[0].stock == "S.energy.4"
    assert state.tasks[0].section == "5.2"
    state, _ = mf.act(state, "discard:S.energy.2")
    assert state.stage == "main" and not any(i.startswith("optimise") for i in mf.ids(state))  # no Stock of energy left
    assert state.seats[0].building_total() == cards.BUILDING_TOTAL - 1


def test_optimisation_keeps_industries_matched_unless_innovation(mf: MF) -> None:
    plain = mf.build(hands={0: NO_PAIRS[:6]}, investments={0: [("S.aerospace.2", "R.aerospace.3")]})
    assert not any(i.startswith("optimise") for i in mf.ids(plain))
    with pytest.raises(IllegalAction) as error:
        mf.act(plain, "optimise:S.aerospace.2:S.energy.1")
    assert error.value.rule == "5.2"
    innovated = Investment(stock="S.aerospace.2", ret="R.telecom.3", innovation="X.innovation.1")
    state = mf.build(hands={0: NO_PAIRS[:6]}, investments={0: [innovated]})
    assert "optimise:S.aerospace.2:S.energy.1" in mf.ids(state)


def test_face_up_investments_cannot_be_optimised(mf: MF) -> None:
    up = Investment(stock="S.energy.2", ret="R.energy.3", face_up=True)
    state = mf.build(hands={0: ("S.energy.4", *NO_PAIRS[1:6])}, investments={0: [up]})
    assert not any(i.startswith("optimise") for i in mf.ids(state))


def test_the_turn_ends_at_eight_building_cards(mf: MF) -> None:
    # 4.1: Buy More discards exactly two; a seat still above 8 trims before its turn ends.
    hand = (*NO_PAIRS, "S.aerospace.1")
    state = mf.build(hands={0: hand}, strategies={0: ["X.buy_more.1"]}, stage="red")
    state, _ = mf.act(state, "play:X.buy_more.1", "draw:stock_deck", "draw:return_deck", "discard:S.energy.1", "discard:S.banking.2")
    assert state.tasks[0].section == "4.1" and state.tasks[0].count == 1
    state, _ = mf.act(state, "discard:S.health.3")
    assert state.seats[0].building_total() == cards.BUILDING_TOTAL and GAME.to_act(state) == [1]


def test_regulatory_block_skips_the_targets_next_turn(mf: MF) -> None:
    state = mf.build(hands={0: NO_PAIRS[:6]}, strategies={0: ["X.regulatory_block.1"]}, stage="red")
    state, events = mf.act(state, "play:X.regulatory_block.1@1", "decline")
    assert [e.data["seat"] for e in events if e.kind == "skip"] == [1]
    assert GAME.to_act(state) == [2] and not state.seats[1].skip_next


def test_shrewd_move_gives_the_same_seat_the_next_turn(mf: MF) -> None:
    state = mf.build(hands={0: NO_PAIRS[:6]}, strategies={0: ["X.shrewd_move.1"]}, stage="red", turn=5)
    state, _ = mf.act(state, "play:X.shrewd_move.1")
    assert GAME.to_act(state) == [0] and state.stage == "main" and state.turn == 6
    state, _ = mf.act(state, "build:stock_deck")
    assert GAME.to_act(state) == [1]


def test_turn_limit_ends_the_game_and_the_leader_wins(mf: MF) -> None:
    state = mf.build(
        seats=2,
        hands={0: NO_PAIRS[:6], 1: ("S.telecom.1", "R.telecom.2")},
        investments={1: [("S.aerospace.2", "R.aerospace.3")]},
        config={"turn_limit_per_seat": 1},
        turn=1,
    )
    state, _ = mf.act(state, "build:stock_deck")
    assert state.stage == "main" and GAME.to_act(state) == [1]
    state, _ = mf.act(state, "build:stock_deck")
    result = GAME.outcome(state)
    assert result is not None and result.reason == "turn_limit" and result.winners == (1,)
