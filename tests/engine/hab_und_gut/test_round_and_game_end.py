"""End of round 1 (rulebook 6) and end of the game (rulebook 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core import Event, IllegalAction
from engine.hab_und_gut import GAME
from engine.hab_und_gut.audit import card_locations
from engine.hab_und_gut.components import SHARE_CARDS, Commodity
from engine.hab_und_gut.rules import price_of
from engine.hab_und_gut.state import HabState
from tests.engine.hab_und_gut.conftest import HG, TableBuilder
from tournament.results import placements

RULEBOOK = Path(__file__).resolve().parents[3] / "engine" / "hab_und_gut" / "rulebook.md"


def _last_market_step(state: HabState, hg: HG) -> tuple[HabState, list[Event]]:
    """Play the current turn up to its very last market pick and return that pick's events."""
    state = hg.finish_stock_phase(state)
    events: list[Event] = []
    while state.phase == "market":
        turn = state.turn
        state, events = GAME.apply(state, state.actor, GAME.legal_actions(state, state.actor)[0])
        if state.turn != turn or state.phase == "over":
            break
    return state, events


def test_round_one_ends_after_four_turns_with_charity_sold_and_a_new_deal(table: TableBuilder, hg: HG) -> None:
    state = hg.play_turns(table(seats=4), 3)
    state = hg.give_shares(state, 1, "salt", "tea", charity=True)
    state = hg.give_shares(state, 2, "salt")
    assert state.turn == 4
    # The round's prices are whatever the market made of them; proceeds use the prices at the end.
    state, events = _last_market_step(state, hg)
    kinds = [e.kind for e in events]
    assert kinds[-3:] == ["turn_ended", "charity_revealed", "market_dealt"]
    revealed = next(e for e in events if e.kind == "charity_revealed")
    proceeds = revealed.data["seats"]["1"]["proceeds"]
    assert revealed.data["seats"]["1"]["shares"] == ["salt", "tea"]
    assert proceeds == _price_now(state, "salt") + _price_now(state, "tea")
    assert state.charity_money == (0, proceeds, 0, 0)
    assert state.money[1] == 300  # charity money is frozen apart from the seat's own money
    assert state.charity == ((), (), (), ())
    assert len(state.supply) == 59  # the two charity shares are back; seat 2 keeps its salt
    assert state.turn == 5 and state.phase == "stock" and state.first_player == 0
    assert [len(h) for h in state.holders] == [8] * 4 and state.discards == ()
    assert len(state.deck) == 54 - 32
    assert len(card_locations(state)) == 114


def _price_now(state: HabState, commodity: Commodity) -> int:
    return price_of(state, commodity)


def test_prices_carry_over_into_round_two(table: TableBuilder, hg: HG) -> None:
    state = hg.play_turns(table(seats=3), 3)
    state, _ = _last_market_step(state, hg)
    before = state.prices
    assert state.turn == 5
    assert before == state.prices


def test_the_second_deal_reshuffles_all_54_cards(table: TableBuilder, hg: HG) -> None:
    first = table(seats=5, seed=3)
    second = hg.play_turns(first, 4)
    assert second.turn == 5
    assert sorted(c for h in second.holders for c in h) != sorted(
        c for h in first.holders for c in h
    )
    assert len(second.deck) == 54 - 40


def _ending(table: TableBuilder, hg: HG, donations: dict[int, list[str]], shares: dict[int, list[str]]) -> HabState:
    state = hg.play_turns(table(seats=4), 7)
    for seat, goods in donations.items():
        state = hg.give_shares(state, seat, *goods, charity=True)
    for seat, goods in shares.items():
        state = hg.give_shares(state, seat, *goods)
    state, _ = _last_market_step(state, hg)
    assert state.phase == "over"
    return state


def test_the_least_donor_is_eliminated_and_the_richest_remaining_wins(table: TableBuilder, hg: HG) -> None:
    state = _ending(
        table,
        hg,
        donations={0: ["coal"], 1: ["coal", "coal"], 2: ["coal", "coal"], 3: ["coal", "coal"]},
        shares={0: ["salt"] * 5, 2: ["salt"]},
    )
    assert state.eliminated == (0,)
    assert state.winners == (2,)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (2,) and outcome.reason == "richest"
    salt = _price_now(state, "salt")
    assert state.money[2] == 300 + salt
    assert state.money[0] == 300 + 5 * salt  # cashed in for the score table, but out of the race
    assert outcome.scores[2] == 300 + salt
    # The richest seat is out: the outcome says so, and a tournament places it last.
    assert outcome.eliminated == (0,) and outcome.scores[0] > outcome.scores[2]
    assert placements(outcome.winners, outcome.scores, 4, outcome.eliminated)[0] == 4


def test_a_tie_for_least_eliminates_every_tied_seat(table: TableBuilder, hg: HG) -> None:
    state = _ending(table, hg, donations={2: ["coal"], 3: ["coal"]}, shares={})
    assert state.eliminated == (0, 1)
    assert state.winners == (2, 3)  # equal money: a shared win


def test_when_everybody_ties_nobody_is_eliminated(table: TableBuilder, hg: HG) -> None:
    # 7.2 (ours, against the print: the print puts every tied seat out, even a tie of all).
    state = _ending(table, hg, donations={}, shares={1: ["coal"]})
    assert state.eliminated == ()
    richest = max(state.money)
    assert state.winners == tuple(s for s in range(4) if state.money[s] == richest)
    assert 1 in state.winners
    section = RULEBOOK.read_text(encoding="utf-8").split("### 7.2 ", 1)[1].split("### 7.3 ", 1)[0]
    assert "**Ours, against the print:**" in section


def test_the_compared_total_is_both_rounds_of_charity(table: TableBuilder, hg: HG) -> None:
    state = hg.play_turns(table(seats=4), 7)
    state = state.model_copy(update={"charity_money": (100, 0, 0, 0)})
    state = hg.give_shares(state, 1, "coal", charity=True)
    state, _ = _last_market_step(state, hg)
    coal = _price_now(state, "coal")
    assert state.donations == (100, coal, 0, 0)
    assert state.eliminated == (2, 3)


def test_charity_money_goes_back_to_the_bank_and_every_share_to_the_supply(table: TableBuilder, hg: HG) -> None:
    state = _ending(table, hg, donations={0: ["tea"]}, shares={1: ["tea", "coal"]})
    assert state.charity_money == (0, 0, 0, 0)
    assert len(state.supply) == 60
    assert state.bank_paid_in >= state.donations[0]
    total = sum(state.money)
    assert total == 4 * 300 + state.bank_paid_out - state.bank_paid_in


def test_a_finished_table_takes_no_action(table: TableBuilder, hg: HG) -> None:
    state = _ending(table, hg, donations={}, shares={})
    assert GAME.to_act(state) == []
    assert GAME.legal_actions(state, 0) == []
    with pytest.raises(IllegalAction) as caught:
        GAME.apply(state, 0, GAME.parse_action("end"))
    assert caught.value.rule == "7.4"
    assert all(SHARE_CARDS[c] for c in state.supply)
