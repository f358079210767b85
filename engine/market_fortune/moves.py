"""Card movements: draws, discards, investments, chance — each a pure state step.

Every function returns a new state built with :func:`~engine.market_fortune.state.evolve` so
only what changes is copied. Events are appended to the ``events`` list the
caller passes; a public event never names a card that ends up hidden (11.3).
"""

from __future__ import annotations

from engine import chance
from engine.core import Event, new_event
from engine.market_fortune import cards
from engine.market_fortune.state import (
    Investment,
    MarketFortuneState,
    SeatState,
    Source,
    Task,
    TaskStep,
    evolve,
)
from engine.text import counted

__all__ = [
    "DECK_AND_PILE",
    "PILE_OF",
    "announce_discards",
    "can_draw",
    "can_draw_strategy",
    "clockwise",
    "discard",
    "draw",
    "draw_events",
    "draw_strategy",
    "event",
    "event_of",
    "is_locked",
    "lose_all_investments",
    "next_chance",
    "random_index",
    "return_investment",
    "roll_plus",
    "seat_change",
    "set_seat",
    "task_of",
    "with_seat",
]


def event(
    kind: str,
    text: str,
    audience: tuple[int, ...] | None = None,
    **data: object,
) -> Event:
    """An event; ``audience=None`` is public (:func:`engine.core.new_event`)."""
    return event_of(kind, text, audience, data)


event_of = new_event
""":func:`event` with its data as one dict (the hot paths build it directly)."""


_TASKS: dict[tuple[object, ...], Task] = {}
_TASK_MEMO_LIMIT = 4096


def task_of(
    seat: int,
    step: TaskStep,
    section: str,
    *,
    count: int = 1,
    other: int | None = None,
    forbid: str | None = None,
    locked: bool = False,
) -> Task:
    """A :class:`Task`, validated once per distinct value and then shared (tasks are immutable).

    The rules owe a discard on most turns; validating a new task each time
    would cost more than the rest of the step's bookkeeping.
    """
    key = (seat, step, section, count, other, forbid, locked)
    task = _TASKS.get(key)
    if task is None:
        if len(_TASKS) >= _TASK_MEMO_LIMIT:
            _TASKS.clear()
        task = _TASKS[key] = Task(
            seat=seat, step=step, section=section, count=count, other=other, forbid=forbid, locked=locked
        )
    return task


def set_seat(state: MarketFortuneState, index: int, **changes: object) -> MarketFortuneState:
    """Replace some fields of one seat."""
    return with_seat(state, index, changes)


def with_seat(
    state: MarketFortuneState,
    index: int,
    seat_changes: dict[str, object],
    state_changes: dict[str, object] | None = None,
) -> MarketFortuneState:
    """Replace fields of one seat and, in the same copy, fields of the state."""
    changes = seat_change(state, index, seat_changes)
    if state_changes:
        changes.update(state_changes)
    return evolve(state, changes)


def seat_change(state: MarketFortuneState, index: int, seat_changes: dict[str, object]) -> dict[str, object]:
    """The state's ``seats`` with fields of one seat replaced, as a change for :func:`evolve`."""
    seats = state.__dict__["seats"]
    return {"seats": (*seats[:index], evolve(seats[index], seat_changes), *seats[index + 1 :])}


def clockwise(state: MarketFortuneState, start: int) -> tuple[int, ...]:
    """The other seats in clockwise order after ``start`` (2.2, 7.2)."""
    n = len(state.seats)
    return tuple((start + step) % n for step in range(1, n))


def next_chance(state: MarketFortuneState) -> tuple[MarketFortuneState, int]:
    """Reserve the next chance counter value."""
    return evolve(state, {"chance": state.chance + 1}), state.chance


def roll_plus(state: MarketFortuneState) -> tuple[MarketFortuneState, bool]:
    """Roll the Fortune Die (1.3): True on one of the plus faces."""
    state, counter = next_chance(state)
    return state, chance.roll(state.seed, counter, cards.DIE_FACES) <= cards.DIE_PLUS_FACES


def random_index(state: MarketFortuneState, bound: int) -> tuple[MarketFortuneState, int]:
    """A uniform index in ``[0, bound)`` drawn from the table's chance."""
    state, counter = next_chance(state)
    return state, chance.draw_below(state.seed, counter, bound)


DECK_AND_PILE: dict[str, tuple[str, str]] = {
    "stock_deck": ("stock_deck", "stock_pile"),
    "stock_pile": ("stock_deck", "stock_pile"),
    "return_deck": ("return_deck", "return_pile"),
    "return_pile": ("return_deck", "return_pile"),
}
"""A draw source -> (its deck, its pile)."""


def is_locked(state: MarketFortuneState, card: str) -> bool:
    """Whether ``card`` lies face down on its pile (Championship, 9.3)."""
    return any(locked == card for locked, _ in state.locked)


