"""What one seat (or a spectator) may see of a table (section 11), and its text summary.

The view is the only way a state leaves the engine. It is built here from the
state directly; :mod:`engine.market_fortune.audit` computes what each seat may
not see independently, so the tests can check one against the other.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Literal, TypeVar

from engine.core import EngineModel, Outcome, View
from engine.market_fortune import cards
from engine.market_fortune.legal import to_act
from engine.market_fortune.state import (
    Investment,
    MarketFortuneState,
    Reveal,
    SeatState,
    Stage,
    TaskStep,
)

__all__ = [
    "FACE_DOWN",
    "AttackView",
    "DecisionView",
    "InvestmentView",
    "MarketFortuneView",
    "PlayerView",
    "summary",
    "view",
]

FACE_DOWN = "face_down"
"""Stands for a card whose face the viewer may not see (never a card id)."""


class InvestmentView(EngineModel):
    """An investment as the viewer sees it: cards only when its own or face up."""

    face_up: bool
    marked: bool
    stock: str | None = None
    ret: str | None = None
    innovation: str | None = None
    value: int | None = None
    """Stock + Return in millions, when the cards are visible."""


class PlayerView(EngineModel):
    """Public facts about one seat (11.1)."""

    seat: int
    hand_count: int
    strategy_count: int
    investment_count: int
    investments: tuple[InvestmentView, ...]
    skip_next: bool
    match_total: int


class AttackView(EngineModel):
    """The attack being resolved (7), by the kind of red played.

    Not the card id: a defender's Stablecoin may reshuffle the Strategy pile,
    red included, into the deck before the attack is over.
    """

    strategy: str
    name: str
    attacker: int
    source: int | None
    defender: int | None
    queue: tuple[int, ...]


class DecisionView(EngineModel):
    """The decision owed now inside a rule or effect; ``forbid`` only for its seat."""

    seat: int
    step: TaskStep
    count: int
    section: str
    other: int | None = None
    forbid: str | None = None


class MarketFortuneView(View):
    """One seat's view of a Market Fortune table (``seat=None``: a spectator)."""

    game: Literal["market-fortune"] = "market-fortune"
    mode: str
    variants: tuple[str, ...]
    game_number: int
    turn: int
    active: int
    stage: Stage
    to_act: tuple[int, ...]
    hand: tuple[str, ...] = ()
    strategies: tuple[str, ...] = ()
    investments: tuple[InvestmentView, ...] = ()
    revealed: Reveal | None = None
    players: tuple[PlayerView, ...]
    stock_pile: tuple[str, ...]
    return_pile: tuple[str, ...]
    strategy_pile: tuple[str, ...]
    stock_deck: int
    return_deck: int
    strategy_deck: int
    attack: AttackView | None = None
    decision: DecisionView | None = None
    extra_turn: bool = False
    roll_off: tuple[str, ...] = ()
    last_game: Outcome | None = None
    result: Outcome | None = None


_set_attribute = object.__setattr__
ModelT = TypeVar("ModelT", bound=EngineModel)
T = TypeVar("T")


def _raw(cls: type[ModelT], fields: dict[str, Any]) -> ModelT:
    """Build a view model from values the engine already holds, without re-validation.

    Views are built for every seat after every action, so this path is hot;
    ``fields`` always names every field with a value of its declared type.
    """
    made = cls.__new__(cls)
    _set_attribute(made, "__dict__", fields)
    _set_attribute(made, "__pydantic_fields_set__", _ALL_FIELDS[cls])
    _set_attribute(made, "__pydantic_extra__", None)
    _set_attribute(made, "__pydantic_private__", None)
    return made


_ALL_FIELDS: dict[type[EngineModel], set[str]] = {}


def _investment(inv: Investment, visible: bool) -> InvestmentView:
    if visible or inv.face_up:
        return _raw(
            InvestmentView,
            {
                "face_up": inv.face_up,
                "marked": inv.marked,
                "stock": inv.stock,
                "ret": inv.ret,
                "innovation": inv.innovation,
                "value": cards.card_value(inv.stock) + cards.card_value(inv.ret),
            },
        )
    return _FACE_DOWN_MARKED if inv.marked else _FACE_DOWN_PLAIN


# Face-down investments all look alike to others (only the mark shows): share two values.
_FACE_DOWN_PLAIN = InvestmentView(face_up=False, marked=False)
_FACE_DOWN_MARKED = InvestmentView(face_up=False, marked=True)


def _player(index: int, seat: SeatState) -> PlayerView:
    """The public view of one seat."""
    return _raw(
        PlayerView,
        {
            "seat": index,
            "hand_count": len(seat.hand),
            "strategy_count": len(seat.strategies),
            "investment_count": len(seat.investments),
            "investments": tuple(_investment(inv, False) for inv in seat.investments),
            "skip_next": seat.skip_next,
            "match_total": seat.match_total,
        },
    )


