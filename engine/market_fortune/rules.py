"""The Market Fortune rules: setup, the turn, the decisions owed, and the end.

Public functions follow :class:`engine.core.Game`. Each rule's function cites
its section of engine/market_fortune/rulebook.md, and every :class:`IllegalAction` names
the section it enforces.
"""

from __future__ import annotations

from typing import Any

from engine import chance
from engine.core import (
    Event,
    IllegalAction,
    InvalidConfig,
    NotYourTurn,
    Outcome,
    TableConfig,
)
from engine.market_fortune import cards
from engine.market_fortune.actions import (
    Build,
    Declare,
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
    defend,
    hit,
    play_red,
    take_random,
)
from engine.market_fortune.legal import (
    default_action,
    explain_illegal,
    is_listed,
    legal_actions,
    task_possible,
    to_act,
)
from engine.market_fortune.moves import (
    discard,
    draw,
    draw_strategy,
    event,
    event_of,
    next_chance,
    return_investment,
    roll_plus,
    set_seat,
    task_of,
    with_seat,
)
from engine.market_fortune.scoring import Count, count
from engine.market_fortune.state import (
    Investment,
    MarketFortuneConfig,
    MarketFortuneState,
    SeatState,
    Task,
    evolve,
)
from engine.text import counted

__all__ = [
    "VARIANTS",
    "apply",
    "default_action",
    "legal_actions",
    "new_table",
    "outcome",
    "to_act",
]

VARIANTS: dict[str, str] = {
    "momentum_red": "Spanish V7 reading of Momentum (3.5, 13.1): after a successful Risk you may play one red at once.",
    "forced_count": "Spanish V7 reading of the victory (8.1, 13.2): a 4th investment is always counted; nobody holds back.",
    "open_championship": (
        "Spanish V7 Championship (9.3, 13.3): every game opens with a roll-off, and discards caused by a Strategy lie face up."
    ),
}
"""The Spanish V7 readings a table may switch on (13); all off by default."""


# -- setup (section 2) -------------------------------------------------------------


def _config(config: TableConfig) -> MarketFortuneConfig:
    """Validate a table configuration (2.1, 9, 13)."""
    if not isinstance(config, MarketFortuneConfig):
        try:
            config = MarketFortuneConfig.model_validate(config.model_dump())
        except ValueError as error:
            raise InvalidConfig(f"not a Market Fortune configuration: {error}", rule="2.1") from None
    if not cards.MIN_SEATS <= config.seats <= cards.MAX_SEATS:
        raise InvalidConfig(f"Market Fortune seats {cards.MIN_SEATS} to {cards.MAX_SEATS}", rule="2.1")
    unknown = sorted(set(config.variants) - set(VARIANTS))
    if unknown:
        raise InvalidConfig(f"unknown variant(s): {', '.join(unknown)}", rule="13")
    return config


def _roll_off(state: MarketFortuneState) -> MarketFortuneState:
    """The opening roll-off (2.2): a lone "-" opens; several "-" roll again; none: all again."""
    contenders = list(range(len(state.seats)))
    lines: list[str] = []
    opener: int | None = None
    for _ in range(cards.ROLL_OFF_LIMIT):
        state, counter = next_chance(state)
        minus = []
        faces = []
        for seat in contenders:
            plus = chance.draw_below(state.seed, counter, cards.DIE_FACES, index=seat) < cards.DIE_PLUS_FACES
            faces.append(f"seat {seat} {'+' if plus else '-'}")
            if not plus:
                minus.append(seat)
        lines.append(", ".join(faces))
        if len(minus) == 1:
            opener = minus[0]
            break
        if minus:
            contenders = minus
    if opener is None:
        opener = min(contenders)
        lines.append(f"no single '-' after {cards.ROLL_OFF_LIMIT} rounds: seat {opener} opens")
    return evolve(state, {"active": opener, "roll_off": tuple(lines)})


