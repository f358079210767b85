"""The points a rules audit raised (3.4, 3.5, 10, 12.4, 13.1, 13.4): the table
and the rulebook say the same thing, and each departure from the print is
marked as ours where it is made.

Each test names the section it checks; the rulebook text it asserts is the
label that tells a reader whether the sentence is printed or ours.
"""

from __future__ import annotations

import pytest

from engine.core import NotYourTurn
from engine.market_fortune import GAME
from engine.market_fortune.scoring import leaders
from tests.engine.market_fortune.conftest import MF
from tests.engine.market_fortune.test_docs import subsection

NO_PAIRS = ("S.energy.1", "S.banking.2", "S.health.3", "S.retail.4", "R.media.1", "R.mining.2", "R.farming.3", "R.property.4")
SIXTEEN = [("S.energy.5", "R.energy.3"), ("S.banking.4", "R.banking.4")]
"""Two investments worth 16M, with two Stocks of 4M or more (Dividends: +2M)."""


def test_3_5_momentum_red_offers_no_red_after_the_risk_that_forms_the_4th(mf: MF) -> None:
    # 3.5 (ours under momentum_red): the victory window opens at once; the V7 would offer a red.
    three = [*SIXTEEN, ("S.health.3", "R.health.2")]
    state = mf.build(variants=["momentum_red"], hands={0: ("S.media.3", "R.media.1")}, investments={0: three},
                     strategies={0: ["X.shrewd_move.1"]}, deck_tops={"strategy_deck": ["X.theft.1"]})
    state, _ = mf.act(mf.roll(state, plus=True), "risk:S.media.3+R.media.1")
    assert state.stage == "victory" and GAME.to_act(state) == [0]
    assert not [a for a in mf.ids(state) if a.startswith("play:")]
    assert "declare" in mf.ids(state)
    assert "**Ours, under `momentum_red`:** a Risk that forms your 4th investment offers no" in subsection("3.5")
    assert "victory window at once, with no red offered (3.5)" in subsection("13.1")


def test_3_5_momentum_red_counts_a_momentum_card_from_an_earlier_investment_of_the_turn(mf: MF) -> None:
    # 3.5 (momentum_red): only the Strategy drawn for the 4th investment is left out of the count.
    hand = ("S.health.3", "R.health.2", "S.media.2", "R.media.1")
    state = mf.build(variants=["momentum_red"], hands={0: hand}, investments={0: SIXTEEN},
                     strategies={0: ["X.fortune.1"]},
                     deck_tops={"strategy_deck": ["X.dividends.2", "X.dividends.1"]})
    state, _ = mf.act(mf.roll(state, plus=True), "risk:S.health.3+R.health.2")
    assert state.momentum == "X.dividends.1" and state.stage == "red"
    state, _ = mf.act(state, "play:X.fortune.1", "form:S.media.2+R.media.1")
    assert state.momentum == "X.dividends.2" and state.stage == "victory"
    state, events = mf.act(state, "declare")
    # 24M of cards; X.dividends.1 (third investment's Momentum) adds 2M, X.dividends.2 nothing.
    assert [e.data["total"] for e in events if e.kind == "count"] == [26]
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0,)
    assert "counts like any other" in subsection("3.5")


def test_3_4_one_red_per_turn_and_blue_defences_are_free(mf: MF) -> None:
    # 3.4 (printed in the V7 only): "Límite: 1 Estrategia jugada por turno. Las defensas azules no cuentan".
    state = mf.build(
        hands={0: NO_PAIRS[:6]},
        strategies={0: ["X.regulatory_block.1", "X.shrewd_move.1", "X.risk_control.2"], 1: ["X.wrong_analyst.1"]},
        stage="red",
    )
    state, _ = mf.act(state, "play:X.regulatory_block.1@1", "defend:X.wrong_analyst.1")
    assert GAME.to_act(state) == [0] and "defend:X.risk_control.2" in mf.ids(state)  # a blue after the red
    state, _ = mf.act(state, "defend:X.risk_control.2")
    assert not state.seats[0].skip_next
    # The red was the turn's Strategy: once it resolved the turn passed, with a second red
    # (X.shrewd_move.1) still in hand; the blue defence did not use up the turn's one.
    assert GAME.to_act(state) == [1] and state.stage == "main"
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 0, GAME.parse_action("play:X.shrewd_move.1"))
    text = subsection("3.4")
    assert "**Printed in the Spanish V7 only:**" in text and "Las defensas azules no cuentan" in text
    assert "| Strategies played per turn (3.4) |" in subsection("13.4")


def test_12_4_fortune_skips_the_die_as_the_v7_quick_reference_says(mf: MF) -> None:
    # 12.4: the source is the V7 quick reference, not the English FAQ; 13.4 lists it.
    state = mf.build(hands={0: ("S.energy.5", "R.energy.5")}, strategies={0: ["X.fortune.1"]}, stage="red")
    before = state.chance
    state, _ = mf.act(state, "play:X.fortune.1", "form:S.energy.5+R.energy.5")
    assert state.chance == before and len(state.seats[0].investments) == 1
    preamble = subsection("13.4")
    assert "| Fortune and the die (12.4) |" in preamble
    from tests.engine.market_fortune.test_docs import rulebook

    chapter_12 = rulebook().split("## 12 Our card catalogue", 1)[1].split("### 12.1", 1)[0]
    assert '"La carta Fortuna evita el dado"' in chapter_12 and "hints of the FAQ" not in chapter_12


def test_10_co_leaders_and_no_leader_at_zero_are_marked_ours(mf: MF) -> None:
    # 10.1 (ours): several seats can lead together; nobody leads while no seat has an investment.
    assert leaders(mf.build()) == ()
    tied = mf.build(investments={1: [("S.energy.2", "R.energy.3")], 2: [("S.media.2", "R.media.3")]})
    assert leaders(tied) == (1, 2)
    from tests.engine.market_fortune.test_docs import rulebook

    chapter_10 = rulebook().split("## 10 Market terms", 1)[1].split("### 10.1", 1)[0]
    assert "all three terms" not in chapter_10
    assert "**Ours:** two points the print" in chapter_10


def test_3_7_an_outcome_decided_by_the_count_tie_break_says_so(mf: MF) -> None:
    # 3.7: most investments, then the highest count; the outcome says which decided it.
    state = mf.build(seats=2, hands={0: NO_PAIRS[:5]}, config={"turn_limit_per_seat": 1}, turn=2,
                     investments={0: [("S.energy.2", "R.energy.1")], 1: [("S.media.5", "R.media.4")]})
    state, _ = mf.act(state, "build:stock_deck")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason == "turn_limit"
    assert outcome.winners == (1,) and outcome.decided_by == ("investments", "count")
    assert "tie for the lead with 1 investment" in outcome.text and "the tie-break is the count" in outcome.text
    assert "seat 0 3M, seat 1 9M" in outcome.text


def test_3_7_a_lone_leader_at_the_turn_limit_is_decided_by_investments(mf: MF) -> None:
    state = mf.build(seats=2, hands={0: NO_PAIRS[:5]}, config={"turn_limit_per_seat": 1}, turn=2,
                     investments={1: [("S.media.5", "R.media.4")]})
    state, _ = mf.act(state, "build:stock_deck")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.decided_by == ("investments",)
    assert "Seat 1 leads alone with 1 investment and wins." in outcome.text
