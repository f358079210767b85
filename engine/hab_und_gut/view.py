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
from typing import Literal, TypeVar

from engine.core import EngineModel, Seat, View

from .components import (
    COMMODITIES,
    MARKET_CARDS,
    MAX_SEATS,
    ROUNDS,
    SHARE_CARDS,
    SHARES_PER_COMMODITY,
    TRACK,
    TURNS_PER_ROUND,
    Commodity,
)
from .state import HabState, Phase, Side, TradeKind, holder_of

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


K = TypeVar("K")
T = TypeVar("T")

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

# The supply is kept sorted (state.py) and holds share ids only, which group by
# commodity (``H.<commodity>.NN``): a commodity's count is the distance between
# the first id of its prefix and the first of the next prefix in alphabetical
# order, so five bisections give all six counts.
_ALPHABETICAL: tuple[int, ...] = tuple(sorted(range(len(COMMODITIES)), key=COMMODITIES.__getitem__))
"""Commodity indices in the order of their share ids."""
_BOUNDS: tuple[str, ...] = tuple(f"H.{COMMODITIES[index]}." for index in _ALPHABETICAL[1:])
"""The prefix of every commodity's share ids but the alphabetically first."""
_RANKS: tuple[int, ...] = tuple(_ALPHABETICAL.index(index) for index in range(len(COMMODITIES)))
"""Each commodity's place (board order) among the share ids' alphabetical order."""
assert len(COMMODITIES) == 6, "_prices unrolls its six commodities"

_MEMO_LIMIT = 4096
"""Entries a view memo holds before it starts afresh (the memos only save time).

Views are memoised by value, not identity: the gateway reads every state back
from JSON, so only equal values (not the same objects) recur between actions.
Every key is a tuple the state already holds (or a few small ints), so a
lookup hashes what is there instead of building a key first.
"""
_SEATS: dict[tuple[object, ...], tuple[SeatView, ...]] = {}
_SEAT_VIEWS: dict[tuple[int, int, int, int, int], SeatView] = {}
"""(seat, money, shares held, face down, charity money) -> that seat's view."""
_HOLDER_VIEWS: tuple[dict[tuple[str, ...], HolderView], ...] = tuple({} for _ in range(2 * MAX_SEATS))
"""One memo per (holder number, side): holder ``h`` on the left is ``2 * h``, on the right ``2 * h + 1``."""
_CARD_ROWS: dict[tuple[str, ...], tuple[MarketCardView, ...]] = {}


def _remember(memo: dict[K, T], key: K, made: T) -> T:
    """Store ``made`` under ``key`` in ``memo``, starting it afresh when it is full."""
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = made
    return made


def _prices(prices: tuple[int, ...], supply: tuple[str, ...]) -> tuple[PriceView, ...]:
    """Every commodity's marker, price and supply count, from the prebuilt table.

    Not memoised: two actions in three change the markers or the supply, and
    a lookup by both tuples cost more than it saved on the third.
    """
    # Shares left per commodity (see _BOUNDS), then the six views, all unrolled:
    # generators over six commodities cost more than the lookups themselves.
    c1, c2, c3, c4, c5 = _BOUNDS
    b1 = bisect_left(supply, c1)
    b2 = bisect_left(supply, c2, b1)
    b3 = bisect_left(supply, c3, b2)
    b4 = bisect_left(supply, c4, b3)
    b5 = bisect_left(supply, c5, b4)
    by_id = (b1, b2 - b1, b3 - b2, b4 - b3, b5 - b4, len(supply) - b5)
    r0, r1, r2, r3, r4, r5 = _RANKS
    t0, t1, t2, t3, t4, t5 = _PRICE_VIEWS
    made = (
        t0[prices[0]][by_id[r0]],
        t1[prices[1]][by_id[r1]],
        t2[prices[2]][by_id[r2]],
        t3[prices[3]][by_id[r3]],
        t4[prices[4]][by_id[r4]],
        t5[prices[5]][by_id[r5]],
    )
    return made


def _seat_view(facts: tuple[int, int, int, int, int]) -> SeatView:
    """A seat's view from its ``(seat, money, shares held, face down, charity money)``."""
    seat, money, held, given, frozen = facts
    # Validated from a dict that holds exactly the model's fields, as the view is (see there).
    made = SeatView.model_validate(
        {
            "seat": seat,
            "money": money,
            "shares_held": held,
            "charity_face_down": given,
            "charity_money": frozen,
        },
        extra="ignore",
    )
    return _remember(_SEAT_VIEWS, facts, made)


