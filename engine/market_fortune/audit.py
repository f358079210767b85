"""Where every card is, and what each seat may not see — from the state alone.

This module is deliberately independent of :mod:`engine.market_fortune.view`:
the simulation test and the gateway's leak tests compare views and events
against :func:`hidden_from`, so the two must not share code.
"""

from __future__ import annotations

from engine.market_fortune import cards
from engine.market_fortune.state import MarketFortuneState

__all__ = ["CardAccountingError", "card_locations", "hidden_from"]


class CardAccountingError(AssertionError):
    """A card is missing or lies in two places at once."""


def _places(state: MarketFortuneState) -> list[tuple[str, str]]:
    places: list[tuple[str, str]] = []
    for name in ("stock_deck", "return_deck", "strategy_deck", "stock_pile", "return_pile", "strategy_pile"):
        places += [(card, name) for card in getattr(state, name)]
    for index, seat in enumerate(state.seats):
        places += [(card, f"seat{index}.hand") for card in seat.hand]
        places += [(card, f"seat{index}.strategies") for card in seat.strategies]
        for number, inv in enumerate(seat.investments):
            places += [(card, f"seat{index}.investment{number}") for card in inv.cards()]
    return places


def card_locations(state: MarketFortuneState) -> dict[str, str]:
    """Every one of the 180 card ids mapped to where it lies.

    :raises CardAccountingError: a card is missing, duplicated or unknown.
    """
    located: dict[str, str] = {}
    for card, place in _places(state):
        if card in located:
            raise CardAccountingError(f"{card} is both in {located[card]} and {place}")
        located[card] = place
    expected = set(cards.ALL_CARD_IDS)
    if set(located) != expected:
        missing = sorted(expected - set(located))
        unknown = sorted(set(located) - expected)
        raise CardAccountingError(f"missing {missing}, unknown {unknown}")
    return located


def hidden_from(state: MarketFortuneState, seat: int | None) -> frozenset[str]:
    """Ids that ``seat`` (``None``: a spectator) may not see now (section 11).

    Hidden: the three decks; other seats' building hands, Strategies and
    face-down investments; pile cards lying face down that the seat did not
    discard (9.3). Cards an effect revealed to the seat (11.1) are known to it.
    """
    hidden: set[str] = set(state.stock_deck)
    hidden.update(state.return_deck, state.strategy_deck)
    for index, other in enumerate(state.seats):
        if index == seat:
            continue
        hidden.update(other.hand, other.strategies)
        for inv in other.investments:
            if not inv.face_up:
                hidden.update(inv.cards())
    if state.locked:
        hidden.update(card for card, owner in state.locked if owner != seat)
    if seat is not None:
        revealed = state.seats[seat].revealed
        if revealed is not None:
            hidden.difference_update(revealed.cards)
    return frozenset(hidden)
