"""The table state of Hab & Gut: plain, immutable, small.

Card positions are tuples of ids (sorted where the order carries no meaning),
money is whole numbers, and chance is only the table seed plus a counter (see
:mod:`engine.chance`). ``apply`` replaces just the fields an action changes.
"""

from __future__ import annotations

from typing import Literal

from engine.core import EngineModel, Seat, TableConfig, evolve

from .components import ROUNDS, TURNS_PER_ROUND

__all__ = [
    "HabConfig",
    "HabState",
    "Phase",
    "Side",
    "StockProgress",
    "TradeKind",
    "evolve",
    "holder_of",
    "neighbours_of_holder",
]

Phase = Literal["stock", "market", "over"]
"""Which phase the current turn is in; ``over`` once the table has ended."""

Side = Literal["left", "right"]
"""A holder relative to a seat: ``left`` is the holder the seat deals into."""

TradeKind = Literal["none", "buy", "sell"]
"""What the acting seat has traded so far in this stock phase."""


class HabConfig(TableConfig):
    """A Hab & Gut table: mode ``standard``, 3 to 5 seats, no variants."""

    mode: str = "standard"


class StockProgress(EngineModel):
    """What the acting seat has already done in its current stock phase (rulebook 4)."""

    trade: TradeKind = "none"
    count: int = 0
    """Shares bought or sold so far (at most three)."""
    donated: bool = False
    """Whether a share went to the charity board this phase."""


class HabState(EngineModel):
    """Everything about a Hab & Gut table; only :func:`~engine.hab_und_gut.view.view` shows it."""

    seats: int
    seed: int
    chance: int
    """The next chance counter for :mod:`engine.chance`."""
    turn: int
    """1..8 (rounds of four turns); stays 8 once the table is over."""
    phase: Phase
    order_index: int
    """How many seats have finished the current phase this turn."""
    prices: tuple[int, ...]
    """Track space of each commodity's marker, in board order."""
    money: tuple[int, ...]
    shares: tuple[tuple[str, ...], ...]
    """Share cards each seat holds (sorted ids)."""
    charity: tuple[tuple[str, ...], ...]
    """Face-down share cards on each seat's charity board (in placement order)."""
    charity_money: tuple[int, ...]
    """Frozen charity proceeds per seat; returned to the bank at the end."""
    supply: tuple[str, ...]
    """Share cards in the bank's supply (sorted ids)."""
    holders: tuple[tuple[str, ...], ...]
    """Market cards in each holder (sorted ids); holder ``h`` sits left of seat ``h``."""
    deck: tuple[str, ...]
    """Undealt market cards (hidden from everybody)."""
    discards: tuple[str, ...]
    """Market cards played this round, in the order played (public)."""
    stock: StockProgress = StockProgress()
    full_side: Side | None = None
    """In the market phase: the side the full card came from, once played."""
    bank_paid_in: int = 0
    """Money the bank has received (purchases, returned charity money)."""
    bank_paid_out: int = 0
    """Money the bank has paid (sales, charity proceeds)."""
    donations: tuple[int, ...] = ()
    """Each seat's charity total as compared at the end (empty until then)."""
    eliminated: tuple[Seat, ...] = ()
    winners: tuple[Seat, ...] = ()

    @property
    def round(self) -> int:
        """The round (1 or 2) the current turn belongs to."""
        return min(ROUNDS, (self.turn - 1) // TURNS_PER_ROUND + 1)

    @property
    def first_player(self) -> Seat:
        """The seat that opens this turn: seat 0 in turn 1, then one seat left per turn."""
        return (self.turn - 1) % self.seats

    @property
    def actor(self) -> Seat:
        """The seat that decides now (meaningless once the table is over)."""
        return (self.first_player + self.order_index) % self.seats




def holder_of(seat: Seat, side: Side, seats: int) -> int:
    """The holder on ``side`` of ``seat`` (rulebook 2.2): on the left the one it deals into,
    which has its number; on the right its right neighbour's left holder."""
    return seat if side == "left" else (seat - 1) % seats


def neighbours_of_holder(holder: int, seats: int) -> tuple[Seat, Seat]:
    """The two seats that see ``holder``: its dealer and the dealer's left neighbour."""
    return tuple(sorted({holder, (holder + 1) % seats}))  # type: ignore[return-value]
