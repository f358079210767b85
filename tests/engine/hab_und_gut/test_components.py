"""The component data: counts, track, card ids (rulebook 1)."""

from __future__ import annotations

import itertools
from collections import Counter

from engine.hab_und_gut.components import (
    COMMODITIES,
    MARKET_CARDS,
    SHARE_CARDS,
    SHARES_PER_COMMODITY,
    START_SPACE,
    TRACK,
    move_space,
)


def test_track_has_thirty_rising_spaces_from_0_to_250_starting_on_40() -> None:
    assert len(TRACK) == 30
    assert TRACK[0] == 0 and TRACK[-1] == 250
    assert all(a < b for a, b in itertools.pairwise(TRACK))
    assert TRACK[START_SPACE] == 40


def test_market_deck_is_54_cards_nine_per_commodity_with_more_up_than_down() -> None:
    assert len(MARKET_CARDS) == 54
    per_commodity = Counter(card.commodity for card in MARKET_CARDS.values())
    assert per_commodity == {c: 9 for c in COMMODITIES}
    coal = sorted(card.value for card in MARKET_CARDS.values() if card.commodity == "coal")
    assert coal == [-6, -4, -2, -2, 2, 2, 4, 4, 6]
    assert all(card.value % 2 == 0 for card in MARKET_CARDS.values())


def test_sixty_share_cards_ten_per_commodity() -> None:
    assert len(SHARE_CARDS) == 60
    assert Counter(card.commodity for card in SHARE_CARDS.values()) == {
        c: SHARES_PER_COMMODITY for c in COMMODITIES
    }


def test_no_card_id_occurs_inside_another() -> None:
    ids = [*MARKET_CARDS, *SHARE_CARDS]
    assert len(set(ids)) == 114
    for outer in ids:
        for inner in ids:
            if inner != outer:
                assert inner not in outer, (inner, outer)


def test_a_move_past_either_end_stops_at_the_end() -> None:
    assert move_space(27, 6) == 29
    assert move_space(2, -6) == 0
    assert move_space(8, 4) == 12
