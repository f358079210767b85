"""Who must decide now, what they may do, and why anything else is refused.

:func:`legal_actions` lists the choices (sections 3-9) from :func:`actions_now`,
the one definition of what is legal, which
:func:`engine.market_fortune.rules.apply` checks an action against. An
:class:`IllegalAction` from :func:`explain_illegal` names the rule broken and
never a card (11.3).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

from engine.core import IllegalAction, NotYourTurn
from engine.market_fortune import cards
from engine.market_fortune.actions import (
    SOURCES,
    Build,
    Declare,
    Decline,
    Defend,
    Discard,
    Dominate,
    Draw,
    EndTurn,
    Form,
    Give,
    Mark,
    MarketFortuneAction,
    NextGame,
    Optimise,
    Play,
    ReturnInvestment,
    Risk,
    Take,
)
from engine.market_fortune.effects import (
    bailout_cards,
    blue_allowed,
    formable_pairs,
    red_options,
)
from engine.market_fortune.moves import can_draw, can_draw_strategy
from engine.market_fortune.state import MarketFortuneState, Source, Task

__all__ = [
    "actions_now",
    "default_action",
    "explain_illegal",
    "is_listed",
    "legal_actions",
    "task_possible",
    "to_act",
]


# Actions are immutable values, and a table only ever offers a bounded set of
# them, so each one is built (and validated) once and then shared: legal
# actions are listed on every step of every table and bot. Their ids are
# remembered too, for sorting, each beside the action itself: holding the
# action keeps its object id from being reused while it is remembered (two
# threads may both build one action; both copies stay valid).
_IDS: dict[int, tuple[MarketFortuneAction, str]] = {}


def _known(action: MarketFortuneAction) -> MarketFortuneAction:
    _IDS[id(action)] = (action, action.id)
    return action


def _id_of(action: MarketFortuneAction) -> str:
    """The action's canonical id, remembered for the shared actions."""
    known = _IDS.get(id(action))
    return known[1] if known is not None and known[0] is action else action.id


@cache
def _build(source: Source) -> MarketFortuneAction:
    return _known(Build(source=source))


@cache
def _draw(source: Source) -> MarketFortuneAction:
    return _known(Draw(source=source))


@cache
def _discard(card: str) -> MarketFortuneAction:
    return _known(Discard(card=card))


@cache
def _take(card: str) -> MarketFortuneAction:
    return _known(Take(card=card))


@cache
def _give(card: str) -> MarketFortuneAction:
    return _known(Give(card=card))


@cache
def _return(stock: str) -> MarketFortuneAction:
    return _known(ReturnInvestment(stock=stock))


@cache
def _mark(stock: str) -> MarketFortuneAction:
    return _known(Mark(stock=stock))


@cache
def _defend(card: str) -> MarketFortuneAction:
    return _known(Defend(card=card))


@cache
def _play(card: str, target: int | None) -> MarketFortuneAction:
    return _known(Play(card=card, target=target))


@cache
def _risk(stock: str, ret: str, innovation: str | None) -> MarketFortuneAction:
    return _known(Risk(stock=stock, ret=ret, innovation=innovation))


@cache
def _formed(stock: str, ret: str, innovation: str | None) -> MarketFortuneAction:
    return _known(Form(stock=stock, ret=ret, innovation=innovation))


@cache
def _optimise(out: str, into: str) -> MarketFortuneAction:
    return _known(Optimise(out=out, into=into))


_DOMINATE = _known(Dominate())
_DECLINE = _known(Decline())
_END_TURN = _known(EndTurn())
_DECLARE = _known(Declare())
_NEXT_GAME = _known(NextGame())


def to_act(state: MarketFortuneState) -> list[int]:
    """The one seat that must decide now; a defender may act outside its turn (7.2)."""
    if state.stage == "over":
        return []
    if state.tasks:
        return [state.tasks[0].seat]
    if state.attack is not None and state.attack.defender is not None:
        return [state.attack.defender]
    if state.stage == "between":
        return [_between_seat(state)]
    return [state.active]


def _between_seat(state: MarketFortuneState) -> int:
    """Who deals the next Championship game: its opener, else the lowest seat (9.3)."""
    return state.next_opener if state.next_opener is not None else 0


_DECKS: tuple[Source, ...] = tuple(source for source in SOURCES if source.endswith("_deck"))


def _drawable(
    state: MarketFortuneState, sources: tuple[Source, ...], choice: Callable[[Source], MarketFortuneAction]
) -> list[MarketFortuneAction]:
    """The ``choice`` of each of ``sources`` a building card can be drawn from now (4.2, 4.3)."""
    return [choice(source) for source in sources if can_draw(state, source)]


