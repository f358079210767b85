"""What a seat (or a spectator) may see of a Hab & Gut table, and its plain-text summary.

Public (rulebook 8.1): prices, the supply's counts, every seat's money, how
many shares it holds and how many lie face down on its charity board, the
frozen charity money, the played market cards of this round, how many cards
each holder and the undealt deck hold. Private (rulebook 8.2): which shares a
seat holds and which it gave to charity (its own only), and the two holders
beside a seat (spectators see none).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any, Literal, TypeVar

from engine.core import EngineModel, Seat, View

from .components import (
    COMMODITIES,
    MARKET_CARDS,
    ROUNDS,
    SHARE_CARDS,
    SHARES_PER_COMMODITY,
    TRACK,
    TURNS_PER_ROUND,
    Commodity,
)
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


_set_attribute = object.__setattr__
ModelT = TypeVar("ModelT", bound=EngineModel)
T = TypeVar("T")
_ALL_FIELDS: dict[type[EngineModel], frozenset[str]] = {}


def _built(cls: type[ModelT], fields: dict[str, Any]) -> ModelT:
    """A view model made from values the engine produced, without validating them again.

    A view is built after every action of every table, and validation would
    only re-check data the engine itself made; ``fields`` names every field
    of ``cls`` with a value of its declared type.
    """
    made = cls.__new__(cls)
    _set_attribute(made, "__dict__", fields)
    _set_attribute(made, "__pydantic_fields_set__", _ALL_FIELDS[cls])
    _set_attribute(made, "__pydantic_extra__", None)
    _set_attribute(made, "__pydantic_private__", None)
    return made


for _model in (MarketCardView, ShareView, HolderView, PriceView, SeatView, HabView):
    _ALL_FIELDS[_model] = frozenset(_model.model_fields)

# Card faces and price markers never change, so their views are built once, at import.
_MARKET_VIEWS: dict[str, MarketCardView] = {
    card.id: MarketCardView(id=card.id, commodity=card.commodity, value=card.value)
    for card in MARKET_CARDS.values()
}
_SHARE_VIEWS: dict[str, ShareView] = {
    card.id: ShareView(id=card.id, commodity=card.commodity) for card in SHARE_CARDS.values()
}
_PRICE_VIEWS: tuple[tuple[tuple[PriceView, ...], ...], ...] = tuple(
    tuple(
        tuple(
            PriceView(commodity=commodity, space=space, price=price, supply=supply)
            for supply in range(SHARES_PER_COMMODITY + 1)
        )
        for space, price in enumerate(TRACK)
    )
    for commodity in COMMODITIES
)
"""``_PRICE_VIEWS[commodity index][space][shares in supply]``."""

# The supply is kept sorted (state.py), and share ids group by commodity
# (``H.<commodity>.NN``), so each commodity's count is the width of its id range.
_SUPPLY_RANGES: tuple[tuple[str, str], ...] = tuple(
    (f"H.{commodity}.", f"H.{commodity}/") for commodity in COMMODITIES
)

_MEMO_LIMIT = 4096
"""Entries a view memo holds before it starts afresh (the memos only save time).

Views are memoised by value, not identity: the gateway reads every state back
from JSON, so only equal values (not the same objects) recur between actions.
"""
_PRICES: dict[tuple[tuple[int, ...], tuple[str, ...]], tuple[PriceView, ...]] = {}
_SEATS: dict[tuple[object, ...], tuple[SeatView, ...]] = {}
_HOLDER_VIEWS: dict[tuple[int, Side, tuple[str, ...]], HolderView] = {}


def _remember(memo: dict[Any, T], key: Any, made: T) -> T:
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = made
    return made


def _prices(state: HabState) -> tuple[PriceView, ...]:
    """Every commodity's marker, price and supply count, from the prebuilt table."""
    supply = state.supply
    key = (state.prices, supply)
    made = _PRICES.get(key)
    if made is None:
        made = _remember(
            _PRICES,
            key,
            tuple(
                _PRICE_VIEWS[index][space][bisect_left(supply, high) - bisect_left(supply, low)]
                for index, (space, (low, high)) in enumerate(
                    zip(state.prices, _SUPPLY_RANGES, strict=True)
                )
            ),
        )
    return made


def _seats(state: HabState) -> tuple[SeatView, ...]:
    """Every seat's public facts; an action changes one seat's at most, so memoised."""
    key = (state.money, state.charity_money, state.shares, state.charity)
    made = _SEATS.get(key)
    if made is None:
        made = _remember(
            _SEATS,
            key,
            tuple(
                _built(
                    SeatView,
                    {
                        "seat": seat,
                        "money": money,
                        "shares_held": len(held),
                        "charity_face_down": len(given),
                        "charity_money": charity_money,
                    },
                )
                for seat, (money, held, given, charity_money) in enumerate(
                    zip(state.money, state.shares, state.charity, state.charity_money, strict=True)
                )
            ),
        )
    return made


def _holder(number: int, side: Side, cards: tuple[str, ...]) -> HolderView:
    """A holder beside the viewer, memoised by its contents (they change once a turn)."""
    key = (number, side, cards)
    made = _HOLDER_VIEWS.get(key)
    if made is None:
        made = _remember(
            _HOLDER_VIEWS,
            key,
            _built(
                HolderView,
                {"holder": number, "side": side, "cards": tuple(map(_MARKET_VIEWS.__getitem__, cards))},
            ),
        )
    return made


def view(state: HabState, seat: Seat | None) -> HabView:
    """The part of ``state`` that ``seat`` may see (``None``: spectator)."""
    holders: tuple[HolderView, ...] = ()
    my_shares: tuple[ShareView, ...] = ()
    my_charity: tuple[ShareView, ...] = ()
    seats = state.seats
    if seat is not None:
        left = left_holder(seat, seats)
        right = right_holder(seat, seats)
        holders = (
            _holder(left, "left", state.holders[left]),
            _holder(right, "right", state.holders[right]),
        )
        my_shares = tuple(map(_SHARE_VIEWS.__getitem__, state.shares[seat]))
        my_charity = tuple(map(_SHARE_VIEWS.__getitem__, state.charity[seat]))
    phase = state.phase
    turn = state.turn
    stock = state.stock
    return _built(
        HabView,
        {
            "game": "hab-und-gut",
            "seat": seat,
            "round": min(ROUNDS, (turn - 1) // TURNS_PER_ROUND + 1),
            "turn": turn,
            "phase": phase,
            "first_player": (turn - 1) % seats,
            # state.actor, inlined (views are built on every step).
            "to_act": None if phase == "over" else (turn - 1 + state.order_index) % seats,
            "prices": _prices(state),
            "seats": _seats(state),
            "holder_sizes": tuple(map(len, state.holders)),
            "deck_size": len(state.deck),
            "discards": tuple(map(_MARKET_VIEWS.__getitem__, state.discards)),
            "stock_trade": stock.trade,
            "stock_count": stock.count,
            "stock_donated": stock.donated,
            "full_side": state.full_side,
            "my_shares": my_shares,
            "my_charity": my_charity,
            "holders": holders,
            "donations": state.donations,
            "eliminated": state.eliminated,
            "winners": state.winners,
        },
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
