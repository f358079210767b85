"""Where the printed rulebooks speak, the table follows them (3.4, 3.5, 4.1, 5.2, 8.1, 8.2).

Each test names the section of docs/market-fortune.md it checks, and that
section says which sentence is printed and which is ours.
"""

from __future__ import annotations

import pytest

from engine.core import IllegalAction
from engine.market_fortune import GAME, cards
from engine.market_fortune.audit import hidden_from
from engine.market_fortune.state import MarketFortuneState, Mode
from tests.engine.market_fortune.conftest import MF

NO_PAIRS = ("S.energy.1", "S.banking.2", "S.health.3", "S.retail.4", "R.media.1", "R.mining.2", "R.farming.3", "R.property.4")
WEAK_THREE = [("S.energy.5", "R.energy.3"), ("S.banking.4", "R.banking.4"), ("S.health.3", "R.health.2")]
"""Three investments worth 21M: a 4th of 3M + 1M makes a count of 25M."""


def _rule_of(state: MarketFortuneState, action_id: str) -> str | None:
    with pytest.raises(IllegalAction) as caught:
        GAME.apply(state, GAME.to_act(state)[0], GAME.parse_action(action_id))
    return caught.value.rule


# -- 3.4 Dominate: a blue, green or yellow drawn ends the turn -------------------------------


@pytest.mark.parametrize("drawn", ["X.risk_control.1", "X.innovation.1", "X.dividends.1"])
def test_a_non_red_drawn_on_dominate_is_kept_and_ends_the_turn(mf: MF, drawn: str) -> None:
    # 3.4 (printed): "blue, green or yellow ones are kept"; blue row "keep it and end".
    state = mf.build(hands={0: NO_PAIRS}, strategies={0: ["X.shrewd_move.1"]}, deck_tops={"strategy_deck": [drawn]})
    state, events = mf.act(state, "dominate")
    assert state.seats[0].strategies == ("X.shrewd_move.1", drawn)
    assert GAME.to_act(state) == [1] and state.active == 1
    assert not any(e.kind == "play" for e in events)
    assert _rule_of(state, "play:X.shrewd_move.1") == "3.1"


def test_a_red_drawn_on_dominate_opens_the_choice_of_any_red(mf: MF) -> None:
    # 3.4 (printed): "A red one you may use or keep"; FAQ: use any you like if it's Instant.
    state = mf.build(hands={0: NO_PAIRS}, strategies={0: ["X.shrewd_move.1"]}, deck_tops={"strategy_deck": ["X.theft.1"]})
    state, _ = mf.act(state, "dominate")
    assert state.stage == "red" and GAME.to_act(state) == [0]
    assert "play:X.shrewd_move.1" in mf.ids(state) and "play:X.theft.1@1" in mf.ids(state)


# -- 3.5 / 8.1 Momentum: kept, not used when winning ----------------------------------------


@pytest.mark.parametrize(("momentum", "mode"), [("X.dividends.1", "fortune"), ("X.short_investment.1", "fortune"),
                                                ("X.dividends.2", "championship")])
def test_the_momentum_strategy_of_the_fourth_investment_does_not_count(mf: MF, momentum: str, mode: Mode) -> None:
    # 3.5, 8.1 (printed glossary): Momentum "is kept (not used when winning)".
    short = [("S.energy.5", "R.energy.3"), ("S.banking.4", "R.banking.4"), ("S.health.3", "R.health.1")]
    state = mf.build(mode=mode, hands={0: ("S.media.3", "R.media.1")}, investments={0: short},
                     deck_tops={"strategy_deck": [momentum]})  # 20M + 4M = 24M before the Momentum card
    state, _ = mf.act(mf.roll(state, plus=True), "risk:S.media.3+R.media.1")
    assert state.momentum == momentum and momentum in state.seats[0].strategies
    assert mf.view(state, 0).momentum == momentum and mf.view(state, 1).momentum is None
    state, events = mf.act(state, "declare")
    assert [e.data["total"] for e in events if e.kind == "count"] == [24]
    assert GAME.outcome(state) is None and state.tasks[0].section == "8.2"
    assert state.seats[0].match_total == 0