def _optimisations(
    state: MarketFortuneState, seat: int, asked: MarketFortuneAction | None = None
) -> list[MarketFortuneAction]:
    """Swaps allowed by 5.2: same type, industries still matching unless Innovation; given an
    :class:`Optimise`, only the swap of its own two cards (see :data:`Choices`)."""
    owner = state.seats[seat]
    hand = owner.hand
    asked_out = None
    if isinstance(asked, Optimise):
        hand = (asked.into,) if asked.into in hand else ()
        asked_out = asked.out
    options: list[MarketFortuneAction] = []
    for inv in owner.investments:
        if inv.face_up:
            continue
        for card in hand:
            if card[0] == "S":
                partner, out = inv.ret, inv.stock
            else:
                partner, out = inv.stock, inv.ret
            if asked_out is not None and out != asked_out:
                continue
            if inv.innovation is None and cards.card_industry(card) != cards.card_industry(partner):
                continue
            options.append(_optimise(out, card))
    return options


def _asked_card(
    offered: Sequence[str],
    asked: MarketFortuneAction | None,
    kind: type[Discard] | type[Take] | type[Give] | type[Defend],
) -> Sequence[str]:
    """``offered``, or given an action of ``kind`` (one that names a card), only its own
    card if offered: how a check of one asked action lists no other (see :data:`Choices`)."""
    if isinstance(asked, kind):
        return [asked.card] if asked.card in offered else []
    return offered


def _task_actions(
    state: MarketFortuneState, task: Task, asked: MarketFortuneAction | None = None
) -> list[MarketFortuneAction]:
    """The answers to ``task``; given an action, a discard, a take or a gift lists only
    its card and a formation only its two cards (see :data:`Choices`)."""
    owner = state.seats[task.seat]
    if task.step == "discard":
        # 3.2: the card just taken from a pile may not go back, unless it is all the hand holds.
        forbid, allowed = task.forbid, owner.hand
        if forbid in allowed:
            allowed = tuple(c for c in allowed if c != forbid) or allowed
        return [_discard(c) for c in _asked_card(allowed, asked, Discard)]
    if task.step in ("draw", "draw_deck"):
        return _drawable(state, _DECKS if task.step == "draw_deck" else SOURCES, _draw)
    if task.step == "return":
        return [_return(inv.stock) for inv in owner.investments]
    if task.step == "take":
        offered = state.seats[task.other].strategies if task.other is not None else bailout_cards(state)
        return [_take(c) for c in _asked_card(offered, asked, Take)]
    if task.step == "give":
        return [_give(c) for c in _asked_card(owner.hand, asked, Give)]
    if task.step == "mark":
        return [_mark(inv.stock) for inv in owner.investments if not inv.marked]
    only = (asked.stock, asked.ret) if isinstance(asked, Form) else None
    return [_formed(s, r, i) for s, r, i in formable_pairs(state, task.seat, only)]


Choices = Callable[[MarketFortuneState, int, MarketFortuneAction | None], list[MarketFortuneAction]]
"""The actions of one kind a seat may take now. Given an action of that kind,
a generator may list only the choices that could equal it (a red's own card,
a Build's own source, a Risk's or an optimisation's own two cards)."""


def _holds(state: MarketFortuneState, seat: int, asked: MarketFortuneAction | None = None) -> list[MarketFortuneAction]:
    """8.1: instead of declaring, return an investment (not with ``forced_count``, 13.2)."""
    if "forced_count" in state.config.variants:
        return []
    return [_return(inv.stock) for inv in state.seats[seat].investments]


_STAGE_CHOICES: dict[str, dict[str, Choices]] = {
    "main": {
        "build": lambda state, seat, asked: _drawable(
            state, (asked.source,) if isinstance(asked, Build) else SOURCES, _build
        ),
        "risk": lambda state, seat, asked: [
            _risk(s, r, i)
            for s, r, i in formable_pairs(state, seat, (asked.stock, asked.ret) if isinstance(asked, Risk) else None)
        ],
        "dominate": lambda state, seat, asked: [_DOMINATE] if can_draw_strategy(state) else [],
        "optimise": _optimisations,
    },
    "red": {
        "end": lambda state, seat, asked: [_END_TURN],
        "play": lambda state, seat, asked: [
            _play(c, t) for c, t in red_options(state, seat, asked.card if isinstance(asked, Play) else None)
        ],
    },
    "victory": {
        "declare": lambda state, seat, asked: [_DECLARE],
        "return": _holds,
        "optimise": _optimisations,
    },
    "between": {"next_game": lambda state, seat, asked: [_NEXT_GAME]},
}
"""Per stage of the active seat's turn (no task owed, no defence window open),
the choices of each action kind: :func:`actions_now` lists them all, and
:func:`is_listed` asks only the action's own kind."""

