"""What each Strategy does (section 12): preconditions, targets, hits and defences.

A red is played by the active seat (6.2). A red without targets acts at once,
possibly queueing decisions (:class:`Task`) for the seat. A red with targets
becomes an :class:`Attack` whose defence windows the turn flow opens one by one
(7.2); when a defender declines, :func:`hit` applies the effect of the attack.
"""

from __future__ import annotations

from engine.core import Event
from engine.market_fortune import cards
from engine.market_fortune.moves import (
    can_draw,
    clockwise,
    discard,
    draw_strategy,
    event,
    lose_all_investments,
    random_index,
    return_investment,
    roll_plus,
    seat_change,
    set_seat,
    task_of,
    with_seat,
)
from engine.market_fortune.scoring import equal_or_ahead, is_last_place, leaders
from engine.market_fortune.state import Attack, MarketFortuneState, Reveal, Task, evolve

__all__ = [
    "INVESTMENT_ATTACKS",
    "blue_allowed",
    "defend",
    "formable_pairs",
    "hit",
    "play_red",
    "red_options",
]

INVESTMENT_ATTACKS = frozenset({"market_crash", "correction", "systemic_risk"})
"""Attacks that would take investments: the ones Diamond Hands answers (12.18)."""


def _championship(state: MarketFortuneState) -> bool:
    """Strategy discards lie face down only in Championship (9.3), and not with ``open_championship`` (13.3)."""
    return state.config.mode == "championship" and "open_championship" not in state.config.variants


def formable_pairs(
    state: MarketFortuneState, seat: int, only: tuple[str, str] | None = None
) -> list[tuple[str, str, str | None]]:
    """Stock + Return pairs the seat could invest (3.3, 5.1), with Innovation (6.4);
    with ``only``, the pairs of those two hand cards alone."""
    owner = state.seats[seat]
    hand = owner.hand if only is None else [c for c in owner.hand if c in only]
    stocks = [c for c in hand if c[0] == "S"]
    returns = [c for c in hand if c[0] == "R"]
    innovations = [c for c in owner.strategies if cards.kind_of(c).key == "innovation"]
    pairs: list[tuple[str, str, str | None]] = []
    for stock in stocks:
        industry = cards.card_industry(stock)
        for ret in returns:
            if cards.card_industry(ret) == industry:
                pairs.append((stock, ret, None))
            else:
                pairs.extend((stock, ret, innovation) for innovation in innovations)
    return pairs


def _targets(state: MarketFortuneState, seat: int, key: str) -> list[int | None]:
    """Legal targets of red ``key`` for ``seat``: seats, ``[None]`` for group or none, or nothing."""
    others = clockwise(state, seat)
    if key in ("theft", "federal_audit", "negotiation", "regulatory_block"):
        return list(others)
    if key == "correction":
        # 12.3: only a target equal or further ahead, and it needs an investment to return.
        return [o for o in others if equal_or_ahead(state, seat, o) and state.seats[o].investments]
    if key == "market_crash":
        return [None]
    if key == "inflation":
        return [None] if any(equal_or_ahead(state, seat, o) for o in others) else []
    if key == "systemic_risk":
        return [None] if any(o != seat for o in leaders(state)) else []
    owner = state.seats[seat]
    holds = True
    if key == "fortune":
        holds = bool(formable_pairs(state, seat))
    elif key == "compound_interest":
        holds = any(not inv.marked for inv in owner.investments)
    elif key == "buy_more":
        holds = any(can_draw(state, s) for s in ("stock_deck", "return_deck", "stock_pile", "return_pile"))
    elif key == "liquidity":
        holds = can_draw(state, "stock_deck") or can_draw(state, "return_deck")
    elif key == "bailout":
        holds = is_last_place(state, seat) and bool(_bailout_cards(state))
    return [None] if holds else []


def red_options(state: MarketFortuneState, seat: int, only: str | None = None) -> list[tuple[str, int | None]]:
    """Every ``(red card, target)`` the seat may play now (6.2, 7.1); with ``only``, those of that card."""
    options: list[tuple[str, int | None]] = []
    cache: dict[str, list[int | None]] = {}
    held = state.seats[seat].strategies
    for card in held if only is None else [only] if only in held else []:
        kind = cards.kind_of(card)
        if kind.colour != "red":
            continue
        if kind.key not in cache:
            cache[kind.key] = _targets(state, seat, kind.key)
        options.extend((card, target) for target in cache[kind.key])
    return options


def _bailout_cards(state: MarketFortuneState) -> list[str]:
    """Face-up cards in the building piles (Bailout 12.13 may take any of them)."""
    locked = {card for card, _ in state.locked}
    return [c for c in (*state.stock_pile, *state.return_pile) if c not in locked]


def bailout_cards(state: MarketFortuneState) -> list[str]:
    """Face-up cards in the building piles that Bailout may take (12.13)."""
    return _bailout_cards(state)


