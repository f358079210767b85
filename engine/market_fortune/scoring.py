"""Market terms (section 10) and the final count (section 8.1)."""

from __future__ import annotations

from itertools import permutations

from engine.core import EngineModel
from engine.market_fortune import cards
from engine.market_fortune.state import Investment, MarketFortuneState, SeatState

__all__ = [
    "Count",
    "count",
    "equal_or_ahead",
    "is_last_place",
    "leaders",
    "portfolio_value",
]


def leaders(state: MarketFortuneState) -> tuple[int, ...]:
    """Seats with the most investments (10.1); nobody while every seat has none."""
    sizes = [len(seat.investments) for seat in state.seats]
    most = max(sizes)
    if most == 0:
        return ()
    return tuple(i for i, size in enumerate(sizes) if size == most)


def is_last_place(state: MarketFortuneState, seat: int) -> bool:
    """A seat with the fewest investments; nobody when every seat ties (10.2)."""
    sizes = [len(s.investments) for s in state.seats]
    fewest = min(sizes)
    return fewest != max(sizes) and sizes[seat] == fewest


def equal_or_ahead(state: MarketFortuneState, seat: int, other: int) -> bool:
    """``other`` has at least as many investments as ``seat`` (10.3)."""
    return len(state.seats[other].investments) >= len(state.seats[seat].investments)


class Count(EngineModel):
    """The breakdown of one seat's count (8.1), in millions."""

    cards: int
    """Sum of Stock + Return face values."""
    compound: int
    """Compound Interest marks (12.5)."""
    greens: int
    """Maximum Return and Short Investment applied where they add most (6.4)."""
    yellows: int
    """Booming Industry, Diversification King and Dividends bonuses (6.5)."""
    greens_used: tuple[str, ...] = ()
    """Kinds (not ids) of the greens that added value."""
    yellows_used: tuple[str, ...] = ()
    """Kinds (not ids) of the yellows whose condition held."""

    @property
    def total(self) -> int:
        """The value compared with 25M (8.2)."""
        return self.cards + self.compound + self.greens + self.yellows


def portfolio_value(seat: SeatState) -> int:
    """Face value of a seat's investments plus marks, without Strategies in hand."""
    return sum(
        cards.card_value(inv.stock)
        + cards.card_value(inv.ret)
        + (cards.COMPOUND_INTEREST_BONUS if inv.marked else 0)
        for inv in seat.investments
    )


def _green_gain(key: str, inv: Investment) -> int:
    face = cards.card_value(inv.stock) + cards.card_value(inv.ret)
    if key == "maximum_return":
        return cards.MAXIMUM_RETURN_VALUE - cards.card_value(inv.ret)
    return cards.SHORT_INVESTMENT_VALUE - face


def _best_greens(seat: SeatState, held: tuple[str, ...]) -> tuple[int, tuple[str, ...]]:
    """Assign the greens of ``held`` to investments (one per investment) for the largest gain."""
    greens = [
        cards.kind_of(card).key
        for card in held
        if cards.kind_of(card).key in ("maximum_return", "short_investment")
    ]
    # An investment that carries Innovation already has its one green (6.4).
    open_slots = [inv for inv in seat.investments if inv.innovation is None]
    if not greens or not open_slots:
        return 0, ()
    best: tuple[int, tuple[str, ...]] = (0, ())
    slots: list[Investment | None] = [*open_slots, *([None] * len(greens))]
    for assignment in set(permutations(range(len(slots)), len(greens))):
        gain = 0
        used: list[str] = []
        for key, slot in zip(greens, assignment, strict=True):
            inv = slots[slot]
            if inv is None:
                continue
            delta = _green_gain(key, inv)
            if delta > 0:
                gain += delta
                used.append(key)
        if gain > best[0]:
            best = (gain, tuple(sorted(used)))
    return best


def count(seat: SeatState, momentum: str | None = None) -> Count:
    """A seat's count at the market close (8.1): cards, marks, greens and yellows.

    ``momentum`` is the Strategy Momentum gave for the investment just formed:
    it is kept but not used when winning (3.5), so it counts for nothing here.
    """
    held = seat.strategies if momentum is None else tuple(c for c in seat.strategies if c != momentum)
    face = sum(cards.card_value(inv.stock) + cards.card_value(inv.ret) for inv in seat.investments)
    compound = cards.COMPOUND_INTEREST_BONUS * sum(1 for inv in seat.investments if inv.marked)
    greens, greens_used = _best_greens(seat, held)
    industries = [cards.card_industry(inv.stock) for inv in seat.investments]
    yellows = 0
    yellows_used: list[str] = []
    for card in held:
        key = cards.kind_of(card).key
        bonus = 0
        if key == "booming_industry" and len(set(industries)) < len(industries):
            bonus = cards.BOOMING_INDUSTRY_BONUS
        elif key == "diversification_king" and (
            len(industries) >= cards.INVESTMENTS_TO_WIN
            and len(set(industries)) == len(industries)
        ):
            bonus = cards.DIVERSIFICATION_KING_BONUS
        elif key == "dividends":
            bonus = cards.DIVIDENDS_BONUS * sum(
                1 for inv in seat.investments if cards.card_value(inv.stock) >= cards.DIVIDENDS_MIN_STOCK
            )
        if bonus:
            yellows += bonus
            yellows_used.append(key)
    return Count(
        cards=face,
        compound=compound,
        greens=greens,
        yellows=yellows,
        greens_used=greens_used,
        yellows_used=tuple(sorted(yellows_used)),
    )
