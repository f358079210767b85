"""Where every card is, and what a seat may not see: computed from the state alone.

These functions deliberately do not use :mod:`.view`, so the leak tests (the
engine's and the gateway's) check the view code against an independent
statement of the hidden-information rules (rulebook 8).
"""

from __future__ import annotations

from itertools import chain

from engine.core import Seat

from .state import HabState

__all__ = ["card_locations", "hidden_from"]


def card_locations(state: HabState) -> dict[str, str]:
    """Card id -> where it lies: ``supply``, ``shares:<seat>``, ``charity:<seat>``,
    ``holder:<n>``, ``deck`` or ``discards``. Every one of the 114 cards appears once.

    :raises ValueError: if a card lies in two places.
    """
    groups: list[tuple[str, tuple[str, ...]]] = [("supply", state.supply)]
    groups += [(f"shares:{seat}", hand) for seat, hand in enumerate(state.shares)]
    groups += [(f"charity:{seat}", board) for seat, board in enumerate(state.charity)]
    groups += [(f"holder:{number}", holder) for number, holder in enumerate(state.holders)]
    groups += [("deck", state.deck), ("discards", state.discards)]
    places = {card: place for place, cards in groups for card in cards}
    if len(places) != sum(len(cards) for _, cards in groups):
        # Slow path, only to name the card that lies in two places.
        seen: dict[str, str] = {}
        for place, cards in groups:
            for card in cards:
                if card in seen:
                    raise ValueError(f"{card} is both in {seen[card]} and {place}")
                seen[card] = place
    return places


def hidden_from(state: HabState, seat: Seat | None) -> frozenset[str]:
    """Ids of the cards ``seat`` (``None``: spectator) may not see now.

    Hidden: the undealt deck; every holder that is not beside the seat; other
    seats' shares and charity boards (which card ids they hold; their
    commodities follow from the trades, but a face-down charity card's does
    not). The seat's own cards, its two holders and the discards are visible.
    """
    seats = state.seats
    visible_holders: tuple[int, ...] = ()
    if seat is not None:
        # The holder a seat deals into (left) and its right neighbour's (right).
        visible_holders = (seat, (seat - 1) % seats)
    parts: list[tuple[str, ...]] = [state.deck]
    parts += [holder for number, holder in enumerate(state.holders) if number not in visible_holders]
    for other in range(seats):
        if other != seat:
            parts += (state.shares[other], state.charity[other])
    return frozenset(chain.from_iterable(parts))
