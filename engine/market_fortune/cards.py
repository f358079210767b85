"""The Market Fortune card catalogue as data (engine/market_fortune/rulebook.md sections 1 and 12).

Everything numeric about the game lives here once: the quiz computes its
answers from these constants and the rules import them, so a number is never
typed twice.

Card ids are unique strings, and no id occurs inside another one:

* Stocks  ``S.<industry>.<value>``  e.g. ``S.energy.3``
* Returns ``R.<industry>.<value>``  e.g. ``R.banking.5``
* Strategies ``X.<kind>.<copy>``    e.g. ``X.theft.2``
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

__all__ = [
    "ALL_CARD_IDS",
    "BAILOUT_DISCARDS",
    "BOOMING_INDUSTRY_BONUS",
    "BUILDING_TOTAL",
    "BUY_MORE_DRAWS",
    "CATALOGUE",
    "COMPOUND_INTEREST_BONUS",
    "DECK_SIZE",
    "DIE_FACES",
    "DIE_MINUS_FACES",
    "DIE_PLUS_FACES",
    "DIVERSIFICATION_KING_BONUS",
    "DIVIDENDS_BONUS",
    "DIVIDENDS_MIN_STOCK",
    "INDUSTRIES",
    "INVESTMENTS_TO_WIN",
    "LIQUIDITY_DRAWS",
    "LUCKY_INVESTOR_DRAWS",
    "MATCH_GAME_LIMIT",
    "MATCH_TARGET",
    "MAXIMUM_RETURN_VALUE",
    "MAX_CARD_VALUE",
    "MAX_INVESTMENT_VALUE",
    "MAX_SEATS",
    "MIN_CARD_VALUE",
    "MIN_INVESTMENT_VALUE",
    "MIN_SEATS",
    "RETURNS_DEALT",
    "RETURN_IDS",
    "ROLL_OFF_LIMIT",
    "SHORT_INVESTMENT_VALUE",
    "STOCKS_DEALT",
    "STOCK_IDS",
    "STRATEGY_IDS",
    "TOTAL_CARDS",
    "TURN_LIMIT_PER_SEAT",
    "VALUES",
    "VICTORY_VALUE",
    "CardType",
    "Colour",
    "StrategyKind",
    "Targeting",
    "card_industry",
    "card_name",
    "card_type",
    "card_value",
    "is_building",
    "kind_of",
    "strategy",
]

# -- the Fortune Die (1.3) ----------------------------------------------------
DIE_FACES = 6
DIE_PLUS_FACES = 4
DIE_MINUS_FACES = 2

# -- building cards (1.1, 1.2) --------------------------------------------------
INDUSTRIES: tuple[str, ...] = (
    "energy",
    "banking",
    "technology",
    "health",
    "retail",
    "transport",
    "media",
    "mining",
    "farming",
    "property",
    "telecom",
    "aerospace",
)
"""The twelve industries, in catalogue order."""

MIN_CARD_VALUE = 1
MAX_CARD_VALUE = 5
VALUES: tuple[int, ...] = tuple(range(MIN_CARD_VALUE, MAX_CARD_VALUE + 1))
"""Face values (in millions) of Stocks and Returns: one card of each per industry."""

DECK_SIZE = len(INDUSTRIES) * len(VALUES)
"""Cards in each of the three decks (60)."""
TOTAL_CARDS = 3 * DECK_SIZE
"""All cards of the game (180)."""

MIN_INVESTMENT_VALUE = 2 * MIN_CARD_VALUE
MAX_INVESTMENT_VALUE = 2 * MAX_CARD_VALUE

# -- setup and play (2, 3, 4, 8, 9) -------------------------------------------------
MIN_SEATS = 2
MAX_SEATS = 6
STOCKS_DEALT = 4
RETURNS_DEALT = 4
BUILDING_TOTAL = STOCKS_DEALT + RETURNS_DEALT
"""The 8-card rule: hand plus investment cards at the end of a turn (4.1)."""
INVESTMENTS_TO_WIN = 4
VICTORY_VALUE = 25
"""Millions a count must reach in Fortune and Championship (8.2)."""
MATCH_TARGET = 100
"""Millions of match total that win a Championship (9.3)."""
MATCH_GAME_LIMIT = 25
"""Games after which a Championship match ends with ``match_limit`` (9.3)."""
TURN_LIMIT_PER_SEAT = 150
"""Turns per seat after which a game ends with ``turn_limit`` (3.7)."""
ROLL_OFF_LIMIT = 20
"""Roll-off rounds before the lowest seat still in opens (2.2)."""

# -- numbers printed on Strategies (12) ---------------------------------------------
COMPOUND_INTEREST_BONUS = 2
BUY_MORE_DRAWS = 2
LIQUIDITY_DRAWS = 3
BAILOUT_DISCARDS = 1
LUCKY_INVESTOR_DRAWS = 2
MAXIMUM_RETURN_VALUE = 5
SHORT_INVESTMENT_VALUE = 6
BOOMING_INDUSTRY_BONUS = 3
DIVERSIFICATION_KING_BONUS = 4
DIVIDENDS_BONUS = 1
DIVIDENDS_MIN_STOCK = 4

CardType = Literal["stock", "return", "strategy"]
Colour = Literal["red", "blue", "green", "yellow"]
Targeting = Literal["none", "one", "all", "group"]
"""Who a Strategy hits: nobody, one chosen opponent, every opponent, or the
opponents that meet its condition."""


@dataclass(frozen=True, slots=True)
class StrategyKind:
    """One of the 27 Strategy kinds: a row of the catalogue (section 12)."""

    key: str
    name: str
    colour: Colour
    copies: int
    targeting: Targeting
    effect: str
    section: str

    @property
    def is_attack(self) -> bool:
        """A red that targets opponents opens defence windows (7.1)."""
        return self.targeting != "none"

    def card_ids(self) -> tuple[str, ...]:
        """The ids of this kind's copies, ``X.<key>.1`` upwards."""
        return tuple(f"X.{self.key}.{copy}" for copy in range(1, self.copies + 1))