_PLAYERS_SEEN: dict[int, tuple[SeatState, PlayerView]] = {}
_OWN_SEEN: dict[int, tuple[tuple[Investment, ...], tuple[InvestmentView, ...]]] = {}
_PLAYERS_BY_VALUE: dict[tuple[object, ...], PlayerView] = {}
_OWN_BY_VALUE: dict[tuple[object, ...], tuple[InvestmentView, ...]] = {}
_MEMO_LIMIT = 8192


def _remember(memo: dict[Any, T], key: Any, made: T) -> T:
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = made
    return made


_INVESTMENT_FIELDS = attrgetter("stock", "ret", "innovation", "marked", "face_up")


def _investments_key(investments: tuple[Investment, ...]) -> tuple[object, ...]:
    """The investments as plain values: a memo key that compares without pydantic."""
    return tuple(map(_INVESTMENT_FIELDS, investments))


def _player_by_value(index: int, seat: SeatState) -> PlayerView:
    """:func:`_player`, memoised by the seat's public facts.

    A state read back from JSON (as the gateway holds it) shares no objects
    with the previous step's, but most seats hold the same values as before.
    """
    key = (
        index,
        len(seat.hand),
        len(seat.strategies),
        _investments_key(seat.investments),
        seat.skip_next,
        seat.match_total,
    )
    made = _PLAYERS_BY_VALUE.get(key)
    if made is None:
        made = _remember(_PLAYERS_BY_VALUE, key, _player(index, seat))
    return made


def _players(seats: tuple[SeatState, ...]) -> tuple[PlayerView, ...]:
    """Public views of every seat, rebuilding only seats that changed.

    Within one process, states share unchanged seat objects between steps, so
    the first memo is keyed by identity; it holds the seat object itself, so
    an id cannot be reused while it is remembered. Behind it, a memo by value
    serves states that were read back from JSON. This runs for every view of
    every step (a hot path).
    """
    made: list[PlayerView] = []
    for index, seat in enumerate(seats):
        entry = _PLAYERS_SEEN.get(id(seat))
        if entry is None or entry[0] is not seat or entry[1].seat != index:
            entry = _remember(_PLAYERS_SEEN, id(seat), (seat, _player_by_value(index, seat)))
        made.append(entry[1])
    return tuple(made)


def _own_investments(investments: tuple[Investment, ...]) -> tuple[InvestmentView, ...]:
    """The seat's own investments with their cards, memoised like :func:`_players`."""
    if not investments:
        return ()
    entry = _OWN_SEEN.get(id(investments))
    if entry is None or entry[0] is not investments:
        key = _investments_key(investments)
        own = _OWN_BY_VALUE.get(key)
        if own is None:
            own = _remember(_OWN_BY_VALUE, key, tuple(_investment(inv, True) for inv in investments))
        entry = _remember(_OWN_SEEN, id(investments), (investments, own))
    return entry[1]


def _pile(state: MarketFortuneState, pile: tuple[str, ...], seat: int | None) -> tuple[str, ...]:
    if not state.locked:
        return pile
    hidden = {card for card, owner in state.locked if owner != seat}
    return tuple(FACE_DOWN if card in hidden else card for card in pile)


def view(state: MarketFortuneState, seat: int | None) -> MarketFortuneView:
    """The part of ``state`` that ``seat`` may see (11.1, 11.2)."""
    players = _players(state.seats)
    attack = None
    if state.attack is not None:
        a = state.attack
        attack = _raw(
            AttackView,
            {
                "strategy": cards.kind_of(a.card).key,
                "name": cards.kind_of(a.card).name,
                "attacker": a.attacker,
                "source": a.source,
                "defender": a.defender,
                "queue": a.queue,
            },
        )
    decision = None
    if state.tasks:
        task = state.tasks[0]
        decision = _raw(
            DecisionView,
            {
                "seat": task.seat,
                "step": task.step,
                "count": task.count,
                "section": task.section,
                "other": task.other,
                "forbid": task.forbid if task.seat == seat else None,
            },
        )
    hand: tuple[str, ...] = ()
    strategies: tuple[str, ...] = ()
    investments: tuple[InvestmentView, ...] = ()
    revealed: Reveal | None = None
    if seat is not None:
        mine = state.seats[seat]
        hand, strategies, revealed = mine.hand, mine.strategies, mine.revealed
        investments = _own_investments(mine.investments)
    return _raw(
        MarketFortuneView,
        {
            "game": "market-fortune",
            "seat": seat,
            "mode": state.config.mode,
            "variants": state.config.variants,
            "game_number": state.game_number,
            "turn": state.turn,
            "active": state.active,
            "stage": state.stage,
            "to_act": tuple(to_act(state)),
            "hand": hand,
            "strategies": strategies,
            "investments": investments,
            "revealed": revealed,
            "players": players,
            "stock_pile": _pile(state, state.stock_pile, seat),
            "return_pile": _pile(state, state.return_pile, seat),
            "strategy_pile": state.strategy_pile,
            "stock_deck": len(state.stock_deck),
            "return_deck": len(state.return_deck),
            "strategy_deck": len(state.strategy_deck),
            "attack": attack,
            "decision": decision,
            "extra_turn": state.extra_turn,
            "roll_off": state.roll_off,
            "last_game": state.last_game,
            "result": state.result,
        },
    )


