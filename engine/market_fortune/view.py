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
from engine.market_fortune.scoring import count
from engine.market_fortune.state import (
    Investment,
    MarketFortuneState,
    Reveal,
    SeatState,
    Stage,
    TaskStep,
)
from engine.text import counted

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
    momentum: str | None = None
    """The Strategy Momentum gave you this turn (3.5): not counted at this turn's count (8.1)."""
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


T = TypeVar("T")


def _investment(inv: Investment, visible: bool) -> InvestmentView:
    if visible or inv.face_up:
        return InvestmentView(
            face_up=inv.face_up,
            marked=inv.marked,
            stock=inv.stock,
            ret=inv.ret,
            innovation=inv.innovation,
            value=cards.card_value(inv.stock) + cards.card_value(inv.ret),
        )
    return _FACE_DOWN_MARKED if inv.marked else _FACE_DOWN_PLAIN


# Face-down investments all look alike to others (only the mark shows): share two values.
_FACE_DOWN_PLAIN = InvestmentView(face_up=False, marked=False)
_FACE_DOWN_MARKED = InvestmentView(face_up=False, marked=True)

_MEMO_LIMIT = 8192
"""Entries a view memo holds before it starts afresh (the memos only save time).

The memos are keyed by value, never by object identity: the gateway reads
every state back from JSON, so equal values (not the same objects) recur from
one action to the next. Keys are small tuples of what the view shows (counts,
flags, card ids), cheap to build and to hash.
"""
_PLAYERS: dict[tuple[object, ...], PlayerView] = {}
_OWN: dict[tuple[object, ...], tuple[InvestmentView, ...]] = {}
_DECISIONS: dict[tuple[object, ...], DecisionView] = {}


def _remember(memo: dict[Any, T], key: Any, made: T) -> T:
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = made
    return made


def _player(key: tuple[Any, ...], investments: tuple[Investment, ...]) -> PlayerView:
    """The public view of one seat, remembered under ``key`` (see :func:`_players`)."""
    index, hand_count, strategy_count, skip_next, match_total, _ = key
    return _remember(
        _PLAYERS,
        key,
        PlayerView(
            seat=index,
            hand_count=hand_count,
            strategy_count=strategy_count,
            investment_count=len(investments),
            investments=tuple([_investment(inv, False) for inv in investments]),
            skip_next=skip_next,
            match_total=match_total,
        ),
    )


_SEAT_FACTS = attrgetter("hand", "strategies", "investments", "skip_next", "match_total")
_INVESTMENT_FACTS = attrgetter("stock", "ret", "innovation", "marked", "face_up")
"""An investment's facts, in one C call."""
_TASK_FACTS = attrgetter("seat", "step", "section", "count", "other", "forbid")
"""What a decision shows of a task (not ``locked``), in one C call."""


def _players(seats: tuple[SeatState, ...]) -> tuple[PlayerView, ...]:
    """Public views of every seat (11.1), each remembered under its key.

    A seat's key holds its counts, its flags and what others see of its
    investments. Others see only the mark of a face-down investment
    (:func:`_investment`), so a face-down investment enters the key as its
    mark alone: a bool, with no tuple made for it. A face-up one (after a
    failed count, 8.2) enters with every fact, cards included, as a tuple,
    which never equals a bool, so a key never merges two different views.

    An action changes one or two seats, so the others' keys find their views.
    The seats are looked up one by one, not as a whole table: a table key
    would be hashed and compared in full on every view and, on a miss (half
    the time), hashed again to be remembered, for about what the few per-seat
    lookups it saves cost.
    """
    players = []
    for index, (hand, strategies, investments, skip_next, match_total) in enumerate(map(_SEAT_FACTS, seats)):
        key = (
            index,
            len(hand),
            len(strategies),
            skip_next,
            match_total,
            # A seat without investments (often) makes no list and no tuple.
            tuple([_INVESTMENT_FACTS(inv) if inv.face_up else inv.marked for inv in investments])
            if investments
            else (),
        )
        players.append(_PLAYERS.get(key) or _player(key, investments))
    return tuple(players)


def _own_investments(key: tuple[object, ...], investments: tuple[Investment, ...]) -> tuple[InvestmentView, ...]:
    """The seat's own investments with their cards, remembered under their facts ``key``."""
    return _remember(_OWN, key, tuple([_investment(inv, True) for inv in investments]))


