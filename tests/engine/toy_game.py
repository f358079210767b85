"""High Card: a third game, small enough to read at once, on the whole engine contract.

Each seat is dealt one card of nine (``C.1`` to ``C.9``) face down. In turn,
each seat keeps its card or swaps it: the old card goes face up on the pile,
the seat draws the top of the hidden deck. When every seat has decided, the
cards are shown and the highest wins. The game is assembled as data
(engine.assembly): its rule functions, with the default action, the action
ids and the summary left to the defaults.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from engine import chance
from engine.assembly import GenericAction, assemble
from engine.core import (
    EngineModel,
    Event,
    GameInfo,
    IllegalAction,
    InvalidConfig,
    ModeInfo,
    NotYourTurn,
    Outcome,
    Seat,
    TableConfig,
    View,
)

CARDS = tuple(f"C.{value}" for value in range(1, 10))


class Choice(GenericAction):
    kind: Literal["keep", "swap"]

    @property
    def text(self) -> str:
        return "keep your card" if self.kind == "keep" else "discard your card face up and draw the deck's top"


class HighCardState(EngineModel):
    config: TableConfig
    deck: tuple[str, ...]
    hands: tuple[str, ...]
    pile: tuple[str, ...] = ()
    turn: int = 0


class HighCardView(View):
    game: Literal["high-card"] = "high-card"
    hand: str | None
    pile: tuple[str, ...]
    to_act: tuple[int, ...]
    shown: tuple[str, ...] = ()


INFO = GameInfo(name="high-card", title="High Card",
                modes=(ModeInfo(name="plain", title="Plain", min_seats=2, max_seats=4, description="Highest wins."),))


def new_table(config: TableConfig, seed: int) -> HighCardState:
    if config.mode != "plain" or not 2 <= config.seats <= 4:
        raise InvalidConfig("High Card: mode plain, 2 to 4 seats", rule="1")
    deck = chance.shuffle(seed, 0, CARDS)
    hands = tuple(deck.pop() for _ in range(config.seats))
    return HighCardState(config=config, deck=tuple(deck), hands=hands)


def to_act(state: HighCardState) -> list[Seat]:
    return [] if state.turn >= len(state.hands) else [state.turn]


def legal_actions(state: HighCardState, seat: Seat) -> list[Choice]:
    return [Choice(kind="keep"), Choice(kind="swap")] if seat in to_act(state) else []


def apply(state: HighCardState, seat: Seat, action: Choice) -> tuple[HighCardState, list[Event]]:
    if state.turn >= len(state.hands):
        raise IllegalAction("the game is over", rule="3")
    if seat not in to_act(state):
        raise NotYourTurn(f"seat {state.turn} decides now", rule="2")
    if action.kind == "keep":
        return state.model_copy(update={"turn": state.turn + 1}), [Event(kind="keep", text=f"Seat {seat} keeps.")]
    old, new = state.hands[seat], state.deck[-1]
    hands = (*state.hands[:seat], new, *state.hands[seat + 1 :])
    events = [Event(kind="swap", text=f"Seat {seat} discards {old} face up and draws."),
              Event(kind="swap", text=f"You drew {new}.", audience=(seat,))]
    changes = {"deck": state.deck[:-1], "hands": hands, "pile": (*state.pile, old), "turn": state.turn + 1}
    return state.model_copy(update=changes), events


def view(state: HighCardState, seat: Seat | None) -> HighCardView:
    over = state.turn >= len(state.hands)
    return HighCardView(seat=seat, hand=None if seat is None else state.hands[seat], pile=state.pile,
                        to_act=tuple(to_act(state)), shown=state.hands if over else ())


def outcome(state: HighCardState) -> Outcome | None:
    if state.turn < len(state.hands):
        return None
    values = [int(card.split(".")[1]) for card in state.hands]
    best = max(values)
    return Outcome(winners=tuple(i for i, v in enumerate(values) if v == best), reason="showdown",
                   scores=tuple(float(v) for v in values))


def hidden_from(state: HighCardState, seat: Seat | None) -> frozenset[str]:
    """The deck, and until the showdown every hand but the seat's own."""
    if state.turn >= len(state.hands):
        return frozenset(state.deck)
    return frozenset(state.deck) | {card for index, card in enumerate(state.hands) if index != seat}


PARTS: dict[str, Any] = {
    "info": INFO, "config_model": TableConfig, "state_model": HighCardState, "view_model": HighCardView,
    "action_type": Annotated[Choice, Field(discriminator="kind")], "new_table": new_table, "to_act": to_act,
    "legal_actions": legal_actions, "apply": apply, "view": view, "outcome": outcome, "hidden_from": hidden_from,
    "rulebook": __doc__ or "",
}
"""The game as data: its rule functions; default action, ids and summary come from engine.assembly."""

GAME = assemble(**PARTS)