def _seats(key: tuple[object, ...]) -> tuple[SeatView, ...]:
    """Every seat's public facts, from ``(money, charity_money, shares, charity)``.

    An action changes one seat's facts at most, so the others come from
    :data:`_SEAT_VIEWS`.
    """
    money, charity_money, shares, charity = key
    made = []
    for seat, (cash, held, given, frozen) in enumerate(
        zip(money, shares, charity, charity_money, strict=True)  # type: ignore[call-overload]
    ):
        facts = (seat, cash, len(held), len(given), frozen)
        made.append(_SEAT_VIEWS.get(facts) or _seat_view(facts))
    return _remember(_SEATS, key, tuple(made))


_market_view = _MARKET_VIEWS.__getitem__
_share_view = _SHARE_VIEWS.__getitem__


def _holder(number: int, side: Side, cards: tuple[str, ...]) -> HolderView:
    """A holder beside the viewer (its contents change once a turn, so it is memoised)."""
    memo = _HOLDER_VIEWS[2 * number + (side == "right")]
    made = HolderView(holder=number, side=side, cards=tuple(map(_market_view, cards)))
    return _remember(memo, cards, made)


def _card_row(cards: tuple[str, ...]) -> tuple[MarketCardView, ...]:
    """The played cards' views; the pile grows by one card, so the shorter row is usually known."""
    known = _CARD_ROWS.get(cards[:-1])
    made = tuple(map(_market_view, cards)) if known is None else (*known, _market_view(cards[-1]))
    return _remember(_CARD_ROWS, cards, made)


def view(state: HabState, seat: Seat | None) -> HabView:
    """The part of ``state`` that ``seat`` may see (``None``: spectator).

    Built on every step of every table, so it reads the state's fields once,
    looks the seats, holders and played cards up in memos by value, and maps
    the prices and the viewer's own shares straight from prebuilt views (those
    change too often for a memo to pay).
    """
    values = state.__dict__
    seats = values["seats"]
    held_by = values["holders"]
    if seat is not None:
        right = holder_of(seat, "right", seats)  # the left holder has the seat's own number
        holders = (
            _HOLDER_VIEWS[2 * seat].get(held_by[seat]) or _holder(seat, "left", held_by[seat]),
            _HOLDER_VIEWS[2 * right + 1].get(held_by[right]) or _holder(right, "right", held_by[right]),
        )
        # A seat's own shares are a handful of ids, and after a trade or a
        # donation new to a worker: mapping them costs about what a memo lookup does.
        my_shares = tuple(map(_share_view, values["shares"][seat]))
        my_charity = tuple(map(_share_view, values["charity"][seat]))
    else:
        holders = my_shares = my_charity = ()  # type: ignore[assignment]
    phase = values["phase"]
    turn = values["turn"]
    stock = values["stock"].__dict__  # read once, not as three attributes
    price_views = _prices(values["prices"], values["supply"])
    seat_key = (values["money"], values["charity_money"], values["shares"], values["charity"])
    seat_views = _SEATS.get(seat_key) or _seats(seat_key)
    discards = values["discards"]
    # Validated from a dict rather than by the keyword constructor: for a model
    # of this many fields pydantic then skips packing the keywords and writing
    # into an instance made beforehand, about a fifth of the cost. The dict holds
    # exactly the model's fields, so the check for unknown members that
    # ``extra="forbid"`` makes is skipped here (``extra="ignore"``): it could find
    # nothing, and costs about a sixth of the validation. A view read from outside
    # (the SDK's ``typed_view``) is still held to the model's ``forbid``.
    return HabView.model_validate(
        {
            "game": "hab-und-gut",
            "seat": seat,
            "round": min(ROUNDS, (turn - 1) // TURNS_PER_ROUND + 1),
            "turn": turn,
            "phase": phase,
            "first_player": (turn - 1) % seats,
            # state.actor, inlined.
            "to_act": None if phase == "over" else (turn - 1 + values["order_index"]) % seats,
            "prices": price_views,
            "seats": seat_views,
            "holder_sizes": tuple(map(len, held_by)),
            "deck_size": len(values["deck"]),
            "discards": (_CARD_ROWS.get(discards) or _card_row(discards)) if discards else (),
            "stock_trade": stock["trade"],
            "stock_count": stock["count"],
            "stock_donated": stock["donated"],
            "full_side": values["full_side"],
            "my_shares": my_shares,
            "my_charity": my_charity,
            "holders": holders,
            "donations": values["donations"],
            "eliminated": values["eliminated"],
            "winners": values["winners"],
        },
        extra="ignore",
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
