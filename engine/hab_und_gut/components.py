"""Hab & Gut components as data: commodities, the price track, the two decks.

Everything the rulebook's tables show (engine/hab_und_gut/rulebook.md, section 1) is
rendered from the constants here, so the printed tables and the engine cannot
drift apart. Card ids are fixed-width per kind (``H.coal.07``,
``M.coal.+4.b``), so no id ever occurs inside another one; the gateway's leak
scan relies on that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

__all__ = [
    "COMMODITIES",
    "HALF_SPACES",
    "HOLDER_SIZE",
    "MARKET_CARDS",
    "MARKET_VALUES",
    "MAX_CHARITY_PER_TURN",
    "MAX_SEATS",
    "MAX_TRADE",
    "MIN_SEATS",
    "ROUNDS",
    "SHARES_PER_COMMODITY",
    "SHARE_CARDS",
    "START_MONEY",
    "START_SPACE",
    "TRACK",
    "TURNS_PER_ROUND",
    "Commodity",
    "MarketCard",
    "ShareCard",
    "market_card",
    "move_space",
    "share_card",
]

Commodity = Literal["coal", "wheat", "coffee", "rubber", "tea", "salt"]
"""One of the six traded goods."""

COMMODITIES: Final[tuple[Commodity, ...]] = ("coal", "wheat", "coffee", "rubber", "tea", "salt")
"""The six commodities in board order (rulebook 1.1)."""

TRACK: Final[tuple[int, ...]] = (
    0, 5, 10, 15, 20, 25, 30, 35, 40, 45,
    50, 55, 60, 70, 80, 90, 100, 110, 120, 130,
    140, 150, 160, 170, 180, 190, 200, 220, 235, 250,
)  # fmt: skip
"""The price printed on each of the 30 spaces of a commodity's track (rulebook 1.2)."""

START_SPACE: Final = 8
"""Every marker starts on the space worth 40 (rulebook 2.1)."""

MARKET_VALUES: Final[tuple[int, ...]] = (6, 4, 4, 2, 2, -2, -2, -4, -6)
"""The spaces moved by each commodity's nine market cards (rulebook 1.3)."""

SHARES_PER_COMMODITY: Final = 10
"""Share cards per commodity; the supply never holds more (rulebook 1.4)."""

START_MONEY: Final = 300
"""Money each seat starts with (rulebook 2.1)."""

MIN_SEATS: Final = 3
MAX_SEATS: Final = 5
"""Seat counts of the standard mode (rulebook 2.1)."""

HOLDER_SIZE: Final = 8
"""Market cards dealt into each holder at the start of a round (rulebook 2.3)."""

ROUNDS: Final = 2
TURNS_PER_ROUND: Final = 4
"""Two rounds of four turns (rulebook 3.1)."""

MAX_TRADE: Final = 3
"""At most three shares bought, or three sold, in one stock phase (rulebook 4.2)."""

MAX_CHARITY_PER_TURN: Final = 1
"""At most one share placed on the charity board per stock phase (rulebook 4.5).

The stock phase records a giving as one flag (``StockProgress.donated``), so
the rules read this limit through that flag; a larger limit would need a count."""

_SUFFIXES: Final = "abcdefghi"


@dataclass(frozen=True, slots=True)
class MarketCard:
    """A market card: moves one commodity's marker by ``value`` spaces."""

    id: str
    commodity: Commodity
    value: int

    @property
    def label(self) -> str:
        """The printed face, e.g. ``coal +4``."""
        return f"{self.commodity} {self.value:+d}"


@dataclass(frozen=True, slots=True)
class ShareCard:
    """A share card of one commodity."""

    id: str
    commodity: Commodity


def _build_market() -> dict[str, MarketCard]:
    cards: dict[str, MarketCard] = {}
    for commodity in COMMODITIES:
        seen: dict[int, int] = {}
        for value in MARKET_VALUES:
            copy = seen.get(value, 0)
            seen[value] = copy + 1
            card_id = f"M.{commodity}.{value:+d}.{_SUFFIXES[copy]}"
            cards[card_id] = MarketCard(card_id, commodity, value)
    return cards


def _build_shares() -> dict[str, ShareCard]:
    cards: dict[str, ShareCard] = {}
    for commodity in COMMODITIES:
        for number in range(1, SHARES_PER_COMMODITY + 1):
            card_id = f"H.{commodity}.{number:02d}"
            cards[card_id] = ShareCard(card_id, commodity)
    return cards


MARKET_CARDS: Final[dict[str, MarketCard]] = _build_market()
"""All 54 market cards by id."""

SHARE_CARDS: Final[dict[str, ShareCard]] = _build_shares()
"""All 60 share cards by id."""

HALF_SPACES: Final[dict[int, int]] = {value: value // 2 for value in sorted(set(MARKET_VALUES))}
"""Card value -> spaces moved when halved."""


def market_card(card_id: str) -> MarketCard:
    """The market card with id ``card_id`` (KeyError if none)."""
    return MARKET_CARDS[card_id]


def share_card(card_id: str) -> ShareCard:
    """The share card with id ``card_id`` (KeyError if none)."""
    return SHARE_CARDS[card_id]


def move_space(space: int, spaces: int) -> int:
    """The space a marker lands on after moving; stops at either end (rulebook 5.3)."""
    return max(0, min(len(TRACK) - 1, space + spaces))
