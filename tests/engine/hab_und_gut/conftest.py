"""Hand-made Hab & Gut states for the scenario tests.

``table`` deals a real table and then rearranges only what a scenario needs,
so every other field stays consistent with the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.hab_und_gut import GAME
from engine.hab_und_gut.components import COMMODITIES, SHARE_CARDS, TRACK
from engine.hab_und_gut.state import HabConfig, HabState
from engine.hab_und_gut.view import HabView

TableBuilder = Callable[..., HabState]


def space_of(price: int) -> int:
    """The track space printed with ``price``."""
    return TRACK.index(price)


def view_of(state: HabState, seat: int | None) -> HabView:
    """``GAME.view`` as Hab & Gut's own view model (the Game contract promises a ``View``)."""
    seen = GAME.view(state, seat)
    assert isinstance(seen, HabView)
    return seen


def with_prices(state: HabState, **prices: int) -> HabState:
    """``state`` with some commodities moved to the space printed with the given price."""
    spaces = list(state.prices)
    for commodity, price in prices.items():
        spaces[COMMODITIES.index(commodity)] = space_of(price)
    return state.model_copy(update={"prices": tuple(spaces)})


def give_shares(state: HabState, seat: int, *commodities: str, charity: bool = False) -> HabState:
    """Move shares of ``commodities`` from the supply to a seat's hand (or charity board)."""
    supply = list(state.supply)
    taken: list[str] = []
    for commodity in commodities:
        card = next(c for c in supply if SHARE_CARDS[c].commodity == commodity)
        supply.remove(card)
        taken.append(card)
    field = "charity" if charity else "shares"
    rows = list(getattr(state, field))
    rows[seat] = tuple(sorted((*rows[seat], *taken))) if not charity else (*rows[seat], *taken)
    return state.model_copy(update={"supply": tuple(supply), field: tuple(rows)})


def set_holder(state: HabState, number: int, *cards: str) -> HabState:
    """``state`` with holder ``number`` holding exactly ``cards``; displaced cards go to the deck."""
    wanted = set(cards)
    holders = [tuple(c for c in h if c not in wanted) for h in state.holders]
    deck = [c for c in state.deck if c not in wanted]
    deck.extend(holders[number])
    holders[number] = tuple(sorted(wanted))
    return state.model_copy(update={"holders": tuple(holders), "deck": tuple(sorted(deck))})


def act(state: HabState, seat: int, *action_ids: str) -> tuple[HabState, list[Any]]:
    """Apply several action ids by one seat; returns the last state and all events."""
    events: list[Any] = []
    for action_id in action_ids:
        state, step = GAME.apply(state, seat, GAME.parse_action(action_id))
        events.extend(step)
    return state, events


def finish_stock_phase(state: HabState) -> HabState:
    """Every seat still to act in the stock phase ends it without doing anything."""
    while state.phase == "stock":
        state, _ = GAME.apply(state, state.actor, GAME.parse_action("end"))
    return state


def play_market_phase(state: HabState) -> HabState:
    """Every seat still to act in the market phase takes its first legal picks."""
    turn = state.turn
    while state.phase == "market" and state.turn == turn:
        seat = state.actor
        state, _ = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    return state


def play_turns(state: HabState, turns: int) -> HabState:
    """Play ``turns`` whole turns with no trades and the first legal market picks."""
    for _ in range(turns):
        state = play_market_phase(finish_stock_phase(state))
    return state


class Helpers:
    """The scenario helpers above, handed to tests by the ``hg`` fixture."""

    space_of = staticmethod(space_of)
    view = staticmethod(view_of)
    with_prices = staticmethod(with_prices)
    give_shares = staticmethod(give_shares)
    set_holder = staticmethod(set_holder)
    act = staticmethod(act)
    finish_stock_phase = staticmethod(finish_stock_phase)
    play_market_phase = staticmethod(play_market_phase)
    play_turns = staticmethod(play_turns)


HG = type[Helpers]
"""The type of the ``hg`` fixture, for the tests' signatures."""


@pytest.fixture()
def hg() -> HG:
    """The scenario helpers (a fixture, because test modules import no siblings)."""
    return Helpers


@pytest.fixture()
def table() -> TableBuilder:
    """Deal a table: ``table(seats=4, seed=7)``."""

    def build(seats: int = 4, seed: int = 7) -> HabState:
        return GAME.new_table(HabConfig(seats=seats), seed)

    return build
