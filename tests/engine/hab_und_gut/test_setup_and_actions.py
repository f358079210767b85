"""Setup (rulebook 2), turn order (3) and the action ids (9)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from engine.core import Game, InvalidConfig, MalformedAction, NotYourTurn
from engine.hab_und_gut import GAME
from engine.hab_und_gut.actions import Buy, Halve, Play
from engine.hab_und_gut.audit import card_locations
from engine.hab_und_gut.components import TRACK
from engine.hab_und_gut.state import HabConfig
from engine.registry import get_game
from tests.engine.hab_und_gut.conftest import HG, TableBuilder


def test_the_game_is_registered_and_satisfies_the_contract() -> None:
    assert get_game("hab-und-gut") is GAME
    assert isinstance(GAME, Game)
    assert GAME.info.modes[0].min_seats == 3 and GAME.info.modes[0].max_seats == 5


@pytest.mark.parametrize(
    "config",
    [
        HabConfig(seats=2),
        HabConfig(seats=6),
        HabConfig(seats=4, mode="duel"),
        HabConfig(seats=4, variants=("two_player",)),
    ],
)
def test_unplayable_configurations_are_refused(config: HabConfig) -> None:
    with pytest.raises(InvalidConfig):
        GAME.new_table(config, 1)


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_setup_deals_eight_cards_into_each_holder_and_300_to_each_seat(seats: int) -> None:
    state = GAME.new_table(HabConfig(seats=seats), 11)
    assert [len(h) for h in state.holders] == [8] * seats
    assert len(state.deck) == 54 - 8 * seats
    assert state.money == (300,) * seats
    assert all(TRACK[space] == 40 for space in state.prices)
    assert len(state.supply) == 60
    assert len(card_locations(state)) == 114
    assert state.turn == 1 and state.phase == "stock"
    assert GAME.to_act(state) == [0]


def test_the_deal_depends_only_on_the_seed() -> None:
    first = GAME.new_table(HabConfig(seats=4), 5)
    assert GAME.new_table(HabConfig(seats=4), 5) == first
    assert GAME.new_table(HabConfig(seats=4), 6).holders != first.holders


def test_only_the_seat_to_act_may_act(table: TableBuilder) -> None:
    state = table()
    assert GAME.legal_actions(state, 1) == []
    with pytest.raises(NotYourTurn) as caught:
        GAME.apply(state, 1, GAME.parse_action("end"))
    assert caught.value.rule == "3.2"


def test_every_listed_action_round_trips_through_its_id(table: TableBuilder, hg: HG) -> None:
    state = hg.give_shares(table(), 0, "coal", "tea")
    adapter = TypeAdapter(GAME.action_type)
    seen = set()
    for _ in range(3):
        legal = GAME.legal_actions(state, state.actor)
        for action in legal:
            assert GAME.parse_action(action.id) == action
            assert adapter.validate_python(action.model_dump()) == action
            assert action.text
            seen.add(action.kind)
        if state.phase == "stock":
            state = hg.finish_stock_phase(state)
        else:
            state, _ = GAME.apply(state, state.actor, legal[0])
    assert seen == {"buy", "sell", "donate", "end", "play", "halve"}


def test_action_lists_are_sorted_by_id(table: TableBuilder, hg: HG) -> None:
    state = hg.give_shares(table(), 0, "salt")
    ids = [a.id for a in GAME.legal_actions(state, 0)]
    assert ids == sorted(ids)
    assert ids == [
        "buy:coal", "buy:coffee", "buy:rubber", "buy:salt", "buy:tea", "buy:wheat",
        "donate:salt", "end", "sell:salt",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "action_id",
    [
        "",
        "buy",
        "buy:gold",
        "buy:coal=2",
        "play:up:coal+6",
        "play:left:coal+5",
        "halve:left:coal6",
        "END",
    ],
)
def test_malformed_ids_are_refused(action_id: str) -> None:
    with pytest.raises(MalformedAction):
        GAME.parse_action(action_id)


def test_parsed_ids_give_the_expected_actions() -> None:
    assert GAME.parse_action("buy:coal") == Buy(commodity="coal")
    assert GAME.parse_action("play:left:salt+6") == Play(side="left", commodity="salt", value=6)
    assert GAME.parse_action("halve:right:tea-2") == Halve(side="right", commodity="tea", value=-2)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(alphabet="abcdefghilnoprstuvwyz:+-0123456789", max_size=24),
        st.from_regex(
            r"(buy|sell|donate):(coal|tea|salt|gold)|(play|halve):(left|right|up):(coal|wheat|x)[+-][0-9]",
            fullmatch=True,
        ),
    )
)
def test_any_string_either_parses_to_a_round_tripping_action_or_is_malformed(text: str) -> None:
    try:
        action = GAME.parse_action(text)
    except MalformedAction:
        return
    assert action.id == text
    assert GAME.parse_action(action.id) == action


def test_structured_bodies_with_an_unknown_kind_are_refused() -> None:
    adapter = TypeAdapter(GAME.action_type)
    with pytest.raises(ValidationError):
        adapter.validate_python({"kind": "steal", "commodity": "coal"})
    with pytest.raises(ValidationError):
        adapter.validate_python({"kind": "buy", "commodity": "gold"})
