"""Hand-made Market Fortune states for the scenario tests.

``mf.build(...)`` lays out a table card by card: the cards a scenario names go
where it says, every other card goes into its deck (below any named deck
tops), so the 180 cards are always accounted for. ``mf.act`` applies action
ids; ``mf.roll`` moves the chance counter to the next roll with the wanted face.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from engine import chance
from engine.core import Event, Outcome
from engine.market_fortune import GAME, cards
from engine.market_fortune.audit import card_locations
from engine.market_fortune.state import (
    Investment,
    MarketFortuneConfig,
    MarketFortuneState,
    Mode,
    SeatState,
)
from engine.market_fortune.view import MarketFortuneView

InvestmentSpec = tuple[str, str] | Investment


class Helpers:
    """Scenario helpers, handed to tests by the ``mf`` fixture."""

    game = GAME

    @staticmethod
    def build(
        *,
        mode: Mode = "fortune",
        seats: int = 4,
        variants: Sequence[str] = (),
        hands: Mapping[int, Iterable[str]] | None = None,
        strategies: Mapping[int, Iterable[str]] | None = None,
        investments: Mapping[int, Iterable[InvestmentSpec]] | None = None,
        stock_pile: Sequence[str] = (),
        return_pile: Sequence[str] = (),
        strategy_pile: Sequence[str] = (),
        deck_tops: Mapping[str, Sequence[str]] | None = None,
        empty_decks: Iterable[str] = (),
        seed: int = 1,
        config: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> MarketFortuneState:
        """A consistent state with exactly the named cards in the named places.

        ``deck_tops`` maps a deck name to its top cards (the last one is drawn
        first). Decks named in ``empty_decks`` hold nothing; their other cards
        go to the matching discard pile, under the named pile cards.
        ``fields`` set any other state field (``active``, ``stage``, ...).
        """
        cfg = MarketFortuneConfig(mode=mode, seats=seats, variants=tuple(variants), **(config or {}))
        placed: list[str] = []
        seat_states = []
        for seat in range(seats):
            hand = tuple((hands or {}).get(seat, ()))
            held = tuple((strategies or {}).get(seat, ()))
            formed = tuple(
                spec if isinstance(spec, Investment) else Investment(stock=spec[0], ret=spec[1])
                for spec in (investments or {}).get(seat, ())
            )
            seat_states.append(SeatState(hand=hand, strategies=held, investments=formed))
            placed += [*hand, *held, *(c for inv in formed for c in inv.cards())]
        tops = {name: tuple(ids) for name, ids in (deck_tops or {}).items()}
        placed += [*stock_pile, *return_pile, *strategy_pile, *(c for ids in tops.values() for c in ids)]
        free = [c for c in cards.ALL_CARD_IDS if c not in set(placed)]
        decks: dict[str, list[str]] = {"stock_deck": [], "return_deck": [], "strategy_deck": []}
        for card in free:
            decks[{"stock": "stock_deck", "return": "return_deck", "strategy": "strategy_deck"}[cards.card_type(card)]].append(card)
        piles = {"stock_deck": list(stock_pile), "return_deck": list(return_pile), "strategy_deck": list(strategy_pile)}
        for name in empty_decks:
            piles[name] = decks[name] + piles[name]
            decks[name] = []
        layout = {name: tuple(decks[name]) + tops.get(name, ()) for name in decks}
        state = MarketFortuneState(
            config=cfg,
            seed=seed,
            seats=tuple(seat_states),
            stock_pile=tuple(piles["stock_deck"]),
            return_pile=tuple(piles["return_deck"]),
            strategy_pile=tuple(piles["strategy_deck"]),
            **layout,
            **fields,
        )
        card_locations(state)
        return state

    @staticmethod
    def act(state: MarketFortuneState, *action_ids: str) -> tuple[MarketFortuneState, list[Event]]:
        """Apply action ids in turn, each by the seat that must decide; all events."""
        events: list[Event] = []
        for action_id in action_ids:
            seat = GAME.to_act(state)[0]
            state, new = GAME.apply(state, seat, GAME.parse_action(action_id))
            events += new
        return state, events

    @staticmethod
    def ids(state: MarketFortuneState, seat: int | None = None) -> list[str]:
        """Legal action ids of ``seat`` (default: the seat to act)."""
        who = GAME.to_act(state)[0] if seat is None else seat
        return [a.id for a in GAME.legal_actions(state, who)]

    @staticmethod
    def roll(state: MarketFortuneState, plus: bool) -> MarketFortuneState:
        """The state with its chance counter at the next roll showing ``plus`` or ``-``."""
        counter = state.chance
        while (chance.roll(state.seed, counter, cards.DIE_FACES) <= cards.DIE_PLUS_FACES) != plus:
            counter += 1
        return state.model_copy(update={"chance": counter})

    @staticmethod
    def view(state: MarketFortuneState, seat: int | None) -> MarketFortuneView:
        """``GAME.view`` as Market Fortune's own view model (the Game contract promises a ``View``)."""
        seen = GAME.view(state, seat)
        assert isinstance(seen, MarketFortuneView)
        return seen

    @staticmethod
    def outcome(state: MarketFortuneState) -> Outcome:
        """``GAME.outcome`` of a table that must be over."""
        result = GAME.outcome(state)
        assert result is not None, "the table is not over"
        return result

    @staticmethod
    def public_text(events: Sequence[Event]) -> str:
        """Everything the public events say, as one string to search."""
        return " ".join(e.model_dump_json() for e in events if e.audience is None)


MF = type[Helpers]
"""The type of the ``mf`` fixture, for the tests' signatures."""


@pytest.fixture()
def mf() -> MF:
    """The scenario helpers (a fixture, because test modules import no siblings)."""
    return Helpers
