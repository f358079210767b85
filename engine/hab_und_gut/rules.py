"""The rules of Hab & Gut: dealing, legal actions, ``apply`` and the two round ends.

Every :class:`~engine.core.IllegalAction` names the rulebook section
(engine/hab_und_gut/rulebook.md) it enforces. Events never carry card ids: cards are
described by their face (``coal +4``), because a card seen once may later be
reshuffled into a place the same seat must not see (rulebook 8.3).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable
from typing import Any, get_args

from engine.chance import shuffle
from engine.core import (
    Event,
    IllegalAction,
    InvalidConfig,
    NotYourTurn,
    Outcome,
    Seat,
    new_event,
)

from .actions import Buy, Donate, EndStock, HabAction, Halve, Play, Sell
from .components import (
    COMMODITIES,
    HOLDER_SIZE,
    MARKET_CARDS,
    MAX_CHARITY_PER_TURN,
    MAX_SEATS,
    MAX_TRADE,
    MIN_SEATS,
    ROUNDS,
    SHARE_CARDS,
    START_MONEY,
    START_SPACE,
    TRACK,
    TURNS_PER_ROUND,
    Commodity,
    market_card,
)
from .state import HabConfig, HabState, Side, StockProgress, TradeKind, evolve, holder_of

__all__ = [
    "apply",
    "default_action",
    "illegal_reason",
    "legal_actions",
    "new_table",
    "outcome",
    "price_of",
    "to_act",
]

LAST_TURN = ROUNDS * TURNS_PER_ROUND

def _event(
    *, kind: str, text: str, data: dict[str, Any], audience: tuple[Seat, ...] | None = None
) -> Event:
    """:func:`engine.core.new_event` with keyword arguments."""
    return new_event(kind, text, audience, data)


# What a stock phase may have done so far: few enough to share one value each.
_PROGRESS: dict[tuple[TradeKind, int, bool], StockProgress] = {
    (trade, count, donated): StockProgress(trade=trade, count=count, donated=donated)
    for trade in get_args(TradeKind)
    for count in range(MAX_TRADE + 1)
    for donated in (False, True)
}
_FRESH = _PROGRESS[("none", 0, False)]


_COMMODITY_INDEX: dict[str, int] = {commodity: index for index, commodity in enumerate(COMMODITIES)}


def price_of(state: HabState, commodity: Commodity) -> int:
    """The current price of ``commodity``: the value printed on its marker's space."""
    return TRACK[state.prices[_COMMODITY_INDEX[commodity]]]


_SHARE_PREFIX: dict[str, str] = {commodity: f"H.{commodity}." for commodity in COMMODITIES}
"""Share ids are ``H.<commodity>.NN`` (components.py), so one commodity's ids sort together."""
_FACE_PREFIX: dict[tuple[str, int], str] = {
    (card.commodity, card.value): f"M.{card.commodity}.{card.value:+d}." for card in MARKET_CARDS.values()
}
"""Market card ids are ``M.<commodity>.<value>.<copy>``, so the cards of one face sort together."""


def _first_index(cards: tuple[str, ...], prefix: str) -> int | None:
    """Where the lowest id starting with ``prefix`` sits in the sorted ``cards`` (``None``: none
    there). A share's prefix names its commodity, a market card's its face: the card a sale,
    a gift (rulebook 4.6) or a pick (5.6) takes. Ids of one prefix sort together, so the
    lowest is where ``prefix`` itself would go."""
    index = bisect_left(cards, prefix)
    return index if index < len(cards) and cards[index].startswith(prefix) else None