def can_draw(state: MarketFortuneState, source: Source) -> bool:
    """Whether a building card can be drawn from ``source`` now (4.2, 4.3).

    A deck can be drawn while it or its pile below the top card holds cards;
    a pile top can be taken unless the pile is empty or its top lies face down.
    """
    deck_name, pile_name = DECK_AND_PILE[source]
    values = state.__dict__
    pile: tuple[str, ...] = values[pile_name]
    if source == deck_name:
        return bool(values[deck_name]) or len(pile) > 1
    return bool(pile) and not is_locked(state, pile[-1])


def draw(
    state: MarketFortuneState, seat: int, source: Source, events: list[Event]
) -> tuple[MarketFortuneState, dict[str, object]]:
    """Move one building card from ``source`` to ``seat``'s hand; the caller checked :func:`can_draw`.

    Returns the state (with a new deck if its deck ran out, 4.3) and the
    changes that move the card, for the caller to make in the copy that
    makes its own (:func:`engine.market_fortune.rules.apply` copies once).
    """
    deck_name, pile_name = DECK_AND_PILE[source]
    label = "Stock" if deck_name == "stock_deck" else "Return"
    if source == deck_name:
        deck: tuple[str, ...] = state.__dict__[deck_name]
        if not deck:
            # 4.3: the pile except its top card becomes the new deck.
            pile: tuple[str, ...] = getattr(state, pile_name)
            state, counter = next_chance(state)
            moved = set(pile[:-1])
            state = evolve(state, {
                deck_name: tuple(chance.shuffle(state.seed, counter, pile[:-1])),
                pile_name: pile[-1:],
                "locked": tuple(entry for entry in state.locked if entry[0] not in moved),
            })
            events.append(
                event("reshuffle", f"The {label} deck ran out: its discard pile (all but the top card) was shuffled into a new deck.", deck=deck_name)
            )
            deck = getattr(state, deck_name)
        card = deck[-1]
        taken_from: dict[str, object] = {deck_name: deck[:-1]}
        where = f"the {label} deck"
    else:
        pile = state.__dict__[pile_name]
        card = pile[-1]
        taken_from = {pile_name: pile[:-1]}
        where = f"the top of the {label} discard pile"
    taken_from.update(seat_change(state, seat, {"hand": (*state.__dict__["seats"][seat].hand, card)}))
    events += draw_events(seat, source, card, where)
    return state, taken_from


def draw_events(seat: int, source: str, card: str, where: str) -> list[Event]:
    """The events of ``seat`` drawing ``card`` from ``source`` (``where`` in words).

    A deck draw is public as a fact and private as a card. A pile top lay face
    up before every seat (4.2), so its draw names the card in one public event
    (11.3): hiding it would hide nothing anyone could not see.
    """
    if source.endswith("_pile"):
        text = f"Seat {seat} took {_card_name(card)} ({card}) from {where}."
        return [event_of("draw", text, None, {"seat": seat, "source": source, "card": card})]
    return [
        event_of("draw", f"Seat {seat} drew a building card from {where}.", None, {"seat": seat, "source": source}),
        event_of(
            "draw",
            f"You drew {_card_name(card)} ({card}) from {where}.",
            (seat,),
            {"seat": seat, "source": source, "card": card},
        ),
    ]


def can_draw_strategy(state: MarketFortuneState) -> bool:
    """Whether a Strategy can be drawn (4.3: the deck, else its reshuffled pile)."""
    return bool(state.strategy_deck) or bool(state.strategy_pile)


def draw_strategy(
    state: MarketFortuneState, seat: int, events: list[Event], why: str
) -> tuple[MarketFortuneState, str | None, dict[str, object]]:
    """Draw one Strategy for ``seat`` if any is left (4.3); ``why`` names the rule.

    Returns the state (with a new deck if its deck ran out, 4.3), the card
    drawn (``None``: deck and pile were empty) and the changes that move it,
    for the caller to make in the copy that makes its own (as :func:`draw`).
    """
    if not state.strategy_deck:
        if not state.strategy_pile:
            events.append(event("no_strategy", f"Seat {seat} draws no Strategy ({why}): deck and discard pile are empty.", seat=seat))
            return state, None, {}
        state, counter = next_chance(state)
        state = evolve(state, {
            "strategy_deck": tuple(chance.shuffle(state.seed, counter, state.strategy_pile)),
            "strategy_pile": (),
        })
        events.append(event("reshuffle", "The Strategy deck ran out: its discard pile was shuffled into a new deck.", deck="strategy_deck"))
    deck = state.strategy_deck
    card = deck[-1]
    changes = seat_change(state, seat, {"strategies": (*state.seats[seat].strategies, card)})
    changes["strategy_deck"] = deck[:-1]
    events.append(event_of("strategy", f"Seat {seat} drew a Strategy ({why}).", None, {"seat": seat}))
    events.append(
        event_of("strategy", f"You drew {_card_name(card)} ({card}) ({why}).", (seat,), {"seat": seat, "card": card})
    )
    return state, card, changes