def play_red(
    state: MarketFortuneState, seat: int, card: str, target: int | None, events: list[Event]
) -> MarketFortuneState:
    """Play a red (6.2): it goes to the Strategy discard, then its effect starts."""
    owner = state.seats[seat]
    strategies = list(owner.strategies)
    strategies.remove(card)
    kind = cards.kind_of(card)
    on = "" if target is None else f" on seat {target}"
    # Strategy ids stay out of events: the pile may be reshuffled into the deck
    # within this same step (Stablecoin, Lucky Investor), and the view shows the pile.
    events.append(event("play", f"Seat {seat} played {kind.name}{on}.", seat=seat, strategy=kind.key, target=target, section=kind.section))
    changes: dict[str, object] = {"strategy_pile": (*state.strategy_pile, card), "stage": "resolving"}
    if kind.is_attack:
        # The attack is made in the same copy as the play: its targets depend on investments only.
        changes["attack"] = Attack(card=card, attacker=seat, queue=_attack_queue(state, seat, kind.key, target))
    state = with_seat(state, seat, {"strategies": tuple(strategies)}, changes)
    if kind.is_attack:
        return state
    return _instant(state, seat, kind.key, events)


def _attack_queue(state: MarketFortuneState, seat: int, key: str, target: int | None) -> tuple[int, ...]:
    """The seats an attack of ``seat`` will hit, clockwise (7.2): its target, or the group's."""
    if target is not None:
        return (target,)
    if key == "market_crash":
        return clockwise(state, seat)
    if key == "inflation":
        return tuple(o for o in clockwise(state, seat) if equal_or_ahead(state, seat, o))
    # systemic_risk
    lead = set(leaders(state))
    return tuple(o for o in clockwise(state, seat) if o in lead)


def _instant(state: MarketFortuneState, seat: int, key: str, events: list[Event]) -> MarketFortuneState:
    """The reds that target nobody (12.4-12.7, 12.11, 12.13, 12.14)."""
    locked = _championship(state)
    section = cards.strategy(key).section
    tasks: tuple[Task, ...] = ()
    if key == "fortune":
        tasks = (task_of(seat, "form", section),)
    elif key == "compound_interest":
        tasks = (task_of(seat, "mark", section),)
    elif key == "buy_more":
        tasks = (
            task_of(seat, "draw", section, count=cards.BUY_MORE_DRAWS),
            task_of(seat, "discard", section, count=cards.BUY_MORE_DRAWS, locked=locked),
        )
    elif key == "liquidity":
        tasks = (
            task_of(seat, "draw_deck", section, count=cards.LIQUIDITY_DRAWS),
            task_of(seat, "discard", section, count=cards.LIQUIDITY_DRAWS, locked=locked),
        )
    elif key == "bailout":
        tasks = (
            task_of(seat, "take", section),
            task_of(seat, "discard", section, count=cards.BAILOUT_DISCARDS, locked=locked),
        )
    elif key == "shrewd_move":
        events.append(event("extra_turn", f"Seat {seat} will take another turn after this one.", seat=seat))
        return evolve(state, {"extra_turn": True})
    elif key == "lucky_investor":
        state, plus = roll_plus(state)
        events.append(event("roll", f"Seat {seat} rolled {'+' if plus else '-'} for Lucky Investor.", seat=seat, plus=plus))
        if plus:
            for _ in range(cards.LUCKY_INVESTOR_DRAWS):
                state, _, moved = draw_strategy(state, seat, events, "Lucky Investor, 12.14")
                state = evolve(state, moved)
        return state
    return evolve(state, {"tasks": (*tasks, *state.tasks)})


def blue_allowed(state: MarketFortuneState, card: str) -> bool:
    """Whether blue ``card`` may answer the current attack (7.2, 12.18)."""
    kind = cards.kind_of(card)
    if kind.colour != "blue" or state.attack is None:
        return False
    if kind.key == "diamond_hands":
        return cards.kind_of(state.attack.card).key in INVESTMENT_ATTACKS
    return True


def _take_random(
    state: MarketFortuneState, taker: int, victim: int, events: list[Event], why: str, *, keep: str | None = None
) -> MarketFortuneState:
    """``taker`` takes a random building card from ``victim``'s hand, never ``keep``."""
    hand = [c for c in state.seats[victim].hand if c != keep]
    if not hand:
        events.append(event("take", f"Seat {victim} had no building card for seat {taker} to take ({why}).", seat=taker, victim=victim))
        return state
    state, index = random_index(state, len(hand))
    card = hand[index]
    remaining = list(state.seats[victim].hand)
    remaining.remove(card)
    state = set_seat(state, victim, hand=tuple(remaining))
    state = set_seat(state, taker, hand=(*state.seats[taker].hand, card))
    events.append(event("take", f"Seat {taker} took a random building card from seat {victim} ({why}).", seat=taker, victim=victim))
    events.append(event("take", f"You took {cards.card_name(card)} ({card}) from seat {victim} ({why}).", (taker,), seat=taker, victim=victim, card=card))
    return state


