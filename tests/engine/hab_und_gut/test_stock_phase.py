"""The stock phase (rulebook 4): buy or sell up to three, never both; one share to charity."""

from __future__ import annotations

import pytest

from engine.core import IllegalAction
from engine.hab_und_gut import GAME
from engine.hab_und_gut.components import SHARE_CARDS
from engine.hab_und_gut.state import HabState
from tests.engine.hab_und_gut.conftest import HG, TableBuilder


def _rule_of(state: HabState, seat: int, action_id: str) -> str | None:
    with pytest.raises(IllegalAction) as caught:
        GAME.apply(state, seat, GAME.parse_action(action_id))
    return caught.value.rule


def test_buying_pays_the_current_price_to_the_bank(table: TableBuilder, hg: HG) -> None:
    state = hg.with_prices(table(), coal=80, rubber=70)
    state, events = hg.act(state, 0, "buy:coal", "buy:rubber", "buy:rubber")
    assert state.money[0] == 300 - 80 - 70 - 70
    assert state.bank_paid_in == 220
    assert sorted(SHARE_CARDS[c].commodity for c in state.shares[0]) == ["coal", "rubber", "rubber"]
    assert [e.data["price"] for e in events if e.kind == "share_bought"] == [80, 70, 70]
    assert len(state.supply) == 57


def test_selling_takes_the_current_price_from_the_bank(table: TableBuilder, hg: HG) -> None:
    state = hg.give_shares(table(), 0, "salt", "tea")
    state = hg.with_prices(state, salt=150, tea=130)
    state, _ = hg.act(state, 0, "sell:salt", "sell:tea")
    assert state.money[0] == 300 + 150 + 130
    assert state.bank_paid_out == 280
    assert state.shares[0] == ()
    assert len(state.supply) == 60


def test_at_most_three_shares_are_traded_per_stock_phase(table: TableBuilder, hg: HG) -> None:
    state, _ = hg.act(table(), 0, "buy:coal", "buy:coal", "buy:tea")
    assert _rule_of(state, 0, "buy:salt") == "4.2"
    assert not any(a.kind == "buy" for a in GAME.legal_actions(state, 0))
    seller = hg.give_shares(table(), 0, *["coal"] * 4)
    seller, _ = hg.act(seller, 0, "sell:coal", "sell:coal", "sell:coal")
    assert _rule_of(seller, 0, "sell:coal") == "4.2"


def test_a_seat_that_bought_may_not_sell_and_vice_versa(table: TableBuilder, hg: HG) -> None:
    state = hg.give_shares(table(), 0, "coal")
    bought, _ = hg.act(state, 0, "buy:tea")
    assert _rule_of(bought, 0, "sell:coal") == "4.2"
    sold, _ = hg.act(state, 0, "sell:coal")
    assert _rule_of(sold, 0, "buy:tea") == "4.2"


def test_nothing_can_be_bought_at_zero_but_it_can_be_sold_for_nothing(table: TableBuilder, hg: HG) -> None:
    state = hg.with_prices(hg.give_shares(table(), 0, "wheat"), wheat=0)
    assert _rule_of(state, 0, "buy:wheat") == "4.3"
    state, _ = hg.act(state, 0, "sell:wheat")
    assert state.money[0] == 300
    assert state.shares[0] == ()


def test_the_supply_holds_ten_shares_per_commodity(table: TableBuilder, hg: HG) -> None:
    state = hg.give_shares(table(), 1, *["coffee"] * 10)
    assert _rule_of(state, 0, "buy:coffee") == "4.3"


def test_a_seat_cannot_spend_more_than_it_has(table: TableBuilder, hg: HG) -> None:
    state = hg.with_prices(table(), salt=250)
    state, _ = hg.act(state, 0, "buy:salt")
    assert state.money[0] == 50
    assert _rule_of(state, 0, "buy:salt") == "4.3"


def test_selling_needs_a_share_in_hand(table: TableBuilder) -> None:
    assert _rule_of(table(), 0, "sell:coal") == "4.4"


def test_one_share_goes_face_down_to_charity_even_one_bought_this_turn(table: TableBuilder, hg: HG) -> None:
    state, events = hg.act(table(), 0, "buy:tea", "donate:tea")
    assert state.shares[0] == ()
    assert [SHARE_CARDS[c].commodity for c in state.charity[0]] == ["tea"]
    public = [e for e in events if e.kind == "share_donated"]
    private = [e for e in events if e.kind == "share_donated_private"]
    assert public[0].audience is None and "tea" not in public[0].text + str(public[0].data)
    assert private[0].audience == (0,) and private[0].data["commodity"] == "tea"
    state, _ = hg.act(state, 0, "buy:tea")
    assert _rule_of(state, 0, "donate:tea") == "4.5"


def test_charity_needs_an_owned_share_and_a_given_share_cannot_be_sold(table: TableBuilder, hg: HG) -> None:
    assert _rule_of(table(), 0, "donate:coal") == "4.5"
    state, _ = hg.act(hg.give_shares(table(), 0, "coal"), 0, "donate:coal")
    assert _rule_of(state, 0, "sell:coal") == "4.4"


def test_charity_may_come_before_the_trade(table: TableBuilder, hg: HG) -> None:
    state = hg.give_shares(table(), 0, "coal", "salt")
    state, _ = hg.act(state, 0, "donate:salt", "sell:coal")
    assert state.shares[0] == () and len(state.charity[0]) == 1


def test_the_stock_phase_runs_clockwise_from_the_first_player_then_the_market(table: TableBuilder, hg: HG) -> None:
    state = table(seats=4)
    order = []
    while state.phase == "stock":
        order.append(state.actor)
        state, _ = hg.act(state, state.actor, "end")
    assert order == [0, 1, 2, 3]
    assert state.phase == "market" and state.actor == 0
    assert _rule_of(state, 0, "end") == "5.1"


def test_end_resets_the_trade_limits_for_the_next_seat(table: TableBuilder, hg: HG) -> None:
    state, _ = hg.act(table(), 0, "buy:coal", "buy:coal", "buy:coal", "end")
    assert state.actor == 1
    state, _ = hg.act(state, 1, "buy:coal", "buy:coal", "buy:coal")
    assert state.money[1] == 300 - 3 * 40


def test_the_default_action_ends_the_stock_phase(table: TableBuilder, hg: HG) -> None:
    state, _ = hg.act(table(), 0, "buy:coal")
    assert GAME.default_action(state, 0).id == "end"


def test_steps_take_the_lowest_numbered_share_card(table: TableBuilder, hg: HG) -> None:
    state, _ = hg.act(table(), 0, "buy:coal", "buy:coal")
    assert state.shares[0] == ("H.coal.01", "H.coal.02")
    state, _ = hg.act(state, 0, "donate:coal")
    assert state.charity[0] == ("H.coal.01",) and state.shares[0] == ("H.coal.02",)


def test_sales_are_public_with_their_price(table: TableBuilder, hg: HG) -> None:
    state = hg.with_prices(hg.give_shares(table(), 0, "tea"), tea=90)
    _, events = hg.act(state, 0, "sell:tea")
    sale = next(e for e in events if e.kind == "share_sold")
    assert sale.audience is None and sale.data == {"seat": 0, "commodity": "tea", "price": 90}