def test_a_momentum_strategy_from_an_earlier_turn_counts(mf: MF) -> None:
    # 3.5: the card is only set aside on the turn Momentum gave it; later it is an ordinary yellow.
    short = [("S.energy.5", "R.energy.3"), ("S.banking.4", "R.banking.4"), ("S.health.3", "R.health.1")]
    state = mf.build(hands={0: ("S.media.3", "R.media.1")}, investments={0: short}, strategies={0: ["X.dividends.1"]},
                     deck_tops={"strategy_deck": ["X.theft.1"]})
    state, events = mf.act(mf.roll(state, plus=True), "risk:S.media.3+R.media.1", "declare")
    assert [e.data["total"] for e in events if e.kind == "count"] == [26]
    assert mf.outcome(state).winners == (0,)


def test_momentum_is_cleared_when_the_turn_passes(mf: MF) -> None:
    state = mf.build(hands={0: ("S.media.3", "R.media.2", *NO_PAIRS[:6])}, deck_tops={"strategy_deck": ["X.dividends.1"]})
    state, _ = mf.act(mf.roll(state, plus=True), "risk:S.media.3+R.media.2")
    assert GAME.to_act(state) == [1] and state.momentum is None


# -- 4.1 Build below 8 draws without discarding (ours, argued in 4.1) -------------------------


def test_a_market_crash_victim_builds_back_to_eight(mf: MF) -> None:
    # 4.1: with a discard on every Build, a seat left with 2 cards could never hold 4 investments again.
    state = mf.build(hands={0: ("S.aerospace.1", "R.aerospace.2"), 1: NO_PAIRS}, active=0)
    totals = []
    for _ in range(6):
        state, _ = mf.act(state, "build:stock_deck")
        totals.append(state.seats[0].building_total())
        while GAME.to_act(state) != [0]:
            state, _ = mf.act(state, GAME.default_action(state, GAME.to_act(state)[0]).id)
    assert totals == [3, 4, 5, 6, 7, 8]
    state, _ = mf.act(state, "build:stock_deck")
    assert state.tasks[0].section == "3.2" and state.seats[0].building_total() == 9


# -- 5.2 Optimisation: no limit on how often, a card each time (printed) ---------------------


def test_a_seat_may_optimise_several_times_before_its_action(mf: MF) -> None:
    # 5.2 (printed): "any time before declaring victory", cost one building card, no count limit.
    hand = ("S.energy.4", "R.energy.5", *NO_PAIRS[1:5])
    state = mf.build(hands={0: hand}, investments={0: [("S.energy.2", "R.energy.3")]})
    state, _ = mf.act(state, "optimise:S.energy.2:S.energy.4", "discard:S.energy.2")
    assert "optimise:R.energy.3:R.energy.5" in mf.ids(state)
    state, _ = mf.act(state, "optimise:R.energy.3:R.energy.5", "discard:R.energy.3")
    inv = state.seats[0].investments[0]
    assert (inv.stock, inv.ret) == ("S.energy.4", "R.energy.5")
    assert state.seats[0].building_total() == cards.BUILDING_TOTAL - 2
    assert state.stage == "main" and GAME.to_act(state) == [0]


def test_optimising_is_still_refused_after_the_main_action(mf: MF) -> None:
    # 5.2 (ours): the moments are before the main action and the victory window.
    state = mf.build(hands={0: ("S.energy.4", *NO_PAIRS[1:5])}, investments={0: [("S.energy.2", "R.energy.3")]},
                     strategies={0: ["X.shrewd_move.1"]}, deck_tops={"strategy_deck": ["X.theft.1"]})
    state, _ = mf.act(state, "dominate")
    assert state.stage == "red"
    assert _rule_of(state, "optimise:S.energy.2:S.energy.4") == "5.2"


# -- 8.1 / 8.2 The victory window: declare, or hold back unseen (printed) ---------------------


