"""One scenario per Strategy kind (section 12), each from a hand-made state."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine.market_fortune import GAME, cards
from engine.market_fortune.audit import card_locations, hidden_from
from engine.market_fortune.scoring import count
from engine.market_fortune.state import Investment, MarketFortuneState, SeatState
from tests.engine.market_fortune.conftest import MF

NO_PAIRS = ("S.energy.1", "S.banking.2", "S.health.3", "S.retail.4", "R.media.1", "R.mining.2", "R.farming.3", "R.property.4")
CARD_ID = re.compile(r"\b[SRX]\.[a-z_]+\.\d\b")
INV = Investment


def _red(mf: MF, card: str, **kw: Any) -> MarketFortuneState:
    """Seat 0 on its Dominate turn, holding ``card``, with six building cards."""
    hands = {0: NO_PAIRS[:6], **kw.pop("hands", {})}
    strategies = kw.pop("strategies", {})
    strategies = {**strategies, 0: (card, *strategies.get(0, ()))}
    return mf.build(hands=hands, strategies=strategies, stage="red", **kw)


def test_12_1_theft(mf: MF) -> None:
    state = _red(mf, "X.theft.1", hands={1: ["S.telecom.1"]})
    state, events = mf.act(state, "play:X.theft.1@1", "decline")
    assert "S.telecom.1" in state.seats[0].hand and state.seats[1].hand == ()
    assert "S.telecom.1" not in mf.public_text(events)
    assert state.tasks[0].seat == 0 and state.tasks[0].section == "12.1"
    state, _ = mf.act(state, "discard:S.energy.1")
    assert len(state.seats[0].hand) == 6 and GAME.to_act(state) == [1]


def test_12_2_market_crash(mf: MF) -> None:
    state = _red(
        mf,
        "X.market_crash.1",
        investments={1: [("S.telecom.1", "R.telecom.2")], 2: [("S.mining.3", "R.mining.4")]},
        strategies={2: ["X.risk_control.1"]},
    )
    state, _ = mf.act(state, "play:X.market_crash.1", "decline", "defend:X.risk_control.1", "decline")
    assert state.seats[1].investments == () and len(state.seats[2].investments) == 1
    assert state.stock_pile == ("S.telecom.1",) and state.return_pile == ("R.telecom.2",)
    assert state.seats[1].hand == ()  # no replacements


def test_12_3_correction(mf: MF) -> None:
    one = [("S.telecom.1", "R.telecom.2")]
    two = [("S.mining.3", "R.mining.4"), ("S.aerospace.1", "R.aerospace.1")]
    state = _red(mf, "X.correction.1", investments={0: one, 1: two, 3: [("S.media.5", "R.media.5")]})
    assert [i for i in mf.ids(state) if i.startswith("play")] == ["play:X.correction.1@1", "play:X.correction.1@3"]
    state, _ = mf.act(state, "play:X.correction.1@1", "decline")
    assert GAME.to_act(state) == [1] and state.tasks[0].step == "return"
    state, _ = mf.act(state, "return:S.mining.3")
    assert state.seats[1].investments == (INV(stock="S.aerospace.1", ret="R.aerospace.1"),)
    assert {"S.mining.3", "R.mining.4"} <= set(state.seats[1].hand)


def test_12_4_fortune(mf: MF) -> None:
    state = _red(mf, "X.fortune.1", hands={0: ("S.energy.5", "R.energy.5")}, deck_tops={"strategy_deck": ["X.theft.2"]})
    state, _ = mf.act(state, "play:X.fortune.1")
    before = state.chance
    assert mf.ids(state) == ["form:S.energy.5+R.energy.5"]
    state, _ = mf.act(state, "form:S.energy.5+R.energy.5")
    assert state.chance == before  # no die roll
    assert state.seats[0].investments == (INV(stock="S.energy.5", ret="R.energy.5"),)
    assert state.seats[0].strategies == ("X.theft.2",)  # Momentum, not playable now
    assert GAME.to_act(state) == [1]
    no_pair = _red(mf, "X.fortune.2")
    assert "play:X.fortune.2" not in mf.ids(no_pair)


def test_12_5_compound_interest(mf: MF) -> None:
    state = _red(mf, "X.compound_interest.1", investments={0: [INV(stock="S.aerospace.1", ret="R.aerospace.1", marked=True), ("S.telecom.2", "R.telecom.2")]})
    state, _ = mf.act(state, "play:X.compound_interest.1")
    assert mf.ids(state) == ["mark:S.telecom.2"]
    state, _ = mf.act(state, "mark:S.telecom.2")
    assert count(state.seats[0]).compound == 2 * cards.COMPOUND_INTEREST_BONUS
    nothing = _red(mf, "X.compound_interest.2")
    assert "play:X.compound_interest.2" not in mf.ids(nothing)


def test_12_6_buy_more(mf: MF) -> None:
    state = _red(mf, "X.buy_more.1", stock_pile=["S.aerospace.5"])
    state, _ = mf.act(state, "play:X.buy_more.1")
    assert mf.ids(state) == ["draw:return_deck", "draw:stock_deck", "draw:stock_pile"]
    state, _ = mf.act(state, "draw:stock_pile", "draw:return_deck")
    assert state.tasks[0].step == "discard" and state.tasks[0].count == 2
    state, _ = mf.act(state, "discard:S.aerospace.5", "discard:S.energy.1")
    assert len(state.seats[0].hand) == 6 and GAME.to_act(state) == [1]


def test_12_7_shrewd_move(mf: MF) -> None:
    state, events = mf.act(_red(mf, "X.shrewd_move.1"), "play:X.shrewd_move.1")
    assert GAME.to_act(state) == [0] and state.stage == "main"
    assert any(e.kind == "extra_turn" for e in events)


def test_12_8_federal_audit(mf: MF) -> None:
    state = _red(mf, "X.federal_audit.1", hands={1: ["S.telecom.1"]}, strategies={1: ["X.fortune.1", "X.dividends.1"]})
    state, events = mf.act(state, "play:X.federal_audit.1@1", "decline")
    revealed = state.seats[0].revealed
    assert revealed is not None and revealed.cards == ("S.telecom.1", "X.fortune.1", "X.dividends.1")
    assert "S.telecom.1" not in hidden_from(state, 0) and "S.telecom.1" in hidden_from(state, 2)
    assert not CARD_ID.search(GAME.view(state, 2).model_dump_json().replace("X.federal_audit.1", ""))
    assert mf.ids(state) == ["take:X.dividends.1", "take:X.fortune.1"]
    state, _ = mf.act(state, "take:X.fortune.1")
    assert state.seats[1].strategies == ("X.dividends.1",) and "X.fortune.1" in state.seats[0].strategies
    assert not CARD_ID.search(mf.public_text(events).replace("X.federal_audit.1", ""))


def test_12_9_negotiation(mf: MF) -> None:
    state = _red(mf, "X.negotiation.1", hands={1: ["S.telecom.1"]})
    state, _ = mf.act(state, "play:X.negotiation.1@1", "decline")
    assert state.tasks[0].step == "give" and GAME.to_act(state) == [0]
    state, _ = mf.act(state, "give:S.energy.1")
    # The gift is never taken back: the only other card is the one taken.
    assert state.seats[1].hand == ("S.energy.1",) and "S.telecom.1" in state.seats[0].hand


def test_12_10_regulatory_block(mf: MF) -> None:
    state, _ = mf.act(_red(mf, "X.regulatory_block.2"), "play:X.regulatory_block.2@3", "decline")
    assert state.seats[3].skip_next and GAME.to_act(state) == [1]


def test_12_11_liquidity(mf: MF) -> None:
    state = _red(mf, "X.liquidity.1", stock_pile=["S.aerospace.5"])
    state, _ = mf.act(state, "play:X.liquidity.1")
    assert mf.ids(state) == ["draw:return_deck", "draw:stock_deck"]  # decks only
    state, _ = mf.act(state, "draw:stock_deck", "draw:stock_deck", "draw:return_deck")
    assert len(state.seats[0].hand) == 9 and state.tasks[0].count == 3
    state, _ = mf.act(state, *(f"discard:{c}" for c in NO_PAIRS[:3]))
    assert len(state.seats[0].hand) == 6 and GAME.to_act(state) == [1]


def test_12_12_inflation(mf: MF) -> None:
    state = _red(
        mf,
        "X.inflation.1",
        investments={0: [("S.aerospace.1", "R.aerospace.1")], 2: [("S.telecom.1", "R.telecom.1")], 3: [("S.mining.1", "R.mining.1")]},
        hands={1: ["S.media.2"], 2: ["S.media.3", "R.health.1"], 3: ["S.media.4"]},
    )
    state, _ = mf.act(state, "play:X.inflation.1", "decline")
    assert GAME.to_act(state) == [2] and state.tasks[0].step == "discard"  # seat 1 is behind: not a target
    state, _ = mf.act(state, "discard:R.health.1", "decline", "discard:S.media.4")
    assert state.seats[1].hand == ("S.media.2",) and state.seats[2].hand == ("S.media.3",) and state.seats[3].hand == ()


def test_12_13_bailout(mf: MF) -> None:
    ahead = {1: [("S.telecom.1", "R.telecom.1")], 2: [("S.mining.1", "R.mining.1")], 3: [("S.media.5", "R.media.5")]}
    state = _red(mf, "X.bailout.1", investments=ahead, stock_pile=["S.aerospace.5", "S.energy.3"])
    state, _ = mf.act(state, "play:X.bailout.1")
    assert mf.ids(state) == ["take:S.aerospace.5", "take:S.energy.3"]  # any face-up pile card, not only the top
    state, _ = mf.act(state, "take:S.aerospace.5", "discard:S.banking.2")
    assert state.stock_pile == ("S.energy.3", "S.banking.2") and "S.aerospace.5" in state.seats[0].hand
    not_last = _red(mf, "X.bailout.1", stock_pile=["S.aerospace.5"])
    assert "play:X.bailout.1" not in mf.ids(not_last)  # every seat ties: nobody is last (10.2)


@pytest.mark.parametrize("plus", [True, False])
def test_12_14_lucky_investor(mf: MF, plus: bool) -> None:
    state = mf.roll(_red(mf, "X.lucky_investor.1"), plus=plus)
    state, _ = mf.act(state, "play:X.lucky_investor.1")
    assert len(state.seats[0].strategies) == (cards.LUCKY_INVESTOR_DRAWS if plus else 0)


def test_12_15_systemic_risk(mf: MF) -> None:
    two = [("S.telecom.1", "R.telecom.1"), ("S.mining.4", "R.mining.4")]
    two_more = [("S.media.2", "R.media.2"), ("S.farming.2", "R.farming.2")]
    state = _red(mf, "X.systemic_risk.1", investments={0: [("S.aerospace.1", "R.aerospace.1")], 1: two, 3: two_more})
    state, _ = mf.act(state, "play:X.systemic_risk.1", "decline", "decline")
    assert state.seats[1].investments == (INV(stock="S.telecom.1", ret="R.telecom.1"),)
    assert state.seats[3].investments == (INV(stock="S.media.2", ret="R.media.2"),)
    assert {"S.mining.4", "R.mining.4"} <= set(state.seats[1].hand)
    assert len(state.seats[0].investments) == 1


def _attacked(mf: MF, blue: str, attack: str = "X.theft.1", **kw: Any) -> MarketFortuneState:
    state = _red(mf, attack, hands={1: ["S.telecom.1"]}, strategies={1: [blue]}, **kw)
    return mf.act(state, f"play:{attack}@1")[0]


def test_12_16_risk_control(mf: MF) -> None:
    state, _ = mf.act(_attacked(mf, "X.risk_control.1"), "defend:X.risk_control.1")
    assert state.seats[1].hand == ("S.telecom.1",) and state.strategy_pile[-1] == "X.risk_control.1"


def test_12_17_stablecoin(mf: MF) -> None:
    state = _attacked(mf, "X.stablecoin.1", deck_tops={"strategy_deck": ["X.dividends.2"]})
    state, _ = mf.act(state, "defend:X.stablecoin.1")
    assert state.seats[1].hand == ("S.telecom.1",) and state.seats[1].strategies == ("X.dividends.2",)


def test_12_18_diamond_hands(mf: MF) -> None:
    theft = _attacked(mf, "X.diamond_hands.1")
    assert mf.ids(theft) == ["decline"]  # Theft takes no investment
    state = _red(mf, "X.correction.1", investments={0: [("S.media.2", "R.media.2")], 1: [("S.mining.1", "R.mining.1")]}, strategies={1: ["X.diamond_hands.1"]})
    state, events = mf.act(state, "play:X.correction.1@1", "defend:X.diamond_hands.1")
    assert len(state.seats[1].investments) == 1 and state.seats[1].strategies == ("X.diamond_hands.1",)
    assert "X.diamond_hands.1" not in mf.public_text(events)


def test_12_19_experience(mf: MF) -> None:
    state, _ = mf.act(_attacked(mf, "X.experience.1"), "defend:X.experience.1")
    revealed = state.seats[1].revealed
    assert revealed is not None and revealed.source == 0 and revealed.cards == NO_PAIRS[:6]
    assert mf.view(state, 1).revealed is not None and mf.view(state, 2).revealed is None


def test_12_20_wrong_analyst(mf: MF) -> None:
    state, _ = mf.act(_attacked(mf, "X.wrong_analyst.1"), "defend:X.wrong_analyst.1", "decline")
    # The theft now runs from seat 1 against seat 0: seat 1 takes, then discards one.
    assert len(state.seats[1].hand) == 2 and GAME.to_act(state) == [1] and state.tasks[0].step == "discard"
    state, _ = mf.act(state, "discard:S.telecom.1")
    assert len(state.seats[0].hand) == 5 and len(state.seats[1].hand) == 1
    card_locations(state)


def test_12_21_contingency_plan(mf: MF) -> None:
    state, _ = mf.act(_attacked(mf, "X.contingency_plan.1"), "defend:X.contingency_plan.1")
    assert len(state.seats[0].hand) == 5 and state.stock_pile + state.return_pile != ()
    assert state.seats[1].hand == ("S.telecom.1",)


def test_12_22_innovation(mf: MF) -> None:
    state = _red(mf, "X.fortune.1", strategies={0: ["X.innovation.2"]})
    state, _ = mf.act(state, "play:X.fortune.1")
    assert "form:S.energy.1+R.media.1+X.innovation.2" in mf.ids(state)
    state, _ = mf.act(state, "form:S.energy.1+R.media.1+X.innovation.2")
    assert state.seats[0].investments[0].innovation == "X.innovation.2"
    assert "X.innovation.2" not in state.seats[0].strategies


def _seat(*investments: tuple[str, str], strategies: tuple[str, ...]) -> SeatState:
    return SeatState(investments=tuple(INV(stock=s, ret=r) for s, r in investments), strategies=strategies)


def test_12_23_maximum_return() -> None:
    seat = _seat(("S.energy.3", "R.energy.1"), ("S.banking.2", "R.banking.4"), strategies=("X.maximum_return.1",))
    assert count(seat).greens == cards.MAXIMUM_RETURN_VALUE - 1


def test_12_24_short_investment() -> None:
    seat = _seat(("S.energy.1", "R.energy.1"), ("S.banking.5", "R.banking.5"), strategies=("X.short_investment.2",))
    assert count(seat).greens == cards.SHORT_INVESTMENT_VALUE - 2
    # One green per investment (6.4): two greens and one investment add only the better one.
    single = _seat(("S.energy.1", "R.energy.1"), strategies=("X.short_investment.1", "X.maximum_return.1"))
    assert count(single).greens == 4


def test_12_25_booming_industry() -> None:
    sharing = _seat(("S.energy.3", "R.energy.1"), ("S.energy.2", "R.energy.4"), strategies=("X.booming_industry.1",))
    apart = _seat(("S.energy.3", "R.energy.1"), ("S.banking.2", "R.banking.4"), strategies=("X.booming_industry.1",))
    assert count(sharing).yellows == cards.BOOMING_INDUSTRY_BONUS and count(apart).yellows == 0


def test_12_26_diversification_king() -> None:
    four = [("S.energy.1", "R.energy.1"), ("S.banking.1", "R.banking.1"), ("S.health.1", "R.health.1"), ("S.media.1", "R.media.1")]
    assert count(_seat(*four, strategies=("X.diversification_king.1",))).yellows == cards.DIVERSIFICATION_KING_BONUS
    assert count(_seat(*four[:3], strategies=("X.diversification_king.1",))).yellows == 0


def test_12_27_dividends() -> None:
    seat = _seat(("S.energy.4", "R.energy.1"), ("S.banking.5", "R.banking.1"), ("S.health.3", "R.health.5"), strategies=("X.dividends.1", "X.dividends.2"))
    assert count(seat).yellows == 2 * 2 * cards.DIVIDENDS_BONUS  # both copies count (6.5)


def test_every_kind_has_its_scenario() -> None:
    tested = {name for name in globals() if name.startswith("test_12_")}
    for kind in cards.CATALOGUE:
        assert f"test_{kind.section.replace('.', '_')}_{kind.key}" in tested, kind.key