def _deal(state: MarketFortuneState, opener: int | None) -> MarketFortuneState:
    """Shuffle the three decks and deal 4 Stocks + 4 Returns to each seat (2.1)."""
    state, counter = next_chance(state)
    stocks = chance.shuffle(state.seed, counter, cards.STOCK_IDS)
    state, counter = next_chance(state)
    returns = chance.shuffle(state.seed, counter, cards.RETURN_IDS)
    state, counter = next_chance(state)
    strategies = chance.shuffle(state.seed, counter, cards.STRATEGY_IDS)
    seats = []
    for seat in state.seats:
        hand = tuple(stocks[-cards.STOCKS_DEALT :] + returns[-cards.RETURNS_DEALT :])
        del stocks[-cards.STOCKS_DEALT :]
        del returns[-cards.RETURNS_DEALT :]
        seats.append(SeatState(hand=hand, match_total=seat.match_total))
    state = evolve(state, {
        "stock_deck": tuple(stocks),
        "return_deck": tuple(returns),
        "strategy_deck": tuple(strategies),
        "stock_pile": (),
        "return_pile": (),
        "strategy_pile": (),
        "locked": (),
        "seats": tuple(seats),
        "stage": "main",
        "turn": 1,
        "momentum": None,
        "extra_turn": False,
        "attack": None,
        "tasks": (),
        "next_opener": None,
    })
    if opener is None:
        return _roll_off(state)
    return evolve(state, {"active": opener, "roll_off": (f"seat {opener} won the previous game and opens (2.3)",)})


def new_table(config: TableConfig, seed: int) -> MarketFortuneState:
    """Deal a new table (2.1, 2.2).

    :raises InvalidConfig: mode, seat count or variant not playable.
    """
    checked = _config(config)
    state = MarketFortuneState(
        config=checked,
        seed=seed,
        seats=tuple(SeatState() for _ in range(checked.seats)),
    )
    return _deal(state, None)


# -- who decides what (sections 3, 7, 8) ------------------------------------------


# -- applying an action --------------------------------------------------------------


def _index_of(seat: SeatState, stock: str) -> int:
    for index, inv in enumerate(seat.investments):
        if inv.stock == stock:
            return index
    raise AssertionError("validated investment missing")


def _tasks_after_one(state: MarketFortuneState) -> tuple[Task, ...]:
    """The task queue once the first task has been answered once."""
    task = state.tasks[0]
    if task.count > 1:
        return (_one_less(task), *state.tasks[1:])
    return state.tasks[1:]


def _one_less(task: Task) -> Task:
    """``task`` with one decision fewer to make (shared through :func:`task_of`)."""
    return task_of(
        task.seat,
        task.step,
        task.section,
        count=task.count - 1,
        other=task.other,
        forbid=task.forbid,
        locked=task.locked,
    )


def _form(
    state: MarketFortuneState, seat: int, stock: str, ret: str, innovation: str | None, events: list[Event], how: str
) -> MarketFortuneState:
    """Lay a face-down investment (5.1) and draw the Momentum Strategy (3.5)."""
    owner = state.seats[seat]
    hand = list(owner.hand)
    hand.remove(stock)
    hand.remove(ret)
    strategies = owner.strategies
    if innovation is not None:
        strategies = tuple(c for c in strategies if c != innovation)
    investment = Investment(stock=stock, ret=ret, innovation=innovation)
    state = set_seat(state, seat, hand=tuple(hand), strategies=strategies, investments=(*owner.investments, investment))
    size = len(owner.investments) + 1
    events.append(event("invest", f"Seat {seat} formed an investment face down ({how}); it now has {size}.", seat=seat, investments=size))
    formed = [stock, ret] + ([innovation] if innovation else [])
    events.append(event("invest", f"You formed {cards.card_name(stock)} + {cards.card_name(ret)} ({how}).", (seat,), seat=seat, cards=formed))
    state, drawn, moved = draw_strategy(state, seat, events, "Momentum, 3.5")
    if drawn is None:
        return state
    # 3.5: kept for a later turn, and not used when winning (8.1).
    moved["momentum"] = drawn
    return evolve(state, moved)


