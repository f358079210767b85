"""Combat, victory, modes, market terms, hidden information and errors (sections 7-11, 14)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine.core import IllegalAction, MalformedAction, NotYourTurn
from engine.market_fortune import GAME, cards
from engine.market_fortune.audit import card_locations, hidden_from
from engine.market_fortune.scoring import count, equal_or_ahead, is_last_place, leaders
from engine.market_fortune.state import Investment, MarketFortuneState, Mode, SeatState
from engine.market_fortune.view import FACE_DOWN
from tests.engine.market_fortune.conftest import MF

NO_PAIRS = ("S.energy.1", "S.banking.2", "S.health.3", "S.retail.4", "R.media.1", "R.mining.2", "R.farming.3", "R.property.4")
CARD_ID = re.compile(r"\b[SRX]\.[a-z_]+\.\d\b")
THREE_STRONG = [("S.energy.5", "R.energy.4"), ("S.banking.5", "R.banking.4"), ("S.health.5", "R.health.4")]


# -- combat (7) ---------------------------------------------------------------------


def test_every_target_gets_a_defence_window_even_without_a_blue(mf: MF) -> None:
    state = mf.build(hands={0: NO_PAIRS[:6], 1: ["S.telecom.1"]}, strategies={0: ["X.theft.1"]}, stage="red")
    state, _ = mf.act(state, "play:X.theft.1@1")
    assert GAME.to_act(state) == [1] and mf.ids(state) == ["decline"]
    attack = mf.view(state, 2).attack
    assert attack is not None and attack.defender == 1
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 0, GAME.parse_action("end"))


def test_group_attacks_open_windows_clockwise_from_the_attacker(mf: MF) -> None:
    state = mf.build(hands={2: NO_PAIRS[:6]}, strategies={2: ["X.market_crash.1"]}, active=2, stage="red")
    state, _ = mf.act(state, "play:X.market_crash.1")
    order = []
    while GAME.outcome(state) is None and state.attack is not None:
        order.append(GAME.to_act(state)[0])
        state, _ = mf.act(state, "decline")
    assert order == [3, 0, 1]


def test_a_blue_cancels_the_attack_and_both_cards_are_discarded(mf: MF) -> None:
    state = mf.build(hands={0: NO_PAIRS[:6]}, strategies={0: ["X.regulatory_block.1"], 1: ["X.risk_control.1"]}, stage="red")
    state, _ = mf.act(state, "play:X.regulatory_block.1@1", "defend:X.risk_control.1")
    assert not state.seats[1].skip_next
    assert state.strategy_pile == ("X.regulatory_block.1", "X.risk_control.1")


def test_wrong_analyst_turns_the_attack_and_may_bounce_again(mf: MF) -> None:
    base = mf.build(
        hands={0: NO_PAIRS[:6]},
        strategies={0: ["X.regulatory_block.1", "X.wrong_analyst.2"], 1: ["X.wrong_analyst.1"]},
        stage="red",
    )
    state, _ = mf.act(base, "play:X.regulatory_block.1@1", "defend:X.wrong_analyst.1")
    assert GAME.to_act(state) == [0]  # the attacker now defends (7.3)
    assert mf.ids(state) == ["decline", "defend:X.wrong_analyst.2"]
    declined, _ = mf.act(state, "decline")
    assert declined.seats[0].skip_next and not declined.seats[1].skip_next
    bounced, _ = mf.act(state, "defend:X.wrong_analyst.2")
    assert GAME.to_act(bounced) == [1] and mf.ids(bounced) == ["decline"]
    bounced, events = mf.act(bounced, "decline")
    assert [e.data["seat"] for e in events if e.kind == "skip"] == [1]  # seat 1 lost its turn at once
    assert GAME.to_act(bounced) == [2] and not bounced.seats[0].skip_next


def test_no_optimisation_while_an_attack_is_resolved(mf: MF) -> None:
    state = mf.build(
        hands={0: NO_PAIRS[:6], 1: ["S.energy.4"]},
        investments={1: [("S.energy.2", "R.energy.3")]},
        strategies={0: ["X.theft.1"]},
        stage="red",
    )
    state, _ = mf.act(state, "play:X.theft.1@1")
    assert not any(i.startswith("optimise") for i in mf.ids(state))
    with pytest.raises(IllegalAction) as error:
        mf.act(state, "optimise:S.energy.2:S.energy.4")
    assert error.value.rule == "7.2"


# -- victory (8) and modes (9) ---------------------------------------------------------


def _fourth(mf: MF, mode: Mode = "fortune", **kw: Any) -> MarketFortuneState:
    """Seat 0 holds three investments and a pair to form the fourth."""
    investments = kw.pop("investments", THREE_STRONG)
    state = mf.build(mode=mode, hands={0: ("S.retail.5", "R.retail.4")}, investments={0: investments}, **kw)
    return mf.roll(state, plus=True)


def test_family_wins_at_the_fourth_investment_without_a_count(mf: MF) -> None:
    weak = [("S.energy.1", "R.energy.1"), ("S.banking.1", "R.banking.1"), ("S.health.1", "R.health.1")]
    state, _ = mf.act(_fourth(mf, "family", investments=weak), "risk:S.retail.5+R.retail.4")
    result = GAME.outcome(state)
    assert result is not None and result.winners == (0,) and result.reason == "victory"


def test_fortune_counts_at_the_fourth_investment_and_wins_at_25m(mf: MF) -> None:
    state, _ = mf.act(_fourth(mf), "risk:S.retail.5+R.retail.4")
    assert state.stage == "victory" and mf.ids(state)[0] == "declare"
    state, events = mf.act(state, "declare")
    assert [e.data["total"] for e in events if e.kind == "count"] == [36]
    assert mf.outcome(state).winners == (0,)
    # The count is 8.1 and the 25M a win needs is Fortune's (9.2); 8.2 is falling short.
    assert mf.outcome(state).text == "Seat 0 counts 36M and wins (8.1, 9.2)."


def test_a_short_count_returns_an_investment_of_choice_and_the_rest_stay_face_up(mf: MF) -> None:
    weak = [("S.energy.1", "R.energy.1"), ("S.banking.1", "R.banking.1"), ("S.health.1", "R.health.1")]
    state, _ = mf.act(_fourth(mf, investments=weak), "risk:S.retail.5+R.retail.4", "declare")
    assert GAME.outcome(state) is None and state.tasks[0].step == "return" and state.tasks[0].section == "8.2"
    assert sorted(mf.ids(state)) == ["return:S.banking.1", "return:S.energy.1", "return:S.health.1", "return:S.retail.5"]
    state, events = mf.act(state, "return:S.retail.5")
    assert [inv.face_up for inv in state.seats[0].investments] == [True, True, True]
    assert {"S.retail.5", "R.retail.4"} <= set(state.seats[0].hand)
    assert "S.retail.5" not in mf.public_text(events)
    assert mf.view(state, 1).players[0].investments[0].stock == "S.energy.1"  # face up is public
    assert GAME.to_act(state) == [1]


def test_the_victory_window_allows_optimising_before_declaring(mf: MF) -> None:
    state = mf.roll(
        mf.build(hands={0: ("S.retail.5", "R.retail.4", "R.energy.5")}, investments={0: THREE_STRONG}), plus=True
    )
    state, _ = mf.act(state, "risk:S.retail.5+R.retail.4")
    assert "optimise:R.energy.4:R.energy.5" in mf.ids(state)
    state, _ = mf.act(state, "optimise:R.energy.4:R.energy.5", "discard:R.energy.4")
    assert state.stage == "victory" and "declare" in mf.ids(state)
    assert not any(i.startswith("optimise") for i in mf.ids(state))  # nothing left in hand to swap in


def test_the_count_adds_marks_greens_and_yellows() -> None:
    seat = SeatState(
        investments=(
            Investment(stock="S.energy.4", ret="R.energy.1", marked=True),
            Investment(stock="S.energy.1", ret="R.energy.2"),
            Investment(stock="S.banking.5", ret="R.banking.5"),
            Investment(stock="S.health.2", ret="R.media.3", innovation="X.innovation.1"),
        ),
        strategies=("X.maximum_return.1", "X.short_investment.1", "X.booming_industry.1", "X.dividends.1", "X.diversification_king.1"),
    )
    result = count(seat)
    assert result.cards == 5 + 3 + 10 + 5
    assert result.compound == cards.COMPOUND_INTEREST_BONUS
    # Maximum Return on energy 4+1 (+4), Short Investment on energy 1+2 (+3); never on the Innovation one.
    assert result.greens == 7
    # Booming (two energy) +3, Dividends (two Stocks of 4M+) +2, Diversification does not hold.
    assert result.yellows == 3 + 2
    assert result.total == 23 + 2 + 7 + 5


def test_championship_adds_the_count_and_the_winner_opens_the_next_game(mf: MF) -> None:
    state = _fourth(mf, "championship", active=2)
    state = state.model_copy(update={"active": 0})
    state, _ = mf.act(state, "risk:S.retail.5+R.retail.4", "declare")
    assert state.stage == "between" and state.seats[0].match_total == 36 and GAME.outcome(state) is None
    assert GAME.to_act(state) == [0] and mf.ids(state) == ["next_game"]
    state, _ = mf.act(state, "next_game")
    assert state.game_number == 2 and state.active == 0 and state.seats[0].match_total == 36
    card_locations(state)
    assert all(len(seat.hand) == cards.BUILDING_TOTAL for seat in state.seats)


def test_championship_match_ends_at_the_target_or_the_game_cap(mf: MF) -> None:
    state = _fourth(mf, "championship")
    state = state.model_copy(update={"seats": (state.seats[0].model_copy(update={"match_total": 70}), *state.seats[1:])})
    won, _ = mf.act(state, "risk:S.retail.5+R.retail.4", "declare")
    assert mf.outcome(won).reason == "victory" and mf.outcome(won).winners == (0,)
    capped = _fourth(mf, "championship", config={"match_game_limit": 3}, game_number=3)
    capped, _ = mf.act(capped, "risk:S.retail.5+R.retail.4", "declare")
    assert mf.outcome(capped).reason == "match_limit"


def test_a_match_game_ended_by_the_turn_limit_adds_nothing(mf: MF) -> None:
    state = mf.build(mode="championship", seats=2, hands={0: NO_PAIRS[:6]}, config={"turn_limit_per_seat": 1}, turn=2)
    state, _ = mf.act(state, "build:stock_deck")
    assert state.stage == "between" and state.next_opener is None
    assert [s.match_total for s in state.seats] == [0, 0]
    state, _ = mf.act(state, "next_game")
    assert state.game_number == 2 and state.roll_off[0].startswith("seat")


def test_championship_strategy_discards_lie_face_down_for_others(mf: MF) -> None:
    state = mf.build(mode="championship", hands={0: NO_PAIRS[:6], 1: ["S.telecom.1"]}, strategies={0: ["X.theft.1"]}, stage="red")
    state, _ = mf.act(state, "play:X.theft.1@1", "decline", "discard:S.energy.1")
    assert state.locked == (("S.energy.1", 0),)
    assert mf.view(state, 1).stock_pile == (FACE_DOWN,)
    assert mf.view(state, 0).stock_pile == ("S.energy.1",)
    assert "S.energy.1" in hidden_from(state, 1) and "S.energy.1" not in hidden_from(state, 0)
    assert "build:stock_pile" not in mf.ids(state)


# -- market terms (10) ------------------------------------------------------------


def test_market_terms(mf: MF) -> None:
    pair = [("S.energy.1", "R.energy.1")]
    two = [("S.banking.1", "R.banking.1"), ("S.health.1", "R.health.1")]
    state = mf.build(investments={0: two, 1: pair, 3: [("S.media.2", "R.media.2"), ("S.mining.3", "R.mining.3")]})
    assert leaders(state) == (0, 3)
    assert is_last_place(state, 2) and not is_last_place(state, 1)
    assert equal_or_ahead(state, 1, 0) and equal_or_ahead(state, 1, 1) and not equal_or_ahead(state, 0, 1)
    nobody = mf.build()
    assert leaders(nobody) == () and not any(is_last_place(nobody, s) for s in range(4))


# -- hidden information (11) and errors (14) --------------------------------------------


def test_views_show_own_cards_and_only_counts_of_others(mf: MF) -> None:
    state = GAME.new_table(GAME.config_model(mode="fortune", seats=3), 5)
    for seat in (0, 1, 2, None):
        seen = GAME.view(state, seat).model_dump_json()
        ids = set(CARD_ID.findall(seen))
        assert not ids & hidden_from(state, seat)
        if seat is not None:
            assert set(state.seats[seat].hand) <= ids
    assert mf.view(state, None).hand == ()
    assert [p.hand_count for p in mf.view(state, 0).players] == [8, 8, 8]
    assert "seed" not in GAME.view(state, 0).model_dump_json()


def test_errors_carry_codes_and_sections_and_name_no_card(mf: MF) -> None:
    state = mf.build(hands={0: NO_PAIRS, 1: ["S.aerospace.5", "R.aerospace.5"]})
    with pytest.raises(NotYourTurn) as turn:
        GAME.apply(state, 1, GAME.parse_action("build:stock_deck"))
    assert turn.value.code == "action/not_your_turn"
    with pytest.raises(IllegalAction) as illegal:
        mf.act(state, "risk:S.aerospace.5+R.aerospace.5")
    assert illegal.value.code == "action/illegal" and illegal.value.rule == "3.3"
    assert not CARD_ID.search(illegal.value.message)
    for bad in ("fly", "build:nowhere", "risk:S.energy.1", "play:X.theft.1@x", "discard:X.theft.1", "take:Q.a.1"):
        with pytest.raises(MalformedAction):
            GAME.parse_action(bad)


def test_default_action_is_always_legal(mf: MF) -> None:
    state = mf.build(hands={0: NO_PAIRS})
    first = GAME.default_action(state, 0)
    assert first.id == "build:stock_deck"
    state, _ = mf.act(state, first.id)
    drawn = state.seats[0].hand[-1]
    assert GAME.default_action(state, 0).id == f"discard:{drawn}"


def test_rulebook_and_info() -> None:
    assert "Market Fortune" in GAME.rulebook()
    assert [m.name for m in GAME.info.modes] == ["family", "fortune", "championship"]
    assert "momentum_red" in GAME.info.variants
    assert GAME.view_model.model_fields["game"].default == "market-fortune"
