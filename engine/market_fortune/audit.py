"""Where every card is, and what each seat may not see — from the state alone.

This module is deliberately independent of :mod:`engine.market_fortune.view`:
the simulation test and the gateway's leak tests compare views and events
against :func:`hidden_from`, so the two must not share code.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain

from engine.market_fortune import cards
from engine.market_fortune.state import MarketFortuneState

__all__ = ["CardAccountingError", "card_locations", "check_cards", "hidden_from", "hidden_in_events"]


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


_EXPECTED = frozenset(cards.ALL_CARD_IDS)


def _all_cards(state: MarketFortuneState) -> list[str]:
    """Every card id lying anywhere, one entry per card found."""
    found = [*state.stock_deck, *state.return_deck, *state.strategy_deck]
    found += [*state.stock_pile, *state.return_pile, *state.strategy_pile]
    for seat in state.seats:
        found += seat.hand
        found += seat.strategies
        for inv in seat.investments:
            found += inv.cards()
    return found


def card_locations(state: MarketFortuneState) -> dict[str, str]:
    """Every one of the 180 card ids mapped to where it lies.

    :raises CardAccountingError: a card is missing, duplicated or unknown.
    """
    found = _all_cards(state)
    if len(found) == len(_EXPECTED) and _EXPECTED.issuperset(found) and len(set(found)) == len(found):
        # The quick count says every card is there once; name the places.
        return {card: place for card, place in _places(state)}
    located: dict[str, str] = {}
    for card, place in _places(state):
        if card in located:
            raise CardAccountingError(f"{card} is both in {located[card]} and {place}")
        located[card] = place
    if set(located) != _EXPECTED:
        missing = sorted(_EXPECTED - set(located))
        unknown = sorted(set(located) - _EXPECTED)
        raise CardAccountingError(f"missing {missing}, unknown {unknown}")
    return located


def check_cards(state: MarketFortuneState) -> None:
    """Raise unless each of the 180 cards lies in exactly one place (cheaper than
    :func:`card_locations` when the places are not wanted).

    :raises CardAccountingError: a card is missing, duplicated or unknown.
    """
    found = _all_cards(state)
    if len(found) != len(_EXPECTED) or not _EXPECTED.issuperset(found) or len(set(found)) != len(found):
        card_locations(state)  # raises, naming the card
        raise CardAccountingError("card accounting failed")  # pragma: no cover


def hidden_from(state: MarketFortuneState, seat: int | None) -> frozenset[str]:
    """Ids that ``seat`` (``None``: a spectator) may not see now (section 11).

    Hidden: the three decks; other seats' building hands, Strategies and
    face-down investments; pile cards lying face down that the seat did not
    discard (9.3). Cards an effect revealed to the seat (11.1) are known to it.
    """
    parts: list[Iterable[str]] = [state.stock_deck, state.return_deck, state.strategy_deck]
    for index, other in enumerate(state.seats):
        if index == seat:
            continue
        parts += (other.hand, other.strategies)
        parts += [inv.cards() for inv in other.investments if not inv.face_up]
    if state.locked:
        parts.append([card for card, owner in state.locked if owner != seat])
    hidden = frozenset(chain.from_iterable(parts))
    if seat is not None:
        revealed = state.seats[seat].revealed
        if revealed is not None:
            hidden = hidden.difference(revealed.cards)
    return hidden


def hidden_in_events(before: MarketFortuneState, after: MarketFortuneState, seat: int | None) -> frozenset[str]:
    """Ids that the events of the step from ``before`` to ``after`` may not name to ``seat``.

    An event tells of a move, so it may name what the seat could see on
    either side of it: a card hidden both before and after the step stays
    secret. A Build from a pile takes its face-up top (4.2) into a hand where
    nobody else sees it, and its event names the card (11.3): every seat saw
    it on the pile before the step, so it is not in this set.
    """
    return hidden_from(before, seat) & hidden_from(after, seat)