PILE_OF = {"S": "stock_pile", "R": "return_pile", "X": "strategy_pile"}
"""The discard pile of a card, by the first letter of its id."""
_card_name = cards.card_name


def _pile_changes(state: MarketFortuneState, card: str, locked_by: int | None) -> dict[str, object]:
    """The state fields that change when ``card`` goes on its discard pile."""
    pile_name = PILE_OF[card[0]]
    update: dict[str, object] = {pile_name: (*state.__dict__[pile_name], card)}
    if locked_by is not None and card[0] != "X":
        update["locked"] = (*state.locked, (card, locked_by))
    return update


def _to_pile(state: MarketFortuneState, card: str, locked_by: int | None) -> MarketFortuneState:
    """Put a card on its discard pile, face down for ``locked_by`` (9.3)."""
    return evolve(state, _pile_changes(state, card, locked_by))


def announce_discards(
    events: list[Event], seat: int, discarded: tuple[str, ...], locked: bool, why: str
) -> None:
    """The events of ``seat`` discarding ``discarded``: public, or face down with a private list (9.3)."""
    if not discarded:
        return
    if len(discarded) == 1:
        names = f"{_card_name(discarded[0])} ({discarded[0]})"
    else:
        names = ", ".join(f"{_card_name(c)} ({c})" for c in discarded)
    if locked:
        events.append(event_of("discard", f"Seat {seat} discarded {len(discarded)} building card(s) face down ({why}).",
                               None, {"seat": seat, "locked": True}))
        events.append(event_of("discard", f"You discarded {names} face down ({why}).",
                               (seat,), {"seat": seat, "cards": list(discarded), "locked": True}))
    else:
        events.append(event_of("discard", f"Seat {seat} discarded {names} ({why}).", None, {"seat": seat, "cards": list(discarded)}))


def discard(
    state: MarketFortuneState,
    seat: int,
    card: str,
    events: list[Event],
    *,
    locked: bool = False,
    why: str = "",
) -> dict[str, object]:
    """Discard a building card from ``seat``'s hand; ``locked`` lays it face down (9.3).

    Returns the changes, for the caller to make in the copy that makes its own.
    """
    hand = list(state.__dict__["seats"][seat].hand)
    hand.remove(card)
    changes = _pile_changes(state, card, seat if locked else None)
    changes.update(seat_change(state, seat, {"hand": tuple(hand)}))
    announce_discards(events, seat, (card,), locked, why)
    return changes


def return_investment(
    state: MarketFortuneState, seat: int, index: int, events: list[Event], why: str
) -> MarketFortuneState:
    """Move investment ``index`` of ``seat`` back to hand; its Innovation is discarded (5.1)."""
    owner: SeatState = state.seats[seat]
    investment: Investment = owner.investments[index]
    rest = owner.investments[:index] + owner.investments[index + 1 :]
    state = set_seat(state, seat, hand=(*owner.hand, investment.stock, investment.ret), investments=rest)
    if investment.innovation is not None:
        state = _to_pile(state, investment.innovation, None)
    events.append(event("return", f"Seat {seat} took an investment back into its hand ({why}).", seat=seat, position=index))
    events.append(
        event(
            "return",
            f"Your investment {cards.card_name(investment.stock)} + {cards.card_name(investment.ret)} went back to your hand ({why}).",
            (seat,),
            seat=seat,
            cards=[investment.stock, investment.ret],
        )
    )
    if investment.innovation is not None:
        events.append(event("discard", f"Seat {seat}'s Innovation went to the Strategy discard pile.", seat=seat, strategy="innovation"))
    return state


def lose_all_investments(
    state: MarketFortuneState, seat: int, events: list[Event], *, locked: bool, why: str
) -> MarketFortuneState:
    """Every investment of ``seat`` goes to the discard piles (Market Crash 12.2)."""
    owner = state.seats[seat]
    state = set_seat(state, seat, investments=())
    building: list[str] = []
    strategies: list[str] = []
    for investment in owner.investments:
        building += [investment.stock, investment.ret]
        if investment.innovation is not None:
            strategies.append(investment.innovation)
    for card in building:
        state = _to_pile(state, card, seat if locked else None)
    for card in strategies:
        state = _to_pile(state, card, None)
    events.append(event("crash", f"Seat {seat} lost {counted(len(owner.investments), 'investment')} ({why}).", seat=seat, lost=len(owner.investments)))
    announce_discards(events, seat, tuple(building), locked, why)
    if strategies:
        events.append(event("discard", f"Seat {seat}'s Innovation went to the Strategy discard pile.", seat=seat, strategy="innovation", count=len(strategies)))
    return state