def _pile(state: MarketFortuneState, pile: tuple[str, ...], seat: int | None) -> tuple[str, ...]:
    if not state.locked:
        return pile
    hidden = {card for card, owner in state.locked if owner != seat}
    return tuple(FACE_DOWN if card in hidden else card for card in pile)


_last_view: tuple[MarketFortuneState | None, int | None, MarketFortuneView | None] = (None, None, None)
"""The last view made, with the very state it was made of. An observation asks
for a seat's view and then for its summary of the same state object, and the
summary is made from the view; the state is held here, so the identity check
cannot take a new state for one that was freed. One tuple, swapped whole."""


def view(state: MarketFortuneState, seat: int | None) -> MarketFortuneView:
    """The part of ``state`` that ``seat`` may see (11.1, 11.2).

    Built after every action, so it reads the state's fields once and looks
    the per-seat parts up by value (see :func:`_players`); asked again for the
    same state object and seat (its summary), the view just made.
    """
    global _last_view
    last_state, last_seat, last = _last_view
    if last_state is state and last_seat == seat and last is not None:
        return last
    made = _view(state, seat)
    _last_view = (state, seat, made)
    return made


def _view(state: MarketFortuneState, seat: int | None) -> MarketFortuneView:
    values = state.__dict__
    seats = values["seats"]
    stage = values["stage"]
    tasks = values["tasks"]
    attack = values["attack"]
    # to_act, inlined: one seat decides, a task's seat first, then a defender (7.2).
    if stage == "over":
        acting: tuple[int, ...] = ()
    elif tasks:
        acting = (tasks[0].seat,)
    elif attack is not None and attack.defender is not None:
        acting = (attack.defender,)
    elif stage == "between":
        opener = values["next_opener"]
        acting = (opener if opener is not None else 0,)
    else:
        acting = (values["active"],)
    attack_view = None
    if attack is not None:
        kind = cards.kind_of(attack.card)
        attack_view = AttackView(
            strategy=kind.key,
            name=kind.name,
            attacker=attack.attacker,
            source=attack.source,
            defender=attack.defender,
            queue=attack.queue,
        )
    decision = None
    if tasks:
        task_seat, step, section, count, other, forbid = _TASK_FACTS(tasks[0])
        # The forbidden card is shown to the task's own seat only.
        if task_seat != seat:
            forbid = None
        decision_key = (task_seat, step, section, count, other, forbid)
        decision = _DECISIONS.get(decision_key)
        if decision is None:
            decision = _remember(
                _DECISIONS,
                decision_key,
                DecisionView(
                    seat=task_seat,
                    step=step,
                    count=count,
                    section=section,
                    other=other,
                    forbid=forbid,
                ),
            )
    hand: tuple[str, ...] = ()
    strategies: tuple[str, ...] = ()
    investments: tuple[InvestmentView, ...] = ()
    revealed: Reveal | None = None
    momentum: str | None = None
    if seat is not None:
        if seat == values["active"]:
            momentum = values["momentum"]
        mine = seats[seat]
        hand, strategies, revealed = mine.hand, mine.strategies, mine.revealed
        own_investments = mine.investments
        if own_investments:
            # The seat sees its own cards: its investments are keyed by every fact.
            own = tuple(map(_INVESTMENT_FACTS, own_investments))
            investments = _OWN.get(own) or _own_investments(own, own_investments)
    config = values["config"].__dict__
    stock_pile = values["stock_pile"]
    return_pile = values["return_pile"]
    if values["locked"]:
        stock_pile = _pile(state, stock_pile, seat)
        return_pile = _pile(state, return_pile, seat)
    # Validated from a dict rather than by the keyword constructor: for a model
    # of this many fields pydantic then skips packing the keywords and writing
    # into an instance made beforehand, about a fifth of the cost. The dict holds
    # exactly the model's fields, so the check for unknown members that
    # ``extra="forbid"`` makes is skipped here (``extra="ignore"``): it could find
    # nothing, and costs about a sixth of the validation. A view read from outside
    # (the SDK's ``typed_view``) is still held to the model's ``forbid``.
    return MarketFortuneView.model_validate(
        {
            "game": "market-fortune",
            "seat": seat,
            "mode": config["mode"],
            "variants": config["variants"],
            "game_number": values["game_number"],
            "turn": values["turn"],
            "active": values["active"],
            "stage": stage,
            "to_act": acting,
            "hand": hand,
            "strategies": strategies,
            "investments": investments,
            "revealed": revealed,
            "momentum": momentum,
            "players": _players(seats),
            "stock_pile": stock_pile,
            "return_pile": return_pile,
            "strategy_pile": values["strategy_pile"],
            "stock_deck": len(values["stock_deck"]),
            "return_deck": len(values["return_deck"]),
            "strategy_deck": len(values["strategy_deck"]),
            "attack": attack_view,
            "decision": decision,
            "extra_turn": values["extra_turn"],
            "roll_off": values["roll_off"],
            "last_game": values["last_game"],
            "result": values["result"],
        },
        extra="ignore",
    )