def _after_forming(
    state: MarketFortuneState, seat: int, events: list[Event], via_risk: bool, changes: dict[str, object]
) -> MarketFortuneState:
    """Family wins at a 4th investment (8.3); other modes open the victory window (8.1).

    The next stage is left in ``changes`` (see :func:`_apply_action`)."""
    if len(state.seats[seat].investments) >= cards.INVESTMENTS_TO_WIN:
        if state.config.mode == "family":
            return _finish(state, (seat,), "victory", events, f"Seat {seat} formed its 4th investment and wins (8.3).",
                           decided_by=("investments",))
        events.append(event("victory_window", f"Seat {seat} formed its 4th investment: victory window (8.1).", seat=seat))
        changes["stage"] = "victory"
    elif via_risk:
        red = "momentum_red" in state.config.variants
        changes["stage"] = "red" if red else "ending"
    return state


def _count(state: MarketFortuneState, seat: int) -> Count:
    """The seat's count (8.1), leaving out the Strategy Momentum gave it this turn (3.5)."""
    return count(state.seats[seat], state.momentum if seat == state.active else None)


def _hold_back(state: MarketFortuneState, seat: int, stock: str, events: list[Event]) -> MarketFortuneState:
    """Not declaring in the victory window (8.1): one investment goes back to hand, unseen (8.2)."""
    events.append(event("hold_back", f"Seat {seat} does not declare victory and takes an investment back into its hand (8.1).", seat=seat))
    state = return_investment(state, seat, _index_of(state.seats[seat], stock), events, "rule 8.1")
    return evolve(state, {"stage": "ending"})


def _declare(state: MarketFortuneState, seat: int, events: list[Event]) -> MarketFortuneState:
    """The count (8.1): flip everything; 25M or more wins (8.2), else return one."""
    owner = state.seats[seat]
    flipped = tuple(evolve(inv, {"face_up": True}) for inv in owner.investments)
    state = set_seat(state, seat, investments=flipped)
    result = _count(state, seat)
    shown = [[inv.stock, inv.ret] for inv in flipped]
    events.append(
        event(
            "count",
            f"Seat {seat} flips its investments and counts {result.total}M "
            f"(cards {result.cards}M, Compound Interest {result.compound}M, greens {result.greens}M, yellows {result.yellows}M).",
            seat=seat,
            investments=shown,
            total=result.total,
            greens=list(result.greens_used),
            yellows=list(result.yellows_used),
        )
    )
    if result.total >= cards.VICTORY_VALUE:
        return _finish(state, (seat,), "victory", events, f"Seat {seat} counts {result.total}M and wins (8.1, 9.2).",
                       value=result.total, decided_by=("count",))
    events.append(event("count_failed", f"Seat {seat} is short of {cards.VICTORY_VALUE}M and must return an investment (8.2).", seat=seat))
    task = Task(seat=seat, step="return", section="8.2")
    return evolve(state, {"stage": "ending", "tasks": (task, *state.tasks)})


def _scores(state: MarketFortuneState) -> tuple[float, ...]:
    if state.config.mode == "championship":
        return tuple(float(seat.match_total) for seat in state.seats)
    if state.config.mode == "family":
        return tuple(float(len(seat.investments)) for seat in state.seats)
    return tuple(float(_count(state, seat).total) for seat in range(len(state.seats)))


