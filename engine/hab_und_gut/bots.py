"""Hab & Gut house bots (the generic ``random`` bot lives in :mod:`engine.bots`).

``greedy`` reads only its own view: it expects each commodity to move by the
market cards it can see beside it (every one of them will be played by
someone, in full or at half, so it counts three quarters of each), buys what
should rise, sells what should fall, gives to charity only while it is not
safely ahead of the least generous rival (only the least generous seat is
eliminated, so every share given beyond that is money lost), and steers the market towards what it
holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.bots import Bot
from engine.core import Action, Game, Seat, View

from .actions import Buy, Donate, EndStock, Halve, Play, Sell
from .components import TRACK, move_space
from .view import HabView

__all__ = ["BOTS", "GREEDY", "GreedyBot"]

_SEEN_WEIGHT = 0.75
"""A seen card is played in full or at half; on average three quarters of it."""


_CHARITY_MARGIN = 1.0
"""How many average shares of charity the bot keeps ahead of its least generous rival."""


def _outlook(seen: HabView) -> dict[str, float]:
    """Expected price change per commodity from the cards the seat can see."""
    drift: dict[str, float] = {}
    for holder in seen.holders:
        for card in holder.cards:
            drift[card.commodity] = drift.get(card.commodity, 0.0) + card.value * _SEEN_WEIGHT
    outlook: dict[str, float] = {}
    for price in seen.prices:
        target = move_space(price.space, round(drift.get(price.commodity, 0.0)))
        outlook[price.commodity] = TRACK[target] - price.price
    return outlook


def _stake(seen: HabView) -> Counter[str]:
    """How many shares of each commodity the seat gains from when its price rises."""
    stake: Counter[str] = Counter(share.commodity for share in seen.my_shares)
    stake.update(share.commodity for share in seen.my_charity)
    return stake


def _gain(seen: HabView, stake: Counter[str], commodity: str, spaces: int) -> int:
    """Money the seat's holdings gain if ``commodity`` moves ``spaces`` now."""
    price = next(p for p in seen.prices if p.commodity == commodity)
    return (TRACK[move_space(price.space, spaces)] - price.price) * stake[commodity]


@dataclass(frozen=True)
class GreedyBot:
    """Trades on the visible market cards and pushes prices towards its own holdings."""

    name: str = "greedy"
    description: str = (
        "buys what the visible market cards will raise, sells what they will lower, "
        "donates just enough to stay ahead of the least generous rival, and plays cards to lift its own holdings"
    )

    def choose(
        self,
        game: Game[Any, Any, Any],
        view: View,
        legal: Sequence[Action],
        seat: Seat,
        rng_seed: int,
    ) -> Action:
        """Pick the action with the best expected gain for ``seat`` (deterministic)."""
        assert isinstance(view, HabView)
        if view.phase == "stock":
            return self._stock(view, legal)
        return self._market(view, legal)

    def _stock(self, seen: HabView, legal: Sequence[Action]) -> Action:
        outlook = _outlook(seen)
        donations = [a for a in legal if isinstance(a, Donate)]
        if donations and self._behind_on_charity(seen):
            # Give what should be worth most when the board is sold.
            return max(
                donations,
                key=lambda a: (self._price(seen, a.commodity) + outlook[a.commodity], a.id),
            )
        sells = [a for a in legal if isinstance(a, Sell) and outlook[a.commodity] < 0]
        if sells and seen.stock_trade != "buy":
            return min(sells, key=lambda a: (outlook[a.commodity], a.id))
        buys = [a for a in legal if isinstance(a, Buy) and outlook[a.commodity] > 0]
        if buys and seen.stock_trade != "sell":
            return max(
                buys,
                key=lambda a: (outlook[a.commodity] / self._price(seen, a.commodity), a.id),
            )
        if seen.stock_count == 0 and not seen.stock_donated and not seen.my_shares:
            # Nothing to give yet: buy the cheapest share that should not fall, to donate next.
            steady = [a for a in legal if isinstance(a, Buy) and outlook[a.commodity] >= 0]
            if steady:
                return min(steady, key=lambda a: (self._price(seen, a.commodity), a.id))
        return next(a for a in legal if isinstance(a, EndStock))

    def _market(self, seen: HabView, legal: Sequence[Action]) -> Action:
        stake = _stake(seen)
        if seen.full_side is not None:
            return max(
                legal,
                key=lambda a: (
                    (_gain(seen, stake, a.commodity, a.value // 2), a.id)
                    if isinstance(a, Halve)
                    else (-(10**9), a.id)
                ),
            )
        halves: dict[str, int] = {}
        for holder in seen.holders:
            best = max(
                (_gain(seen, stake, c.commodity, c.value // 2) for c in holder.cards),
                default=0,
            )
            halves[holder.side] = best

        def worth(action: Action) -> tuple[int, str]:
            if not isinstance(action, Play):
                return (-(10**9), action.id)
            other = "right" if action.side == "left" else "left"
            return (_gain(seen, stake, action.commodity, action.value) + halves[other], action.id)

        return max(legal, key=worth)

    @staticmethod
    def _behind_on_charity(seen: HabView) -> bool:
        """Whether the seat is not clearly ahead of the least generous other seat.

        Only the least generous seat is eliminated, so giving more than one
        rival is enough; every share given beyond that is money lost.
        """
        mean_price = sum(p.price for p in seen.prices) / len(seen.prices)

        def estimate(seat: int) -> float:
            public = seen.seats[seat]
            return public.charity_money + public.charity_face_down * mean_price

        if seen.seat is None:
            return False
        mine = seen.seats[seen.seat].charity_money + sum(
            GreedyBot._price(seen, share.commodity) for share in seen.my_charity
        )
        rivals = [estimate(s.seat) for s in seen.seats if s.seat != seen.seat]
        return mine <= min(rivals) + mean_price * _CHARITY_MARGIN

    @staticmethod
    def _price(seen: HabView, commodity: str) -> int:
        return next(p.price for p in seen.prices if p.commodity == commodity)


GREEDY = GreedyBot()
"""The greedy house bot."""

BOTS: dict[str, Bot] = {GREEDY.name: GREEDY}
"""Hab & Gut's own bots by name (``random`` comes from :mod:`engine.bots`)."""