_NO_CHOICES: dict[str, Choices] = {}
"""The choices of a stage in which the active seat decides nothing (``resolving``, ``ending``)."""


def _defence_actions(
    state: MarketFortuneState, defender: int, asked: MarketFortuneAction | None = None
) -> list[MarketFortuneAction]:
    """7.2: decline, or one blue that may answer this attack; given an action, a declining
    lists no blue and a defence only its own card (see :data:`Choices`)."""
    offered = state.seats[defender].strategies
    held = () if isinstance(asked, Decline) else _asked_card(offered, asked, Defend)
    return [_DECLINE, *(_defend(c) for c in held if blue_allowed(state, c))]


def actions_now(state: MarketFortuneState) -> list[MarketFortuneAction]:
    """The legal actions of the seat in :func:`to_act`, unsorted."""
    if state.stage == "over":
        return []
    if state.tasks:
        return _task_actions(state, state.tasks[0])
    attack = state.attack
    if attack is not None and attack.defender is not None:
        return _defence_actions(state, attack.defender)
    seat = state.active
    return [
        action for choices in _STAGE_CHOICES.get(state.stage, _NO_CHOICES).values() for action in choices(state, seat, None)
    ]


def is_listed(state: MarketFortuneState, action: MarketFortuneAction) -> bool:
    """Whether ``action`` is among :func:`actions_now`: the check of
    :func:`engine.market_fortune.rules.apply`. It lists the choices of
    the action's own kind only, from the same definitions, and compares
    canonical ids (the listed actions' ids are remembered; an action parsed
    from a request is never a listed object, so its own id is computed)."""
    stage, tasks, attack = state.stage, state.tasks, state.attack
    if stage == "over":
        return False
    if tasks:
        options = _task_actions(state, tasks[0], action)
    elif attack is not None and attack.defender is not None:
        options = _defence_actions(state, attack.defender, action)
    else:
        choices = _STAGE_CHOICES.get(stage, _NO_CHOICES).get(action.kind)
        options = choices(state, state.active, action) if choices is not None else []
    return action.id in map(_id_of, options)


_NOTHING_LISTED: tuple[MarketFortuneState | None, tuple[MarketFortuneAction, ...]] = (None, ())
_LAST_LISTED = [_NOTHING_LISTED]
"""The last state whose legal actions were listed, with the list: a seat's
options are often asked for twice in a row (a bot, then ``default_action``).
One tuple, replaced whole, so a thread never reads one state with another's list."""


def legal_actions(state: MarketFortuneState, seat: int) -> list[MarketFortuneAction]:
    """Every action ``seat`` may take now, sorted by id (empty if it need not act)."""
    if seat not in to_act(state):
        return []
    last_state, last_listed = _LAST_LISTED[0]
    if last_state is state:
        return list(last_listed)
    listed = sorted(actions_now(state), key=_id_of)
    _LAST_LISTED[0] = (state, tuple(listed))
    return listed


def task_possible(state: MarketFortuneState, task: Task) -> bool:
    """Whether ``task`` has at least one answer; impossible ones are skipped (4.3)."""
    owner = state.seats[task.seat]
    step = task.step
    if step in ("discard", "give"):
        return bool(owner.hand)
    if step == "draw":
        return any(can_draw(state, s) for s in SOURCES)
    if step == "draw_deck":
        return can_draw(state, "stock_deck") or can_draw(state, "return_deck")
    if step == "return":
        return bool(owner.investments)
    if step == "take":
        return bool(state.seats[task.other].strategies) if task.other is not None else bool(bailout_cards(state))
    if step == "mark":
        return any(not inv.marked for inv in owner.investments)
    return bool(formable_pairs(state, task.seat))


