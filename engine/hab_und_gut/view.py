"""What a seat (or a spectator) may see of a Hab & Gut table, and its plain-text summary.

Public (rulebook 8.1): prices, the supply's counts, every seat's money, how
many shares it holds and how many lie face down on its charity board, the
frozen charity money, the played market cards of this round, how many cards
each holder and the undealt deck hold. Private (rulebook 8.2): which shares a
seat holds and which it gave to charity (its own only), and the two holders
beside a seat (spectators see none).
"""

from __future__ import annotations

from typing import Literal

from engine.core import EngineModel, Seat, View

from .components import COMMODITIES, MARKET_CARDS, SHARE_CARDS, TRACK, Commodity
from .state import HabState, Phase, Side, TradeKind, left_holder, right_holder

__all__ = [
    "HabView",
    "HolderView",
    "MarketCardView",
    "PriceView",
    "SeatView",
    "ShareView",
    "summary",
    "view",
]


class MarketCardView(EngineModel):
    """A market card face up."""

    id: str
    commodity: Commodity
    value: int


class ShareView(EngineModel):
    """One of your own share cards."""

    id: str
    commodity: Commodity


class HolderView(EngineModel):
    """A holder you can see: its number, which side of you it is on, its cards."""

    holder: int
    side: Side
    cards: tuple[MarketCardView, ...]


class PriceView(EngineModel):
    """A commodity's marker: its space (0..29), price, and the shares left in the supply."""

    commodity: Commodity
    space: int
    price: int
    supply: int


class SeatView(EngineModel):
    """What everybody knows about one seat."""

    seat: Seat
    money: int
    shares_held: int
    charity_face_down: int
    charity_money: int


class HabView(View):
    """One seat's (or a spectator's) view of a Hab & Gut table."""

    game: Literal["hab-und-gut"] = "hab-und-gut"
    round: int
    turn: int
    phase: Phase
    first_player: Seat
    to_act: Seat | None
    prices: tuple[PriceView, ...]
    seats: tuple[SeatView, ...]
    holder_sizes: tuple[int, ...]
    """Cards left in each holder, by holder number (public)."""
    deck_size: int
    discards: tuple[MarketCardView, ...]
    """Market cards played this round, in order."""
    stock_trade: TradeKind
    stock_count: int
    stock_donated: bool
    """What the acting seat has done in its current stock phase."""
    full_side: Side | None
    """In the market phase: the side of the acting seat's full card, once played."""
    my_shares: tuple[ShareView, ...] = ()
    my_charity: tuple[ShareView, ...] = ()
    holders: tuple[HolderView, ...] = ()
    donations: tuple[int, ...] = ()
    eliminated: tuple[Seat, ...] = ()
    winners: tuple[Seat, ...] = ()


# Card faces never change, so each card's view is built once (views are built on every step).
_MARKET_VIEWS: dict[str, MarketCardView] = {
    card.id: MarketCardView(id=card.id, commodity=card.commodity, value=card.value)
    for card in MARKET_CARDS.values()
}
_SHARE_VIEWS: dict[str, ShareView] = {
    card.id: ShareView(id=card.id, commodity=card.commodity) for card in SHARE_CARDS.values()
}


def _card_view(card_id: str) -> MarketCardView:
    return _MARKET_VIEWS[card_id]


def _share_view(card_id: str) -> ShareView:
    return _SHARE_VIEWS[card_id]