def _finish(
    state: MarketFortuneState,
    winners: tuple[int, ...],
    reason: str,
    events: list[Event],
    text: str,
    value: int = 0,
    decided_by: tuple[str, ...] = (),
) -> MarketFortuneState:
    """End the game; in Championship add the count and go on unless the match is decided (9.3)."""
    state = evolve(state, {"tasks": (), "attack": None})
    events.append(event("game_end", text, winners=list(winners), reason=reason))
    if state.config.mode != "championship":
        result = Outcome(winners=winners, reason=reason, scores=_scores(state), text=text, decided_by=decided_by)
        return evolve(state, {"stage": "over", "result": result})
    if reason == "victory":
        for seat in winners:
            state = set_seat(state, seat, match_total=state.seats[seat].match_total + value)
    totals = [seat.match_total for seat in state.seats]
    game = Outcome(winners=winners, reason=reason, scores=tuple(float(t) for t in totals), text=text,
                   decided_by=decided_by)
    best = max(totals)
    champions = tuple(i for i, t in enumerate(totals) if t == best)
    if best >= state.config.match_target:
        done = f"Seat(s) {', '.join(map(str, champions))} reach {best}M and win the match (9.3)."
        return _match_over(state, game, champions, "victory", done, events)
    if state.game_number >= state.config.match_game_limit:
        done = f"The match cap of {state.config.match_game_limit} games is reached; highest total {best}M wins (9.3)."
        return _match_over(state, game, champions, "match_limit", done, events)
    # 2.3: the winner opens the next game; a game ended by the turn limit has none (9.3).
    opener = winners[0] if reason == "victory" and "open_championship" not in state.config.variants else None
    return evolve(state, {"stage": "between", "last_game": game, "next_opener": opener})


def _match_over(
    state: MarketFortuneState, game: Outcome, champions: tuple[int, ...], reason: str, text: str,
    events: list[Event],
) -> MarketFortuneState:
    """End a Championship match (9.3): the highest match total wins, by ``reason``
    (``victory``: the target reached; ``match_limit``: the game cap)."""
    events.append(event("match_end", text, winners=list(champions), reason=reason))
    result = Outcome(winners=champions, reason=reason, scores=game.scores, text=text, decided_by=("match_total",))
    return evolve(state, {"stage": "over", "last_game": game, "result": result})


def _turn_limit(state: MarketFortuneState, events: list[Event]) -> MarketFortuneState:
    """3.7: most investments, then the highest count, win; a match game adds nothing (9.3)."""
    ranks = [(len(seat.investments), _count(state, index).total) for index, seat in enumerate(state.seats)]
    best = max(ranks)
    winners = tuple(i for i, rank in enumerate(ranks) if rank == best)
    leaders = [i for i, rank in enumerate(ranks) if rank[0] == best[0]]
    text = f"Turn limit of {counted(state.config.turn_limit_per_seat, 'turn')} per seat reached (3.7). "
    if len(leaders) == 1:
        text += f"Seat {winners[0]} leads alone with {counted(best[0], 'investment')} and wins."
        decided_by: tuple[str, ...] = ("investments",)
    else:
        counts = ", ".join(f"seat {i} {ranks[i][1]}M" for i in leaders)
        text += (f"Seats {', '.join(map(str, leaders))} tie for the lead with {counted(best[0], 'investment')}; "
                 f"the tie-break is the count (8.1): {counts}. ")
        text += (f"Seat {winners[0]} wins." if len(winners) == 1
                 else f"Seats {', '.join(map(str, winners))} tie on the count too and share the win.")
        decided_by = ("investments", "count")
    return _finish(state, winners, "turn_limit", events, text, decided_by=decided_by)


def _pass_turn(
    state: MarketFortuneState, values: dict[str, Any], changes: dict[str, object], events: list[Event]
) -> MarketFortuneState:
    """Pass the turn clockwise (2.2), with ``changes`` made in the same copy: to the same
    seat again after a Shrewd Move, past a seat that loses its turn to a Regulatory Block
    (3.6), or to the end once the turn limit is reached. ``values`` are the state's fields."""
    seats = values["seats"]
    n = len(seats)
    active = values["active"]
    seat = active if values["extra_turn"] else (active + 1) % n
    limit = values["config"].__dict__["turn_limit_per_seat"] * n
    turn = values["turn"]
    while True:
        if turn >= limit:
            changes["turn"] = turn
            return _turn_limit(evolve(state, changes), events)
        turn += 1
        if not seats[seat].skip_next:
            break
        state = set_seat(evolve(state, changes) if changes else state, seat, skip_next=False)
        changes, seats = {}, state.seats
        events.append(event("skip", f"Seat {seat} loses this turn (Regulatory Block, 3.6).", seat=seat))
        seat = (seat + 1) % n
    changes.update(active=seat, turn=turn, stage="main", momentum=None, extra_turn=False)
    events.append(event_of("turn", f"Turn {turn}: seat {seat} to play.", None, {"seat": seat, "turn": turn}))
    return evolve(state, changes)