def _deal(
    seats: int, seed: int, counter: int
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """Shuffle all 54 market cards and fill every holder with eight (rulebook 2.3, 6.2)."""
    order = shuffle(seed, counter, sorted(MARKET_CARDS))
    holders = tuple(
        tuple(sorted(order[h * HOLDER_SIZE : (h + 1) * HOLDER_SIZE])) for h in range(seats)
    )
    deck = tuple(sorted(order[seats * HOLDER_SIZE :]))
    return holders, deck


def _deal_events(seats: int, round_number: int) -> list[Event]:
    return [
        _event(
            kind="market_dealt",
            text=(
                f"Round {round_number}: the market deck is shuffled and {HOLDER_SIZE} cards "
                f"go into each of the {seats} holders; the rest stays face down."
            ),
            data={"round": round_number, "holder_size": HOLDER_SIZE},
        )
    ]


def new_table(config: HabConfig, seed: int) -> HabState:
    """Set up a table (rulebook 2).

    :raises InvalidConfig: for an unknown mode, a variant, or a seat count outside 3..5.
    """
    if config.mode != "standard":
        raise InvalidConfig(f"unknown mode {config.mode!r} (Hab & Gut has 'standard')")
    if config.variants:
        raise InvalidConfig(f"Hab & Gut has no variants (got {', '.join(config.variants)})")
    if not MIN_SEATS <= config.seats <= MAX_SEATS:
        raise InvalidConfig(
            f"Hab & Gut seats {MIN_SEATS} to {MAX_SEATS}, not {config.seats} (rulebook 2.1)"
        )
    seats = config.seats
    holders, deck = _deal(seats, seed, 0)
    return HabState(
        seats=seats,
        seed=seed,
        chance=1,
        turn=1,
        phase="stock",
        order_index=0,
        prices=(START_SPACE,) * len(COMMODITIES),
        money=(START_MONEY,) * seats,
        shares=((),) * seats,
        charity=((),) * seats,
        charity_money=(0,) * seats,
        supply=tuple(sorted(SHARE_CARDS)),
        holders=holders,
        deck=deck,
        discards=(),
    )


def to_act(state: HabState) -> list[Seat]:
    """The one seat that decides now (:attr:`HabState.actor`), or nobody once the table is
    over: the one statement of whose turn it is (rulebook 3.2, 7.4)."""
    return [] if state.phase == "over" else [state.actor]


def _turn_refusal(state: HabState, seat: Seat) -> IllegalAction | None:
    """Why ``seat`` may not act at all now, or ``None``: it is not in :func:`to_act`, which
    the listing and :func:`illegal_reason` ask through here."""
    acting = to_act(state)
    if not acting:
        return IllegalAction("the table is over", rule="7.4")
    if seat != acting[0]:
        return NotYourTurn(f"seat {acting[0]} decides now, not seat {seat}", rule="3.2")
    return None


def _market_faces(state: HabState, seat: Seat, side: Side) -> list[tuple[Commodity, int]]:
    faces = {
        (market_card(card).commodity, market_card(card).value)
        for card in state.holders[holder_of(seat, side, state.seats)]
    }
    return sorted(faces)


# Actions are immutable values, so each possible one is built once: legal_actions
# runs on every step of every table and bot.
_SIDES: tuple[Side, ...] = ("left", "right")
_END = EndStock()
_BUY = {commodity: Buy(commodity=commodity) for commodity in COMMODITIES}
_SELL = {commodity: Sell(commodity=commodity) for commodity in COMMODITIES}
_DONATE = {commodity: Donate(commodity=commodity) for commodity in COMMODITIES}
_PLAY = {
    (side, card.commodity, card.value): Play(side=side, commodity=card.commodity, value=card.value)
    for side in _SIDES
    for card in MARKET_CARDS.values()
}
_HALVE = {
    (side, card.commodity, card.value): Halve(side=side, commodity=card.commodity, value=card.value)
    for side in _SIDES
    for card in MARKET_CARDS.values()
}


def _stock_refusal(state: HabState, seat: Seat, action: HabAction) -> IllegalAction | None:
    """Why the seat to act may not take a stock-phase step now, or ``None`` (rulebook 4.1): all
    that ``end`` asks, and the first thing every other stock step asks."""
    if state.phase != "stock":
        return IllegalAction("it is the market phase: play a card in full, then halve one", rule="5.1")
    return None


_PAST: dict[TradeKind, str] = {"buy": "bought", "sell": "sold"}


def _trade_refusal(state: HabState, seat: Seat, action: Buy | Sell) -> IllegalAction | None:
    """Why the seat to act may not buy or sell one more share now, or ``None`` (rulebook 4.2:
    buying or selling, not both, and at most three shares a stock phase)."""
    refusal = _stock_refusal(state, seat, action)
    if refusal is not None:
        return refusal
    progress = state.stock
    if progress.count >= MAX_TRADE:
        return IllegalAction(f"at most {MAX_TRADE} shares may be traded in one stock phase", rule="4.2")
    if progress.trade not in ("none", action.kind):
        return IllegalAction(
            f"you {_PAST[progress.trade]} this stock phase, so you may not also {action.kind}",
            rule="4.2",
        )
    return None


def _buy_refusal(state: HabState, seat: Seat, action: Buy) -> IllegalAction | None:
    """Why ``seat`` may not buy the share now, or ``None`` (rulebook 4.2, 4.3)."""
    refusal = _trade_refusal(state, seat, action)
    if refusal is not None:
        return refusal
    commodity = action.commodity
    price = price_of(state, commodity)
    if price == 0:
        return IllegalAction(f"{commodity} stands at 0 and cannot be bought", rule="4.3")
    if _first_index(state.supply, _SHARE_PREFIX[commodity]) is None:
        return IllegalAction(f"the supply has no {commodity} share left", rule="4.3")
    money = state.money[seat]
    if money < price:
        return IllegalAction(f"a {commodity} share costs {price} and you have {money}", rule="4.3")
    return None


def _sell_refusal(state: HabState, seat: Seat, action: Sell) -> IllegalAction | None:
    """Why ``seat`` may not sell the share now, or ``None`` (rulebook 4.2, 4.4)."""
    refusal = _trade_refusal(state, seat, action)
    if refusal is not None:
        return refusal
    if _first_index(state.shares[seat], _SHARE_PREFIX[action.commodity]) is None:
        return IllegalAction(f"you hold no {action.commodity} share to sell", rule="4.4")
    return None


def _donate_refusal(state: HabState, seat: Seat, action: Donate) -> IllegalAction | None:
    """Why ``seat`` may not give the share to charity now, or ``None`` (rulebook 4.5)."""
    refusal = _stock_refusal(state, seat, action)
    if refusal is not None:
        return refusal
    if int(state.stock.donated) >= MAX_CHARITY_PER_TURN:
        return IllegalAction("only one share per stock phase may go to the charity board", rule="4.5")
    if _first_index(state.shares[seat], _SHARE_PREFIX[action.commodity]) is None:
        return IllegalAction(f"you hold no {action.commodity} share", rule="4.5")
    return None


def _order_refusal(state: HabState, kind: type[Play | Halve], side: Side) -> IllegalAction | None:
    """Why the seat to act may not take a card of ``kind`` from its ``side`` holder now, whatever
    the face, or ``None`` (rulebook 4.1, 5.1, 5.2: in the market phase, the full card first
    from either holder, then the half from the other)."""
    values = state.__dict__
    if values["phase"] != "market":
        return IllegalAction("it is the stock phase: buy, sell, donate or end it first", rule="4.1")
    full_side = values["full_side"]
    if kind is Play:
        if full_side is not None:
            return IllegalAction(
                "you already played a card in full; now halve one from the other holder", rule="5.2"
            )
    elif full_side is None:
        return IllegalAction("play a card in full before halving one", rule="5.2")
    elif side == full_side:
        return IllegalAction(
            "the halved card must come from the other holder than the full one", rule="5.1"
        )
    return None


def _pick_refusal(state: HabState, seat: Seat, pick: Play | Halve) -> IllegalAction | None:
    """Why ``seat`` may not take the picked card now, or ``None`` (rulebook 5.1): the pick is
    due (:func:`_order_refusal`) and its holder has a card of the face (5.6)."""
    side, commodity, value = pick.side, pick.commodity, pick.value
    refusal = _order_refusal(state, type(pick), side)
    if refusal is not None:
        return refusal
    values = state.__dict__
    holder = values["holders"][holder_of(seat, side, values["seats"])]
    if _first_index(holder, _FACE_PREFIX[(commodity, value)]) is None:
        return IllegalAction(
            f"your {side} holder has no {commodity} {value:+d} card", rule="5.1"
        )
    return None


_Refusal = Callable[[HabState, Seat, Any], IllegalAction | None]
_REFUSALS: dict[type[Any], _Refusal] = {
    Buy: _buy_refusal,
    Sell: _sell_refusal,
    Donate: _donate_refusal,
    EndStock: _stock_refusal,
    Play: _pick_refusal,
    Halve: _pick_refusal,
}
"""Action type -> the one statement of its rules, asked by the listing and :func:`illegal_reason`
(and so by :func:`apply`)."""


def _stock_choices(state: HabState, seat: Seat) -> list[HabAction]:
    """The stock steps allowed now: each asks its refusal (selling and giving only of the
    commodities the seat holds, the others' certain no)."""
    owned = dict.fromkeys(SHARE_CARDS[card].commodity for card in state.shares[seat])
    candidates: list[HabAction] = [
        _END,
        *_BUY.values(),
        *(_SELL[commodity] for commodity in owned),
        *(_DONATE[commodity] for commodity in owned),
    ]
    return [
        action for action in candidates if _REFUSALS[type(action)](state, seat, action) is None
    ]


def _market_choices(state: HabState, seat: Seat) -> list[HabAction]:
    """The market picks allowed now: every face in a holder :func:`_order_refusal` lets the seat
    take from, in the kind it allows (the faces are those the holder has, so the card is there)."""
    found: list[HabAction] = []
    for kind, picks in ((Play, _PLAY), (Halve, _HALVE)):
        for side in _SIDES:
            if _order_refusal(state, kind, side) is None:
                found += [picks[(side, *face)] for face in _market_faces(state, seat, side)]
    return found


def illegal_reason(state: HabState, seat: Seat, action: HabAction) -> IllegalAction | None:
    """Why ``action`` by ``seat`` is not allowed now, or ``None`` if it is legal."""
    refusal = _turn_refusal(state, seat)
    if refusal is not None:
        return refusal
    return _REFUSALS[type(action)](state, seat, action)


def legal_actions(state: HabState, seat: Seat) -> list[HabAction]:
    """Every action ``seat`` may take now, sorted by id: the candidates its rules let through."""
    if _turn_refusal(state, seat) is not None:
        return []
    legal = _stock_choices(state, seat) if state.phase == "stock" else _market_choices(state, seat)
    return sorted(legal, key=lambda action: action.id)


def default_action(state: HabState, seat: Seat) -> HabAction:
    """What a turn clock plays: ``end`` in the stock phase, else the first legal pick.

    :raises IllegalAction: if ``seat`` is not the seat to act.
    """
    reason = illegal_reason(state, seat, _END)
    if reason is None:
        return _END
    legal = legal_actions(state, seat)
    if not legal:
        raise reason
    return legal[0]


# Precomputed per market card, so a pick costs dictionary lookups, not attribute
# chains and formatting: (commodity, value, commodity index, label).
_CARD_FACTS: dict[str, tuple[Commodity, int, int, str]] = {
    card.id: (card.commodity, card.value, _COMMODITY_INDEX[card.commodity], card.label)
    for card in MARKET_CARDS.values()
}
_LAST_SPACE = len(TRACK) - 1


def apply(state: HabState, seat: Seat, action: HabAction) -> tuple[HabState, list[Event]]:
    """Apply one action by ``seat``; pure.

    The rules are asked once, through :func:`illegal_reason`; the function of the
    action's kind then applies it, taking for granted what they checked.

    :raises IllegalAction: naming the rulebook section when the action is not allowed.
    """
    refusal = illegal_reason(state, seat, action)
    if refusal is not None:
        raise refusal
    return _APPLY[type(action)](state, state.__dict__, seat, action)


def _opening(values: dict[str, Any], stock: StockProgress) -> list[Event]:
    """The events list of a stock action, opened by ``turn_started`` on a turn's first decision."""
    # Fields compared, not models: a state read back from JSON holds its own equal StockProgress.
    if values["order_index"] or stock.count or stock.donated or stock.trade != "none":
        return []
    turn = values["turn"]
    round_number = min(ROUNDS, (turn - 1) // TURNS_PER_ROUND + 1)
    first = (turn - 1) % values["seats"]
    return [
        new_event(
            "turn_started",
            f"Round {round_number}, turn {turn}: seat {first} is the first player.",
            None,
            {"round": round_number, "turn": turn, "first_player": first},
        )
    ]


# The step functions below call new_event directly (not the keyword helper _event)
# and replace one entry of a seat-indexed tuple through a list (half the time of
# slicing and unpacking it): they run on every step (see bench/engine.py).


def _take_share(
    shares: tuple[tuple[str, ...], ...], seat: Seat, commodity: Commodity
) -> tuple[str, tuple[tuple[str, ...], ...]]:
    """The lowest-id ``commodity`` share ``seat`` holds (rulebook 4.6), which the step's refusal
    found, and every seat's holding without it: what selling and giving both do to a hand."""
    held = shares[seat]
    at = bisect_left(held, _SHARE_PREFIX[commodity])
    holdings = list(shares)
    holdings[seat] = held[:at] + held[at + 1 :]
    return held[at], tuple(holdings)


def _traded(stock: StockProgress, trade: TradeKind) -> StockProgress:
    """The stock phase's progress after one more share bought or sold (rulebook 4.2)."""
    return _PROGRESS[(trade, stock.count + 1, stock.donated)]


def _buy(state: HabState, values: dict[str, Any], seat: Seat, action: Buy) -> tuple[HabState, list[Event]]:
    commodity = action.commodity
    stock = values["stock"]
    price = TRACK[values["prices"][_COMMODITY_INDEX[commodity]]]
    supply = values["supply"]
    at = bisect_left(supply, _SHARE_PREFIX[commodity])  # the share _buy_refusal found
    money = values["money"]
    card = supply[at]
    events = _opening(values, stock)
    events.append(
        new_event(
            "share_bought",
            f"Seat {seat} buys one {commodity} share for {price}.",
            None,
            {"seat": seat, "commodity": commodity, "price": price},
        )
    )
    shares = list(values["shares"])
    held = list(shares[seat])
    insort(held, card)
    shares[seat] = tuple(held)
    cash = list(money)
    cash[seat] -= price
    return evolve(
        state,
        {
            "supply": supply[:at] + supply[at + 1 :],
            "shares": tuple(shares),
            "money": tuple(cash),
            "bank_paid_in": values["bank_paid_in"] + price,
            "stock": _traded(stock, "buy"),
        },
    ), events


def _sell(state: HabState, values: dict[str, Any], seat: Seat, action: Sell) -> tuple[HabState, list[Event]]:
    commodity = action.commodity
    stock = values["stock"]
    card, shares = _take_share(values["shares"], seat, commodity)
    price = TRACK[values["prices"][_COMMODITY_INDEX[commodity]]]
    events = _opening(values, stock)
    events.append(
        new_event(
            "share_sold",
            f"Seat {seat} sells one {commodity} share for {price}.",
            None,
            {"seat": seat, "commodity": commodity, "price": price},
        )
    )
    supply = list(values["supply"])
    insort(supply, card)
    cash = list(values["money"])
    cash[seat] += price
    return evolve(
        state,
        {
            "supply": tuple(supply),
            "shares": shares,
            "money": tuple(cash),
            "bank_paid_out": values["bank_paid_out"] + price,
            "stock": _traded(stock, "sell"),
        },
    ), events


def _donate(state: HabState, values: dict[str, Any], seat: Seat, action: Donate) -> tuple[HabState, list[Event]]:
    commodity = action.commodity
    stock = values["stock"]
    card, shares = _take_share(values["shares"], seat, commodity)
    events = _opening(values, stock)
    events.append(
        new_event(
            "share_donated",
            f"Seat {seat} places one share face down on its charity board.",
            None,
            {"seat": seat},
        )
    )
    events.append(
        new_event(
            "share_donated_private",
            f"You place one of your {commodity} shares face down on your charity board.",
            (seat,),
            {"seat": seat, "commodity": commodity},
        )
    )
    charity = list(values["charity"])
    charity[seat] += (card,)
    return evolve(
        state,
        {
            "shares": shares,
            "charity": tuple(charity),
            "stock": _PROGRESS[(stock.trade, stock.count, True)],
        },
    ), events


def _end_stock(state: HabState, values: dict[str, Any], seat: Seat, action: EndStock) -> tuple[HabState, list[Event]]:
    events = _opening(values, values["stock"])
    done = values["order_index"] + 1
    events.append(
        new_event("stock_phase_ended", f"Seat {seat} ends its stock phase.", None, {"seat": seat})
    )
    if done < values["seats"]:
        return evolve(state, {"order_index": done, "stock": _FRESH}), events
    turn = values["turn"]
    first = (turn - 1) % values["seats"]
    events.append(
        new_event(
            "market_phase_started",
            f"Market phase of turn {turn}: seat {first} picks first.",
            None,
            {"turn": turn, "first_player": first},
        )
    )
    return evolve(state, {"order_index": 0, "stock": _FRESH, "phase": "market"}), events


def _market(state: HabState, values: dict[str, Any], seat: Seat, pick: Play | Halve) -> tuple[HabState, list[Event]]:
    """A card played in full (``Play``) or at half (``Halve``) from a holder beside ``seat``."""
    full = type(pick) is Play
    side = pick.side
    holder = holder_of(seat, side, values["seats"])
    cards = values["holders"][holder]
    found = bisect_left(cards, _FACE_PREFIX[(pick.commodity, pick.value)])  # the card _pick_refusal found
    card_id = cards[found]
    commodity, value, index, label = _CARD_FACTS[card_id]
    prices = values["prices"]
    before = prices[index]
    after = max(0, min(_LAST_SPACE, before + (value if full else value // 2)))  # move_space, inlined
    from_price = TRACK[before]
    to_price = TRACK[after]
    events = [
        new_event(
            "card_played",
            f"Seat {seat} plays {label} from holder {holder} ({side}) "
            f"{'in full' if full else 'at half'}: {commodity} moves from {from_price} to {to_price}.",
            None,
            {
                "seat": seat,
                "card_kind": label,
                "commodity": commodity,
                "value": value,
                "mode": "full" if full else "half",
                "holder": holder,
                "side": side,
                "from_price": from_price,
                "to_price": to_price,
            },
        )
    ]
    holders = list(values["holders"])
    holders[holder] = cards[:found] + cards[found + 1 :]
    spaces = list(prices)
    spaces[index] = after
    moved = tuple(spaces)
    changes: dict[str, Any] = {
        "holders": tuple(holders),
        "discards": (*values["discards"], card_id),
        "prices": moved,
        "full_side": side if full else None,
    }
    if not full:
        done = values["order_index"] + 1
        if done >= values["seats"]:
            turn = values["turn"]
            if turn == LAST_TURN or turn % TURNS_PER_ROUND == 0:
                return _end_turn(evolve(state, changes), events), events
            # The turn ends inside a round: its changes go into the same copy.
            events.append(_turn_ended(turn, moved))
            changes["turn"] = turn + 1
            changes["phase"] = "stock"
            changes["order_index"] = 0
        else:
            changes["order_index"] = done
    return evolve(state, changes), events


_Step = Callable[[HabState, dict[str, Any], Seat, Any], tuple[HabState, list[Event]]]
_APPLY: dict[type[Any], _Step] = {
    Buy: _buy,
    Sell: _sell,
    Donate: _donate,
    EndStock: _end_stock,
    Play: _market,
    Halve: _market,
}
"""Action type -> the function that applies it once :func:`illegal_reason` has let it through."""


def _turn_ended(turn: int, prices: tuple[int, ...]) -> Event:
    return _event(
        kind="turn_ended",
        text=f"Turn {turn} ends.",
        data={"turn": turn, "prices": dict(zip(COMMODITIES, map(TRACK.__getitem__, prices), strict=True))},
    )


def _end_turn(state: HabState, events: list[Event]) -> HabState:
    events.append(_turn_ended(state.turn, state.prices))
    if state.turn == LAST_TURN:
        return _end_game(state, events)
    if state.turn % TURNS_PER_ROUND == 0:
        state = _end_round(state, events)
    return evolve(
        state,
        {"turn": state.turn + 1, "phase": "stock", "order_index": 0, "full_side": None}
    )


def _sell_charity(state: HabState, events: list[Event]) -> HabState:
    """Reveal and sell every charity board into frozen charity money (rulebook 6.1, 7.1)."""
    charity_money = list(state.charity_money)
    revealed: dict[str, dict[str, object]] = {}
    lines: list[str] = []
    for seat in range(state.seats):
        commodities = [SHARE_CARDS[c].commodity for c in state.charity[seat]]
        proceeds = sum(price_of(state, commodity) for commodity in commodities)
        charity_money[seat] += proceeds
        revealed[str(seat)] = {
            "shares": commodities,
            "proceeds": proceeds,
            "total": charity_money[seat],
        }
        lines.append(
            f"seat {seat}: {', '.join(commodities) or 'nothing'} for {proceeds} "
            f"(charity total {charity_money[seat]})"
        )
    paid = sum(charity_money) - sum(state.charity_money)
    events.append(
        _event(
            kind="charity_revealed",
            text=f"Charity boards are revealed and sold: {'; '.join(lines)}.",
            data={"round": state.round, "seats": revealed},
        )
    )
    returned = [card for board in state.charity for card in board]
    return evolve(
        state,
        {
            "charity": ((),) * state.seats,
            "charity_money": tuple(charity_money),
            "supply": tuple(sorted((*state.supply, *returned))),
            "bank_paid_out": state.bank_paid_out + paid,
        },
    )


def _end_round(state: HabState, events: list[Event]) -> HabState:
    """End of round 1: charity sold, market reshuffled and dealt again (rulebook 6)."""
    state = _sell_charity(state, events)
    holders, deck = _deal(state.seats, state.seed, state.chance)
    events.extend(_deal_events(state.seats, state.round + 1))
    return evolve(
        state,
        {"holders": holders, "deck": deck, "discards": (), "chance": state.chance + 1}
    )


def _end_game(state: HabState, events: list[Event]) -> HabState:
    """End of round 2: charity, elimination, final sale, winner (rulebook 7)."""
    state = _sell_charity(state, events)
    donations = state.charity_money
    least = min(donations)
    eliminated = tuple(seat for seat in range(state.seats) if donations[seat] == least)
    if len(eliminated) == state.seats:
        eliminated = ()  # rulebook 7.2: a tie of everybody eliminates nobody
    events.append(
        _event(
            kind="donors_compared",
            text=(
                f"Charity totals: {', '.join(f'seat {s} {d}' for s, d in enumerate(donations))}. "
                + (
                    f"Eliminated as least generous: {', '.join(f'seat {s}' for s in eliminated)}."
                    if eliminated
                    else "Everybody gave the same, so nobody is eliminated."
                )
            ),
            data={"donations": list(donations), "eliminated": list(eliminated)},
        )
    )
    money = list(state.money)
    paid_out = 0
    sold: dict[str, int] = {}
    for seat in range(state.seats):
        proceeds = sum(price_of(state, SHARE_CARDS[c].commodity) for c in state.shares[seat])
        money[seat] += proceeds
        paid_out += proceeds
        sold[str(seat)] = proceeds
    contenders = [seat for seat in range(state.seats) if seat not in eliminated]
    best = max(money[seat] for seat in contenders)
    winners = tuple(seat for seat in contenders if money[seat] == best)
    events.append(
        _event(
            kind="shares_cashed",
            text="Every seat sells its remaining shares at the final prices: "
            + ", ".join(f"seat {s} +{p}" for s, p in sold.items())
            + ".",
            data={"proceeds": sold, "money": money},
        )
    )
    events.append(
        _event(
            kind="game_over",
            text=f"The richest remaining: {', '.join(f'seat {s}' for s in winners)} with {best}.",
            data={"winners": list(winners), "money": money},
        )
    )
    returned = [card for hand in state.shares for card in hand]
    return evolve(
        state,
        {
            "phase": "over",
            "order_index": 0,
            "full_side": None,
            "money": tuple(money),
            "shares": ((),) * state.seats,
            "supply": tuple(sorted((*state.supply, *returned))),
            "charity_money": (0,) * state.seats,
            "donations": donations,
            "eliminated": eliminated,
            "winners": winners,
            "bank_paid_out": state.bank_paid_out + paid_out,
            "bank_paid_in": state.bank_paid_in + sum(donations),
        },
    )


def outcome(state: HabState) -> Outcome | None:
    """The result once round 2 has ended (rulebook 7.4), else ``None``."""
    if state.phase != "over":
        return None
    text = (
        f"Winner{'s' if len(state.winners) > 1 else ''}: "
        + ", ".join(f"seat {s}" for s in state.winners)
        + f" with {state.money[state.winners[0]]}."
    )
    if state.eliminated:
        text += (
            " Eliminated for giving least (7.2): "
            + ", ".join(f"seat {s}" for s in state.eliminated)
            + "; the richest of the others wins (7.4)."
        )
    else:
        text += " Nobody was eliminated (7.2); the richest wins (7.4)."
    if len(state.winners) > 1:
        text += " They tie on money and share the win."
    return Outcome(
        winners=state.winners,
        reason="richest",
        scores=tuple(float(m) for m in state.money),
        text=text,
        eliminated=state.eliminated,
        decided_by=("donations", "money"),
    )