def test_a_seat_that_does_not_declare_returns_an_investment_face_down(mf: MF) -> None:
    # 8.1 (printed): declare when you believe you reached 25M; if not, return one and play on.
    short = [("S.energy.2", "R.energy.1"), ("S.banking.1", "R.banking.1"), ("S.health.1", "R.health.1")]
    state = mf.build(hands={0: ("S.media.3", "R.media.1")}, investments={0: short}, deck_tops={"strategy_deck": ["X.theft.1"]})
    state, _ = mf.act(mf.roll(state, plus=True), "risk:S.media.3+R.media.1")
    assert state.stage == "victory"
    assert mf.ids(state) == ["declare", "return:S.banking.1", "return:S.energy.2", "return:S.health.1", "return:S.media.3"]
    state, events = mf.act(state, "return:S.energy.2")
    assert GAME.outcome(state) is None and GAME.to_act(state) == [1]
    assert [inv.face_up for inv in state.seats[0].investments] == [False, False, False]
    assert {"S.energy.2", "R.energy.1"} <= set(state.seats[0].hand)
    assert not any(e.kind == "count" for e in events)
    public = mf.public_text(events)
    assert not any(card in public for card in ("S.energy.2", "R.energy.1", "S.media.3"))
    assert {"S.media.3", "S.banking.1"} <= hidden_from(state, 1)


def test_holding_back_names_one_of_the_seats_own_investments(mf: MF) -> None:
    # 8.1: the investment returned is one of the seat's own.
    state = mf.build(hands={0: ("S.media.3", "R.media.1")}, investments={0: WEAK_THREE, 1: [("S.mining.1", "R.mining.1")]},
                     deck_tops={"strategy_deck": ["X.theft.1"]})
    state, _ = mf.act(mf.roll(state, plus=True), "risk:S.media.3+R.media.1")
    assert _rule_of(state, "return:S.mining.1") == "8.1"


def test_a_declared_short_count_still_flips_and_returns(mf: MF) -> None:
    # 8.2 (printed): flipped investments can no longer be changed.
    short = [("S.energy.2", "R.energy.1"), ("S.banking.1", "R.banking.1"), ("S.health.1", "R.health.1")]
    state = mf.build(hands={0: ("S.media.3", "R.media.1")}, investments={0: short}, deck_tops={"strategy_deck": ["X.theft.1"]})
    state, _ = mf.act(mf.roll(state, plus=True), "risk:S.media.3+R.media.1", "declare", "return:S.media.3")
    assert [inv.face_up for inv in state.seats[0].investments] == [True, True, True]


# -- 13 The Spanish V7 variants -----------------------------------------------------------


def test_forced_count_leaves_only_the_declaration(mf: MF) -> None:
    # 13.2: the V7 reads "Forma tu 4ta inversión y alcanza 25M+. Declara victoria."
    state = mf.build(variants=["forced_count"], hands={0: ("S.media.3", "R.media.1")}, investments={0: WEAK_THREE},
                     deck_tops={"strategy_deck": ["X.theft.1"]})
    state, _ = mf.act(mf.roll(state, plus=True), "risk:S.media.3+R.media.1")
    assert mf.ids(state) == ["declare"]
    assert _rule_of(state, "return:S.media.3") == "8.1"


def test_open_championship_rolls_off_every_game_and_discards_face_up(mf: MF) -> None:
    # 13.3: the V7 Championship has neither the winner's opening nor locked discards.
    state = mf.build(mode="championship", variants=["open_championship"], hands={0: NO_PAIRS[:6], 1: ["S.telecom.1"]},
                     strategies={0: ["X.theft.1"]}, stage="red")
    state, _ = mf.act(state, "play:X.theft.1@1", "decline", "discard:S.energy.1")
    assert state.locked == () and mf.view(state, 1).stock_pile == ("S.energy.1",)
    won = mf.build(mode="championship", variants=["open_championship"], hands={0: ("S.media.3", "R.media.1")},
                   investments={0: [("S.energy.5", "R.energy.5"), ("S.banking.5", "R.banking.5"), ("S.health.5", "R.health.5")]},
                   deck_tops={"strategy_deck": ["X.theft.2"]}, active=0)
    won, _ = mf.act(mf.roll(won, plus=True), "risk:S.media.3+R.media.1", "declare")
    assert won.stage == "between" and won.next_opener is None and won.seats[0].match_total == 34
    won, _ = mf.act(won, "next_game")
    assert won.roll_off[0].startswith("seat 0 ") and "previous game" not in won.roll_off[0]