def view(state: HabState, seat: Seat | None) -> HabView:
    """The part of ``state`` that ``seat`` may see (``None``: spectator)."""
    supply_counts = {c: 0 for c in COMMODITIES}
    for card in state.supply:
        supply_counts[SHARE_CARDS[card].commodity] += 1
    holders: tuple[HolderView, ...] = ()
    my_shares: tuple[ShareView, ...] = ()
    my_charity: tuple[ShareView, ...] = ()
    if seat is not None:
        sides: tuple[tuple[int, Side], ...] = (
            (left_holder(seat, state.seats), "left"),
            (right_holder(seat, state.seats), "right"),
        )
        holders = tuple(
            HolderView(
                holder=number,
                side=side,
                cards=tuple(_card_view(c) for c in state.holders[number]),
            )
            for number, side in sides
        )
        my_shares = tuple(_share_view(c) for c in state.shares[seat])
        my_charity = tuple(_share_view(c) for c in state.charity[seat])
    over = state.phase == "over"
    return HabView(
        seat=seat,
        round=state.round,
        turn=state.turn,
        phase=state.phase,
        first_player=state.first_player,
        to_act=None if over else state.actor,
        prices=tuple(
            PriceView(
                commodity=commodity,
                space=space,
                price=TRACK[space],
                supply=supply_counts[commodity],
            )
            for commodity, space in zip(COMMODITIES, state.prices, strict=True)
        ),
        seats=tuple(
            SeatView(
                seat=s,
                money=state.money[s],
                shares_held=len(state.shares[s]),
                charity_face_down=len(state.charity[s]),
                charity_money=state.charity_money[s],
            )
            for s in range(state.seats)
        ),
        holder_sizes=tuple(len(h) for h in state.holders),
        deck_size=len(state.deck),
        discards=tuple(_card_view(c) for c in state.discards),
        stock_trade=state.stock.trade,
        stock_count=state.stock.count,
        stock_donated=state.stock.donated,
        full_side=state.full_side,
        my_shares=my_shares,
        my_charity=my_charity,
        holders=holders,
        donations=state.donations,
        eliminated=state.eliminated,
        winners=state.winners,
    )


def summary(state: HabState, seat: Seat | None) -> str:
    """Plain text of ``view(state, seat)`` for language models."""
    seen = view(state, seat)
    who = "a spectator" if seat is None else f"seat {seat}"
    lines = [
        f"Hab & Gut, {state.seats} seats. You are {who}.",
        f"Round {seen.round} of 2, turn {seen.turn} of 8, {seen.phase} phase; "
        f"first player this turn: seat {seen.first_player}.",
    ]
    if seen.to_act is not None:
        lines.append(f"Seat {seen.to_act} decides now.")
    lines.append(
        "Prices: "
        + ", ".join(
            f"{p.commodity} {p.price} (space {p.space}, {p.supply} in supply)" for p in seen.prices
        )
        + "."
    )
    for s in seen.seats:
        lines.append(
            f"Seat {s.seat}: money {s.money}, {s.shares_held} shares held, "
            f"{s.charity_face_down} face down on charity, charity money {s.charity_money}."
        )
    if seat is not None:
        owned = ", ".join(sh.commodity for sh in seen.my_shares) or "none"
        given = ", ".join(sh.commodity for sh in seen.my_charity) or "none"
        lines.append(f"Your shares: {owned}. Your face-down charity shares: {given}.")
        for holder in seen.holders:
            faces = ", ".join(f"{c.commodity} {c.value:+d}" for c in holder.cards) or "empty"
            lines.append(f"Holder {holder.holder} on your {holder.side}: {faces}.")
    if seen.phase == "stock" and seen.to_act is not None:
        lines.append(
            f"Stock phase of seat {seen.to_act} so far: "
            f"{seen.stock_trade if seen.stock_trade != 'none' else 'no trade'}"
            f" ({seen.stock_count} shares), "
            f"{'already donated' if seen.stock_donated else 'no donation yet'}."
        )
    if seen.phase == "market" and seen.full_side is not None:
        lines.append(
            f"Seat {seen.to_act} played its full card from the {seen.full_side} holder; "
            "it now halves one from the other holder."
        )
    if seen.discards:
        lines.append(
            "Played this round: "
            + ", ".join(f"{c.commodity} {c.value:+d}" for c in seen.discards)
            + "."
        )
    lines.append(f"Undealt market cards: {seen.deck_size}.")
    if seen.phase == "over":
        lines.append(
            "Game over. Charity totals: "
            + ", ".join(f"seat {s} {d}" for s, d in enumerate(seen.donations))
            + ". Eliminated: "
            + (", ".join(f"seat {s}" for s in seen.eliminated) or "nobody")
            + ". Winners: "
            + ", ".join(f"seat {s}" for s in seen.winners)
            + "."
        )
    return "\n".join(lines)