def _advance(state: MarketFortuneState, changes: dict[str, object], events: list[Event]) -> MarketFortuneState:
    """Run the automatic steps until some seat owes a decision (or the table ends).

    ``changes`` are fields the action changed that ``state`` does not hold
    yet. The automatic steps add theirs, and the state is copied once: most
    actions end a turn, whose close then shares the action's copy. Only a
    task owed makes the copy first, as whether it can be answered (4.3) is
    read from the state.
    """
    while True:
        values = {**state.__dict__, **changes} if changes else state.__dict__
        stage = values["stage"]
        if stage in ("over", "between"):
            break
        tasks = values["tasks"]
        if tasks:
            if changes:
                state, changes = evolve(state, changes), {}
            if task_possible(state, tasks[0]):
                break
            changes["tasks"] = tasks[1:]
            continue
        attack = values["attack"]
        if attack is not None:
            if attack.defender is not None:
                break
            if attack.queue:
                target = attack.queue[0]
                changes["attack"] = evolve(attack, {"source": attack.attacker, "defender": target, "queue": attack.queue[1:]})
                events.append(event("defence_window", f"Seat {target} may answer {cards.kind_of(attack.card).name} from seat {attack.attacker} (7.2).", seat=target, source=attack.attacker))
                break
            changes["attack"] = None
            return _close(state, values, changes, events)
        if stage in ("resolving", "ending"):
            return _close(state, values, changes, events)
        break
    return evolve(state, changes) if changes else state


def _close(
    state: MarketFortuneState, values: dict[str, Any], changes: dict[str, object], events: list[Event]
) -> MarketFortuneState:
    """The rest of :func:`_advance` once no task is owed and no attack waits, in one copy.

    ``values`` are the state's fields with ``changes``, which are made in the
    same copy as what follows: a resolved red closes the turn (``resolving``
    becomes ``ending``), and a closing turn owes the 8-card discard (4.1) or
    passes (2.2, 3.6). What :func:`_advance` would check after each of these
    holds: a discard owed with a card in hand is possible, a new turn waits
    on its seat.
    """
    stage = values["stage"]
    if stage == "resolving":
        changes["stage"] = stage = "ending"
    if stage != "ending":
        return evolve(state, changes) if changes else state
    return _close_turn(state, values, changes, events)


def _close_turn(
    state: MarketFortuneState, values: dict[str, Any], changes: dict[str, object], events: list[Event]
) -> MarketFortuneState:
    """The active seat's turn closes (4.1), with ``changes`` made in the same copy: it owes
    the 8-card discard while over the limit with a card in hand, else the turn passes
    (2.2, 3.6)."""
    active = values["active"]
    seat = values["seats"][active]
    excess = seat.building_total() - cards.BUILDING_TOTAL
    if excess > 0 and seat.hand:
        changes["tasks"] = (task_of(active, "discard", "4.1", count=min(excess, len(seat.hand))),)
        return evolve(state, changes)
    return _pass_turn(state, values, changes, events)