def explain_illegal(state: MarketFortuneState, seat: int, action: MarketFortuneAction) -> IllegalAction:
    """Explain why ``action`` is not legal now; never names a card (11.3)."""
    if state.stage == "over":
        return IllegalAction("The table is over.", rule="8.1")
    if state.tasks:
        task = state.tasks[0]
        wanted = {
            "discard": ("discard", "discard a building card from your hand"),
            "draw": ("draw", "draw a building card from a deck or a discard pile top"),
            "draw_deck": ("draw", "draw a building card from a deck"),
            "return": ("return", "return one of your investments to your hand"),
            "take": ("take", "take one of the cards offered"),
            "give": ("give", "give one building card from your hand"),
            "mark": ("mark", "mark one of your unmarked investments"),
            "form": ("form", "form an investment from your hand"),
        }[task.step]
        if action.kind != wanted[0]:
            return IllegalAction(f"You must now {wanted[1]} (rule {task.section}).", rule=task.section)
        reason = "that card may not be discarded now: it was just taken from a discard pile" if (
            action.kind == "discard" and getattr(action, "card", None) == task.forbid
        ) else "that choice is not among the legal ones"
        rule = "3.2" if "just taken" in reason else task.section
        return IllegalAction(f"You must {wanted[1]}, but {reason}.", rule=rule)
    if state.attack is not None and state.attack.defender is not None:
        if action.kind == "defend":
            return IllegalAction(
                "That blue card is not in your hand or cannot answer this attack (Diamond Hands only answers attacks on investments).",
                rule="7.2",
            )
        return IllegalAction("You are under attack: defend with a blue Strategy or decline.", rule="7.2")
    reasons: dict[str, dict[str, tuple[str, str]]] = {
        "main": {
            "build": ("That source cannot be drawn from: it is empty or its top card lies face down.", "4.3"),
            "risk": ("A Risk needs a Stock and a Return of the same industry from your hand (different industries need Innovation).", "3.3"),
            "dominate": ("The Strategy deck and its discard pile are both empty.", "4.3"),
            "optimise": ("That optimisation is not allowed: face-down investments only, same card type, matching industries.", "5.2"),
        },
        "red": {
            "play": ("That red cannot be played now: it is not in your hand, its target is not allowed, or its condition does not hold.", "6.2"),
            "end": ("", "3.4"),
        },
        "victory": {
            "declare": ("", "8.1"),
            "return": ("Holding back returns one of your own investments to your hand.", "8.1"),
            "optimise": ("That optimisation is not allowed: face-down investments only, same card type, matching industries.", "5.2"),
        },
        "between": {"next_game": ("", "9.3")},
    }
    if action.kind == "optimise" and state.stage not in ("main", "victory"):
        return IllegalAction("You may optimise only before your main action or in the victory window.", rule="5.2")
    stage_reasons = reasons.get(state.stage, {})
    if action.kind in stage_reasons:
        message, rule = stage_reasons[action.kind]
        return IllegalAction(message or "Not allowed now.", rule=rule)
    described = {
        "main": ("Your turn: Build, Risk or Dominate (or optimise first).", "3.1"),
        "red": ("You may play one red Strategy or end your turn.", "6.2"),
        "victory": ("Victory window: optimise, then declare or hold back an investment.", "8.1"),
        "between": ("The game is over; deal the next game of the match.", "9.3"),
    }
    message, rule = described.get(state.stage, ("Not allowed now.", "3.1"))
    return IllegalAction(message, rule=rule)


_DEFAULT_ORDER: tuple[Callable[[MarketFortuneAction], bool], ...] = (
    lambda a: isinstance(a, Decline),
    lambda a: isinstance(a, EndTurn),
    lambda a: isinstance(a, Declare),
    lambda a: isinstance(a, NextGame),
    lambda a: isinstance(a, Build) and a.source == "stock_deck",
    lambda a: isinstance(a, Build) and a.source == "return_deck",
    lambda a: isinstance(a, Build),
    lambda a: isinstance(a, Dominate),
)


def default_action(state: MarketFortuneState, seat: int) -> MarketFortuneAction:
    """An always-legal action for a turn clock (14.1).

    The first of: decline a defence, end the turn, declare, deal the next game,
    Build from the Stock deck (then discard the card just drawn), any other
    Build, Dominate; inside an effect, the last card in hand for a discard and
    the first legal choice otherwise.

    :raises NotYourTurn: ``seat`` need not decide now.
    """
    options = legal_actions(state, seat)
    if not options:
        raise NotYourTurn(f"Seat {seat} has nothing to decide now.", rule="14.1")
    for wanted in _DEFAULT_ORDER:
        for action in options:
            if wanted(action):
                return action
    if state.tasks and state.tasks[0].step == "discard":
        newest = [c for c in reversed(state.seats[seat].hand) if _discard(c) in options]
        return _discard(newest[0])
    return options[0]