_LABELS: dict[str, str] = {card: f"{cards.card_name(card)} [{card}]" for card in cards.ALL_CARD_IDS}
"""Each card as the summary names it, ``Energy Stock 3M [S.energy.3]``: made once, not
per line (a summary names about twenty cards)."""


def _names(ids: tuple[str, ...]) -> str:
    return ", ".join(map(_LABELS.__getitem__, ids)) if ids else "none"


_STAGE_TEXT: dict[str, str] = {
    "main": "take one main action: Build, Risk or Dominate (you may optimise first)",
    "red": "play one red Strategy or end your turn",
    "victory": "you formed a 4th investment: optimise if you wish, then declare to count or hold back an investment",
    "between": "the game ended; deal the next game of the match",
}


def _innovation(inv: InvestmentView) -> str:
    """An attached Innovation card (12.22), as the investment's line names it."""
    return f", with {_LABELS[inv.innovation]} attached" if inv.innovation else ""


def _when(revealed: Reveal, seen: MarketFortuneView) -> str:
    """When a reveal happened: its turn (and game, in a match), for the seat to judge
    how stale what it saw may be."""
    if revealed.turn is None:
        return ""
    game = (f" of game {revealed.game_number}"
            if revealed.game_number is not None and revealed.game_number != seen.game_number else "")
    return f", turn {revealed.turn}{game}"


def _target(mode: str, match_target: int) -> str:
    """What wins in this mode (8.3, 9.1-9.3)."""
    if mode == "family":
        return f"Target (family, 8.3): the first seat to form {cards.INVESTMENTS_TO_WIN} investments wins."
    fortune = (f"{cards.INVESTMENTS_TO_WIN} investments and a count of "
               f"{cards.VICTORY_VALUE}M or more at the count (8.1, 8.2)")
    if mode == "championship":
        return (f"Target (championship, 9.3): a game is won with {fortune}; the winner adds its "
                f"count to its match total, and a match total of {match_target}M wins the match.")
    return f"Target (fortune, 9.2): {fortune}."


def _standing(state: MarketFortuneState, seat: int) -> str:
    """The mode's target and where the seat stands: its investments and the count it
    would make now (8.1), all of which it can see (its own cards and Strategies)."""
    mode = state.config.mode
    mine = state.seats[seat]
    target = _target(mode, state.config.match_target)
    formed = f"you have {counted(len(mine.investments), 'investment')} of {cards.INVESTMENTS_TO_WIN}"
    if mode == "family":
        return f"{target} Now {formed}."
    now = count(mine)
    standing = (f"{target} Now {formed}; counted now they would make {now.total}M (cards {now.cards}M, "
                f"Compound Interest {now.compound}M, greens {now.greens}M, yellows {now.yellows}M)")
    if mode == "championship":
        standing += f"; your match total is {mine.match_total}M"
    return standing + "."


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
            lines.append(f"Your investment {number}: {_names((inv.stock, inv.ret))} = {inv.value}M,{extras}{_innovation(inv)}.")
        if seen.revealed is not None:
            lines.append(f"Seat {seen.revealed.source} showed you ({seen.revealed.section}{_when(seen.revealed, seen)}): {_names(seen.revealed.cards)}.")
        lines.append(_standing(state, seat))
    else:
        lines.append(_target(seen.mode, state.config.match_target))
    for player in seen.players:
        if player.seat == seat:
            continue
        up = [f"{inv.stock}+{inv.ret}{_innovation(inv)}" for inv in player.investments if inv.face_up]
        extra = f" (face up: {', '.join(up)})" if up else ""
        lines.append(
            f"Seat {player.seat}: {counted(player.hand_count, 'building card')}, "
            f"{counted(player.strategy_count, 'Strategy', 'Strategies')}, "
            f"{counted(player.investment_count, 'investment')}{extra}" + (", loses its next turn" if player.skip_next else "") + "."
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