def _apply_task(
    state: MarketFortuneState, seat: int, action: MarketFortuneAction, events: list[Event], changes: dict[str, object]
) -> MarketFortuneState:
    task = state.tasks[0]
    why = f"rule {task.section}"
    if isinstance(action, Discard):
        # The most frequent decision: its changes join the step's one copy (see _advance).
        changes["tasks"] = _tasks_after_one(state)
        changes.update(discard(state, seat, action.card, events, locked=task.locked, why=why))
        return state
    state = evolve(state, {"tasks": _tasks_after_one(state)})
    if isinstance(action, Draw):
        state, moved = draw(state, seat, action.source, events)
        changes.update(moved)
        return state
    if isinstance(action, ReturnInvestment):
        return return_investment(state, seat, _index_of(state.seats[seat], action.stock), events, why)
    if isinstance(action, Take):
        if task.other is not None:
            other = state.seats[task.other]
            state = set_seat(state, task.other, strategies=tuple(c for c in other.strategies if c != action.card))
            state = set_seat(state, seat, strategies=(*state.seats[seat].strategies, action.card))
            events.append(event("take", f"Seat {seat} took a Strategy from seat {task.other} ({why}).", seat=seat, victim=task.other))
            events.append(event("take", f"You took {cards.card_name(action.card)} ({action.card}).", (seat,), seat=seat, card=action.card))
            return state
        pile = "stock_pile" if action.card[0] == "S" else "return_pile"
        left = tuple(c for c in getattr(state, pile) if c != action.card)
        state = evolve(state, {pile: left})
        state = set_seat(state, seat, hand=(*state.seats[seat].hand, action.card))
        # The card lay face up on the pile (4.2): the table saw it, so the event names it.
        events.append(event("take", f"Seat {seat} took {cards.card_name(action.card)} ({action.card}) from a discard pile ({why}).", seat=seat, pile=pile, card=action.card))
        return state
    if isinstance(action, Give):
        assert task.other is not None
        owner = state.seats[seat]
        state = set_seat(state, seat, hand=tuple(c for c in owner.hand if c != action.card))
        state = set_seat(state, task.other, hand=(*state.seats[task.other].hand, action.card))
        events.append(event("give", f"Seat {seat} gave seat {task.other} a building card ({why}).", seat=seat, victim=task.other))
        events.append(event("give", f"Seat {seat} gave you {cards.card_name(action.card)} ({action.card}).", (task.other,), seat=seat, card=action.card))
        return take_random(state, seat, task.other, events, why, keep=action.card)
    if isinstance(action, Mark):
        owner = state.seats[seat]
        index = _index_of(owner, action.stock)
        investments = list(owner.investments)
        investments[index] = evolve(investments[index], {"marked": True})
        events.append(event("mark", f"Seat {seat} marked its investment number {index + 1} (+{cards.COMPOUND_INTEREST_BONUS}M at the count).", seat=seat, position=index))
        return set_seat(state, seat, investments=tuple(investments))
    assert isinstance(action, Form)
    state = _form(state, seat, action.stock, action.ret, action.innovation, events, "Fortune, 12.4")
    return _after_forming(state, seat, events, False, changes)


def _apply_main(
    state: MarketFortuneState, seat: int, action: MarketFortuneAction, events: list[Event], changes: dict[str, object]
) -> MarketFortuneState:
    if isinstance(action, Build):
        changes["stage"] = "ending"
        if state.seats[seat].building_total() + 1 > cards.BUILDING_TOTAL:
            # 3.2: the card just taken from a pile (its top, known now) may not go back.
            pile: tuple[str, ...] = () if action.source.endswith("_deck") else getattr(state, action.source)
            forbid = pile[-1] if pile else None
            changes["tasks"] = (task_of(seat, "discard", "3.2", forbid=forbid),)
        state, moved = draw(state, seat, action.source, events)
        changes.update(moved)
        return state
    if isinstance(action, Risk):
        state, plus = roll_plus(state)
        if plus:
            events.append(event("risk", f"Seat {seat} rolled a plus (+): the Risk succeeds (3.3).", seat=seat, plus=True))
            state = _form(state, seat, action.stock, action.ret, action.innovation, events, "Risk, 3.3")
            return _after_forming(state, seat, events, True, changes)
        events.append(event("risk", f"Seat {seat} rolled a minus (-): the Risk fails and the cards stay hidden in its hand (3.3).", seat=seat, plus=False))
        changes["stage"] = "ending"
        return state
    if isinstance(action, Dominate):
        state, drawn, moved = draw_strategy(state, seat, events, "Dominate, 3.4")
        assert drawn is not None, "Dominate is listed only while a Strategy can be drawn (4.3)"
        changes.update(moved)
        # 3.4: a red drawn may be played (it or another red); any other colour ends the turn.
        changes["stage"] = "red" if cards.kind_of(drawn).colour == "red" else "ending"
        return state
    if isinstance(action, Optimise):
        owner = state.seats[seat]
        investments = list(owner.investments)
        for index, inv in enumerate(investments):
            if action.out in (inv.stock, inv.ret):
                field = "stock" if inv.stock == action.out else "ret"
                investments[index] = evolve(inv, {field: action.into})
                position = index
                break
        hand = [action.out if c == action.into else c for c in owner.hand]
        task = task_of(seat, "discard", "5.2")
        state = with_seat(
            state, seat, {"hand": tuple(hand), "investments": tuple(investments)}, {"tasks": (task,)}
        )
        events.append(event("optimise", f"Seat {seat} optimised its investment number {position + 1} and must discard a building card (5.2).", seat=seat, position=position))
        events.append(event("optimise", f"You swapped {cards.card_name(action.out)} out for {cards.card_name(action.into)}.", (seat,), seat=seat, cards=[action.out, action.into]))
        return state
    raise AssertionError(action)