for _model in (InvestmentView, PlayerView, AttackView, DecisionView, MarketFortuneView):
    _ALL_FIELDS[_model] = set(_model.model_fields)


def _names(ids: tuple[str, ...]) -> str:
    return ", ".join(f"{cards.card_name(c)} [{c}]" for c in ids) if ids else "none"


_STAGE_TEXT: dict[str, str] = {
    "main": "take one main action: Build, Risk or Dominate (you may optimise first)",
    "red": "play one red Strategy or end your turn",
    "victory": "you formed a 4th investment: optimise once or declare to count",
    "between": "the game ended; deal the next game of the match",
}


def summary(state: MarketFortuneState, seat: int | None) -> str:
    """Plain text of ``view(state, seat)`` for language models."""
    seen = view(state, seat)
    lines = [
        f"Market Fortune, {seen.mode} mode, game {seen.game_number}, turn {seen.turn}. Seat {seen.active} has the turn.",
    ]
    if seat is not None:
        lines.append(f"You are seat {seat}.")
        lines.append(f"Your building hand ({len(seen.hand)}): {_names(seen.hand)}.")
        lines.append(f"Your Strategies ({len(seen.strategies)}): {_names(seen.strategies)}.")
        for key in dict.fromkeys(cards.kind_of(c).key for c in seen.strategies):
            kind = cards.strategy(key)
            lines.append(f"  {kind.name} ({kind.colour}, {kind.section}): {kind.effect}")
        for number, inv in enumerate(seen.investments, 1):
            assert inv.stock is not None and inv.ret is not None
            extras = (" face up" if inv.face_up else " face down") + (" marked +2M" if inv.marked else "")
            lines.append(f"Your investment {number}: {_names((inv.stock, inv.ret))} = {inv.value}M,{extras}.")
        if seen.revealed is not None:
            lines.append(f"Seat {seen.revealed.source} showed you ({seen.revealed.section}): {_names(seen.revealed.cards)}.")
    for player in seen.players:
        if player.seat == seat:
            continue
        up = [f"{inv.stock}+{inv.ret}" for inv in player.investments if inv.face_up]
        extra = f" (face up: {', '.join(up)})" if up else ""
        lines.append(
            f"Seat {player.seat}: {player.hand_count} building cards, {player.strategy_count} Strategies, "
            f"{player.investment_count} investments{extra}" + (", loses its next turn" if player.skip_next else "") + "."
        )
    if seen.mode == "championship":
        lines.append("Match totals: " + ", ".join(f"seat {p.seat} {p.match_total}M" for p in seen.players) + ".")
    lines.append(f"Stock discard pile (top last): {', '.join(seen.stock_pile) or 'empty'}.")
    lines.append(f"Return discard pile (top last): {', '.join(seen.return_pile) or 'empty'}.")
    lines.append(f"Decks: {seen.stock_deck} Stocks, {seen.return_deck} Returns, {seen.strategy_deck} Strategies.")
    if seen.result is not None:
        lines.append(f"The table is over: {seen.result.text}")
        return "\n".join(lines)
    if seen.attack is not None and seen.attack.defender is not None:
        lines.append(f"Attack: {seen.attack.name} from seat {seen.attack.source} on seat {seen.attack.defender}.")
    acting = seen.to_act[0] if seen.to_act else None
    if seat is None or acting != seat:
        lines.append(f"Waiting for seat {acting}.")
    elif seen.decision is not None:
        d = seen.decision
        lines.append(f"You must decide now: {d.step} ({d.count} left, rule {d.section}).")
    elif seen.attack is not None and seen.attack.defender == seat:
        lines.append("You are attacked: defend with a blue Strategy or decline (7.2).")
    else:
        lines.append(f"You must decide now: {_STAGE_TEXT.get(seen.stage, seen.stage)}.")
    return "\n".join(lines)
