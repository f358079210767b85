"""The catalogue keeps the printed totals (docs sections 1 and 12)."""

from __future__ import annotations

from collections import Counter

from engine.market_fortune import cards


def test_decks_hold_180_unique_cards() -> None:
    assert len(cards.ALL_CARD_IDS) == cards.TOTAL_CARDS == 180
    assert len(set(cards.ALL_CARD_IDS)) == cards.TOTAL_CARDS
    assert len(cards.STOCK_IDS) == len(cards.RETURN_IDS) == len(cards.STRATEGY_IDS) == 60


def test_no_id_occurs_inside_another() -> None:
    for card_id in cards.ALL_CARD_IDS:
        inside = [other for other in cards.ALL_CARD_IDS if other != card_id and card_id in other]
        assert inside == [], card_id


def test_each_industry_has_one_card_of_each_value() -> None:
    assert len(cards.INDUSTRIES) == 12
    for ids in (cards.STOCK_IDS, cards.RETURN_IDS):
        pairs = Counter((cards.card_industry(c), cards.card_value(c)) for c in ids)
        assert set(pairs.values()) == {1}
        assert {v for _, v in pairs} == set(cards.VALUES) == {1, 2, 3, 4, 5}


def test_strategy_colours_and_copies() -> None:
    by_colour: Counter[str] = Counter()
    for kind in cards.CATALOGUE:
        by_colour[kind.colour] += kind.copies
    assert by_colour == {"red": 30, "blue": 18, "green": 6, "yellow": 6}
    assert [k.section for k in cards.CATALOGUE] == [f"12.{n}" for n in range(1, 28)]
    assert cards.kind_of("X.theft.2").name == "Theft"
    assert cards.card_type("R.energy.3") == "return"
    assert not cards.is_building("X.fortune.1")


def test_die_and_investment_bounds() -> None:
    assert cards.DIE_PLUS_FACES + cards.DIE_MINUS_FACES == cards.DIE_FACES
    assert cards.MIN_INVESTMENT_VALUE == 2 and cards.MAX_INVESTMENT_VALUE == 10
    dealt = cards.MAX_SEATS * cards.BUILDING_TOTAL
    assert dealt <= 2 * cards.DECK_SIZE