CATALOGUE: tuple[StrategyKind, ...] = (
    # reds: two copies each, played on your own Dominate turn (6.2)
    StrategyKind("theft", "Theft", "red", 2, "one",
                 "Take one random building card from the target's hand, then discard one building card.", "12.1"),
    StrategyKind("market_crash", "Market Crash", "red", 2, "all",
                 "Every opponent who does not defend loses all investments to the discard piles, with no replacement.", "12.2"),
    StrategyKind("correction", "Correction", "red", 2, "one",
                 "A target equal or further ahead takes one investment of its choice back into its hand.", "12.3"),
    StrategyKind("fortune", "Fortune", "red", 2, "none",
                 "Form an investment from your hand without rolling the die; Momentum applies.", "12.4"),
    StrategyKind("compound_interest", "Compound Interest", "red", 2, "none",
                 "Mark one of your investments: it counts 2M more at the count (one mark per investment).", "12.5"),
    StrategyKind("buy_more", "Buy More", "red", 2, "none",
                 "Draw two building cards from the decks or the discard tops, then discard two.", "12.6"),
    StrategyKind("shrewd_move", "Shrewd Move", "red", 2, "none",
                 "Take another turn straight after this one.", "12.7"),
    StrategyKind("federal_audit", "Federal Audit", "red", 2, "one",
                 "The target shows you its hand; you take one Strategy of your choice from it.", "12.8"),
    StrategyKind("negotiation", "Negotiation", "red", 2, "one",
                 "Give the target one building card of your choice, then take one of its other building cards at random.", "12.9"),
    StrategyKind("regulatory_block", "Regulatory Block", "red", 2, "one",
                 "The target loses its next turn.", "12.10"),
    StrategyKind("liquidity", "Liquidity", "red", 2, "none",
                 "Draw three building cards from the decks, then discard three.", "12.11"),
    StrategyKind("inflation", "Inflation", "red", 2, "group",
                 "Every opponent equal or further ahead discards one building card of its choice.", "12.12"),
    StrategyKind("bailout", "Bailout", "red", 2, "none",
                 "Only in last place: take any face-up card from a building discard pile, then discard one.", "12.13"),
    StrategyKind("lucky_investor", "Lucky Investor", "red", 2, "none",
                 "Roll the die: on a plus, draw two Strategies.", "12.14"),
    StrategyKind("systemic_risk", "Systemic Risk", "red", 2, "group",
                 "Every leader other than you takes its most recent investment back into its hand.", "12.15"),
    # blues: three copies each, played only in a defence window (6.3, 7.2)
    StrategyKind("risk_control", "Risk Control", "blue", 3, "none",
                 "Cancel the attack on you.", "12.16"),
    StrategyKind("stablecoin", "Stablecoin", "blue", 3, "none",
                 "Cancel the attack on you and draw one Strategy.", "12.17"),
    StrategyKind("diamond_hands", "Diamond Hands", "blue", 3, "none",
                 "Cancel an attack that would take your investments; this card goes back to your hand.", "12.18"),
    StrategyKind("experience", "Experience", "blue", 3, "none",
                 "Cancel the attack on you and see the attacker's hand.", "12.19"),
    StrategyKind("wrong_analyst", "Wrong Analyst", "blue", 3, "none",
                 "Cancel the attack on you and turn it on the attacker, who may defend in turn.", "12.20"),
    StrategyKind("contingency_plan", "Contingency Plan", "blue", 3, "none",
                 "Cancel the attack on you; the attacker discards one random building card.", "12.21"),
    # greens: two copies each, modifiers (6.4)
    StrategyKind("innovation", "Innovation", "green", 2, "none",
                 "Attach when forming an investment: its Stock and Return may come from different industries.", "12.22"),
    StrategyKind("maximum_return", "Maximum Return", "green", 2, "none",
                 "At the count, one investment's Return counts 5M.", "12.23"),
    StrategyKind("short_investment", "Short Investment", "green", 2, "none",
                 "At the count, one investment counts 6M whatever its cards.", "12.24"),
    # yellows: two copies each, bonuses at the count (6.5)
    StrategyKind("booming_industry", "Booming Industry", "yellow", 2, "none",
                 "3M more if two of your investments share an industry.", "12.25"),
    StrategyKind("diversification_king", "Diversification King", "yellow", 2, "none",
                 "4M more if your four investments come from four different industries.", "12.26"),
    StrategyKind("dividends", "Dividends", "yellow", 2, "none",
                 "1M more for each investment whose Stock is worth 4M or more.", "12.27"),
)  # fmt: skip
"""The 27 Strategy kinds in section order (12.1 .. 12.27)."""