def take_random(
    state: MarketFortuneState, taker: int, victim: int, events: list[Event], why: str, *, keep: str | None = None
) -> MarketFortuneState:
    """Public entry to the random take used by Negotiation (12.9) after the gift."""
    return _take_random(state, taker, victim, events, why, keep=keep)


def _reveal(state: MarketFortuneState, viewer: int, shown: int, section: str, events: list[Event]) -> MarketFortuneState:
    """Show ``shown``'s whole hand to ``viewer`` only (12.8, 12.19)."""
    seen = state.seats[shown].hand + state.seats[shown].strategies
    state = set_seat(state, viewer, revealed=Reveal(
        source=shown, cards=seen, section=section, turn=state.turn, game_number=state.game_number))
    events.append(event("reveal", f"Seat {shown} showed its hand to seat {viewer} ({section}).", seat=viewer, shown=shown))
    names = ", ".join(seen) if seen else "nothing"
    events.append(event("reveal", f"Seat {shown}'s hand: {names}.", (viewer,), seat=viewer, shown=shown, cards=list(seen)))
    return state


def hit(state: MarketFortuneState, source: int, victim: int, events: list[Event]) -> MarketFortuneState:
    """Apply the current attack of ``source`` on ``victim``, who did not defend (7.2)."""
    assert state.attack is not None
    kind = cards.kind_of(state.attack.card)
    section = kind.section
    why = f"{kind.name}, {section}"
    locked = _championship(state)
    events.append(event("hit", f"{kind.name} from seat {source} hits seat {victim}.", seat=victim, source=source, strategy=kind.key))
    target = state.seats[victim]
    new_tasks: tuple[Task, ...] = ()
    if kind.key == "theft":
        if target.hand:
            state = _take_random(state, source, victim, events, why)
            new_tasks = (task_of(source, "discard", section, locked=locked),)
        else:
            events.append(event("take", f"Seat {victim} had no building card to steal.", seat=source, victim=victim))
    elif kind.key == "market_crash":
        state = lose_all_investments(state, victim, events, locked=locked, why=why)
    elif kind.key == "correction":
        if target.investments:
            new_tasks = (task_of(victim, "return", section),)
    elif kind.key == "federal_audit":
        state = _reveal(state, source, victim, section, events)
        if target.strategies:
            new_tasks = (task_of(source, "take", section, other=victim),)
    elif kind.key == "negotiation":
        if state.seats[source].hand:
            new_tasks = (task_of(source, "give", section, other=victim),)
        else:
            state = _take_random(state, source, victim, events, why)
    elif kind.key == "regulatory_block":
        state = set_seat(state, victim, skip_next=True)
        events.append(event("block", f"Seat {victim} will lose its next turn.", seat=victim))
    elif kind.key == "inflation":
        if target.hand:
            new_tasks = (task_of(victim, "discard", section, locked=locked),)
    elif kind.key == "systemic_risk" and target.investments:
        # 5.3: the most recent investment is the last one formed.
        state = return_investment(state, victim, len(target.investments) - 1, events, why)
    if not new_tasks:
        return state
    return evolve(state, {"tasks": (*new_tasks, *state.tasks)})


def defend(state: MarketFortuneState, defender: int, card: str, events: list[Event]) -> MarketFortuneState:
    """Answer the current attack with blue ``card`` (7.2, 7.3, 12.16-12.21)."""
    attack = state.attack
    assert attack is not None and attack.source is not None
    attacker = attack.source
    kind = cards.kind_of(card)
    owner = state.seats[defender]
    strategies = list(owner.strategies)
    # What the answer changes, made in one copy with the attack's next step.
    changes: dict[str, object] = {}
    if kind.key != "diamond_hands":
        strategies.remove(card)
        changes = seat_change(state, defender, {"strategies": tuple(strategies)})
        changes["strategy_pile"] = (*state.strategy_pile, card)
        events.append(event("defend", f"Seat {defender} answered with {kind.name}.", seat=defender, blue=kind.key, section=kind.section))
    else:
        # 12.18: Diamond Hands stays in its owner's hand, so only its kind is told.
        events.append(event("defend", f"Seat {defender} answered with {kind.name}, which goes back to its hand.", seat=defender, blue=kind.key, section=kind.section))
    if kind.key == "wrong_analyst":
        events.append(event("bounce", f"The attack turns on seat {attacker}, who may defend (7.3).", seat=attacker, source=defender))
        changes["attack"] = evolve(attack, {"source": defender, "defender": attacker})
        return evolve(state, changes)
    changes["attack"] = evolve(attack, {"source": None, "defender": None})
    state = evolve(state, changes)
    if kind.key == "stablecoin":
        state, _, moved = draw_strategy(state, defender, events, "Stablecoin, 12.17")
        state = evolve(state, moved)
    elif kind.key == "experience":
        state = _reveal(state, defender, attacker, kind.section, events)
    elif kind.key == "contingency_plan":
        hand = state.seats[attacker].hand
        if hand:
            state, index = random_index(state, len(hand))
            changes = discard(state, attacker, hand[index], events, locked=_championship(state), why="Contingency Plan, 12.21")
            state = evolve(state, changes)
    return state