def _apply_action(
    state: MarketFortuneState, seat: int, action: MarketFortuneAction, events: list[Event], changes: dict[str, object]
) -> MarketFortuneState:
    """Apply the action's own rule; fields it changes may be left in ``changes``
    for :func:`_advance` to make in its copy."""
    if state.tasks:
        return _apply_task(state, seat, action, events, changes)
    attack = state.attack
    if attack is not None and attack.defender is not None:
        if isinstance(action, Defend):
            return defend(state, seat, action.card, events)
        assert attack.source is not None
        # The hit reads only the attack's card; the closed window joins the step's copy.
        changes["attack"] = evolve(attack, {"source": None, "defender": None})
        events.append(event("decline", f"Seat {seat} does not defend.", seat=seat))
        return hit(state, attack.source, seat, events)
    if state.stage == "main" or isinstance(action, Optimise):
        return _apply_main(state, seat, action, events, changes)
    if isinstance(action, Play):
        return play_red(state, seat, action.card, action.target, events)
    if isinstance(action, EndTurn):
        changes["stage"] = "ending"
        return state
    if isinstance(action, Declare):
        return _declare(state, seat, events)
    if isinstance(action, ReturnInvestment):
        return _hold_back(state, seat, action.stock, events)
    if isinstance(action, NextGame):
        return _next_game(state, events)
    raise AssertionError(action)


def _next_game(state: MarketFortuneState, events: list[Event]) -> MarketFortuneState:
    """Deal the next game of a Championship match (9.3, 2.3)."""
    state = evolve(state, {"game_number": state.game_number + 1})
    state = _deal(state, state.next_opener)
    events.append(event("game_start", f"Game {state.game_number} of the match: seat {state.active} opens.", seat=state.active, game=state.game_number, roll_off=list(state.roll_off)))
    return state


def _check_turn(state: MarketFortuneState, seat: int) -> None:
    """Refuse a seat that is not in :func:`to_act` (3.1, 7.2), or any seat once the table is over."""
    acting = to_act(state)
    if seat not in acting:
        if not acting:
            raise IllegalAction("The table is over.", rule="8.1")
        raise NotYourTurn(f"Seat {acting[0]} must decide now, not seat {seat}.", rule="3.1")


def apply(state: MarketFortuneState, seat: int, action: MarketFortuneAction) -> tuple[MarketFortuneState, list[Event]]:
    """Apply one action of ``seat``; pure.

    The action is checked against the definition :func:`legal_actions` lists
    (:func:`~engine.market_fortune.legal.is_listed`), its rule is applied, and the
    automatic steps run until a seat owes a decision.

    :raises NotYourTurn: ``seat`` is not the seat in :func:`to_act`.
    :raises IllegalAction: the action is not among :func:`legal_actions` now.
    """
    _check_turn(state, seat)
    if not is_listed(state, action):
        raise explain_illegal(state, seat, action)
    events: list[Event] = []
    changes: dict[str, object] = {}
    state = _apply_action(state, seat, action, events, changes)
    state = _advance(state, changes, events)
    return state, events


def outcome(state: MarketFortuneState) -> Outcome | None:
    """The result once the table is over (8, 9.3, 3.7)."""
    return state.result


