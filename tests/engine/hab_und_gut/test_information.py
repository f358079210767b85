"""Hidden information (rulebook 8): views, events and summaries show only what a seat may see."""

from __future__ import annotations

from engine.core import events_for
from engine.hab_und_gut import GAME
from engine.hab_und_gut.audit import card_locations, hidden_from
from engine.hab_und_gut.view import HabView
from tests.engine.hab_und_gut.conftest import HG, TableBuilder


def test_a_seat_sees_its_two_holders_and_no_other(table: TableBuilder, hg: HG) -> None:
    state = table(seats=5)
    for seat in range(5):
        seen = hg.view(state, seat)
        assert {(h.holder, h.side) for h in seen.holders} == {
            (seat, "left"),
            ((seat - 1) % 5, "right"),
        }
        text = seen.model_dump_json()
        for number, holder in enumerate(state.holders):
            for card in holder:
                assert (card in text) == (number in (seat, (seat - 1) % 5))
        assert not any(card in text for card in state.deck)


def test_a_spectator_sees_no_holder_and_no_share_ids(table: TableBuilder, hg: HG) -> None:
    state = hg.give_shares(table(), 0, "coal")
    seen = hg.view(state, None)
    text = seen.model_dump_json()
    assert seen.holders == () and seen.my_shares == ()
    assert not any(card in text for card in hidden_from(state, None))
    assert seen.holder_sizes == (8, 8, 8, 8)
    assert str(state.seed) not in GAME.summary(state, None)


def test_others_see_how_many_shares_a_seat_holds_not_which(table: TableBuilder, hg: HG) -> None:
    state = hg.give_shares(table(), 0, "coal", "salt")
    state = hg.give_shares(state, 0, "tea", charity=True)
    mine = hg.view(state, 0)
    assert sorted(s.commodity for s in mine.my_shares) == ["coal", "salt"]
    assert [s.commodity for s in mine.my_charity] == ["tea"]
    other = hg.view(state, 1)
    assert other.my_shares == () and other.my_charity == ()
    assert other.seats[0].shares_held == 2 and other.seats[0].charity_face_down == 1
    for seat in (1, 2, 3, None):
        text = GAME.view(state, seat).model_dump_json() + GAME.summary(state, seat)
        assert not any(card in text for card in hidden_from(state, seat))


def test_a_face_down_donation_names_its_commodity_only_to_its_owner(table: TableBuilder, hg: HG) -> None:
    state = hg.give_shares(table(), 0, "rubber")
    _, events = hg.act(state, 0, "donate:rubber")
    for seat in (1, 2, 3, None):
        assert not any("rubber" in e.text + str(e.data) for e in events_for(events, seat))
    assert any("rubber" in e.text for e in events_for(events, 0))


def test_the_view_names_the_game_for_the_gateway_union(table: TableBuilder) -> None:
    seen = GAME.view(table(), 2)
    assert isinstance(seen, HabView) and seen.game == "hab-und-gut"
    assert HabView.model_fields["game"].annotation is not str


def test_audit_places_every_card_once_and_hides_the_deck_from_everybody(table: TableBuilder) -> None:
    state = table(seats=3)
    places = card_locations(state)
    assert len(places) == 114
    for seat in (0, 1, 2, None):
        assert set(state.deck) <= hidden_from(state, seat)
    assert set(state.holders[1]) <= hidden_from(state, 0)
    assert not set(state.holders[0]) & hidden_from(state, 0)


def test_the_summary_describes_the_seats_own_situation(table: TableBuilder, hg: HG) -> None:
    state = hg.give_shares(table(), 1, "wheat")
    text = GAME.summary(state, 1)
    assert "You are seat 1" in text and "Your shares: wheat" in text
    assert "Holder 1 on your left" in text and "Holder 0 on your right" in text
    assert "Seat 0 decides now" in text


def test_states_and_views_survive_a_json_round_trip(table: TableBuilder, hg: HG) -> None:
    state = hg.give_shares(table(), 0, "coal")
    state, _ = hg.act(state, 0, "buy:tea", "donate:coal")
    for _ in range(3):
        assert GAME.state_model.model_validate_json(state.model_dump_json()) == state
        for seat in (0, 1, None):
            seen = GAME.view(state, seat)
            assert GAME.view_model.model_validate_json(seen.model_dump_json()) == seen
        state = hg.play_turns(state, 4)
    assert GAME.outcome(state) is not None
    config = GAME.config_model.model_validate({"mode": "standard", "seats": 3})
    assert GAME.new_table(config, 1).seats == 3