_BY_KEY: dict[str, StrategyKind] = {kind.key: kind for kind in CATALOGUE}

STOCK_IDS: tuple[str, ...] = tuple(f"S.{i}.{v}" for i in INDUSTRIES for v in VALUES)
RETURN_IDS: tuple[str, ...] = tuple(f"R.{i}.{v}" for i in INDUSTRIES for v in VALUES)
STRATEGY_IDS: tuple[str, ...] = tuple(cid for kind in CATALOGUE for cid in kind.card_ids())
ALL_CARD_IDS: tuple[str, ...] = STOCK_IDS + RETURN_IDS + STRATEGY_IDS
"""Every card id of the game, 180 of them."""

_ALL_SET = frozenset(ALL_CARD_IDS)


def strategy(key: str) -> StrategyKind:
    """The catalogue row for a Strategy kind key; raises ``KeyError``."""
    return _BY_KEY[key]


@cache
def _parts(card_id: str) -> tuple[str, str, int]:
    prefix, middle, number = card_id.split(".")
    return prefix, middle, int(number)


_PARTS: dict[str, tuple[str, str, int]] = {card_id: _parts(card_id) for card_id in _ALL_SET}
"""Every card id split once, at import: the rules and bots ask on every step."""

_split = _PARTS.__getitem__
"""``(prefix, middle, number)`` of a card id; ``KeyError`` for an unknown id."""


def card_type(card_id: str) -> CardType:
    """``stock``, ``return`` or ``strategy``; raises ``KeyError`` for an unknown id."""
    prefix = _split(card_id)[0]
    return "stock" if prefix == "S" else "return" if prefix == "R" else "strategy"


def is_building(card_id: str) -> bool:
    """True for Stocks and Returns (1.4)."""
    return _split(card_id)[0] != "X"


def card_industry(card_id: str) -> str:
    """The industry of a Stock or Return."""
    return _split(card_id)[1]


def card_value(card_id: str) -> int:
    """The face value in millions of a Stock or Return."""
    return _split(card_id)[2]


def kind_of(card_id: str) -> StrategyKind:
    """The Strategy kind of a Strategy card id (``KeyError`` for any other id)."""
    return _KINDS[card_id]


def _name(card_id: str) -> str:
    prefix, middle, number = _split(card_id)
    if prefix == "X":
        return _BY_KEY[middle].name
    deck = "Stock" if prefix == "S" else "Return"
    return f"{middle.capitalize()} {deck} {number}M"


_NAMES: dict[str, str] = {card_id: _name(card_id) for card_id in _ALL_SET}
"""Every card's display name, formatted once: events name cards on every step."""


def card_name(card_id: str) -> str:
    """A card's display name: ``Energy Stock 3M``, ``Banking Return 5M``, ``Theft``."""
    return _NAMES[card_id]


_KINDS: dict[str, StrategyKind] = {card_id: _BY_KEY[_split(card_id)[1]] for card_id in STRATEGY_IDS}
"""Strategy card id -> its kind, built once."""


def _check_catalogue() -> None:
    """Guards the printed totals (1.5): 27 kinds, 60 Strategies, 180 cards."""
    counts = {colour: 0 for colour in ("red", "blue", "green", "yellow")}
    for kind in CATALOGUE:
        counts[kind.colour] += 1
    assert len(CATALOGUE) == 27, len(CATALOGUE)
    assert counts == {"red": 15, "blue": 6, "green": 3, "yellow": 3}, counts
    assert len(STRATEGY_IDS) == DECK_SIZE
    assert len(_ALL_SET) == TOTAL_CARDS
    assert [kind.section for kind in CATALOGUE] == [f"12.{n}" for n in range(1, 28)]


_check_catalogue()
