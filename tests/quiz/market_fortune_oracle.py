"""An independent check of every Market Fortune question: the engine's answer.

``engine_answer(question params)`` works the answer out by running the engine
(dealing tables, listing legal actions, applying actions, counting portfolios)
or by reading its catalogue, never by calling the quiz's own code. Templates
that state a rule no short engine run can show (who may do what in prose) are
in :data:`RULEBOOK_FACTS`: their answer is pinned here together with the
sentence of ``engine/market_fortune/rulebook.md`` that states it.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from pydantic import ValidationError

from engine.core import InvalidConfig
from engine.market_fortune import GAME, cards, scoring
from engine.market_fortune.actions import Build, Declare, Defend, Dominate, Optimise, Play, Risk
from engine.market_fortune.effects import formable_pairs, red_options
from engine.market_fortune.state import (
    Investment,
    MarketFortuneConfig,
    MarketFortuneState,
    Mode,
    SeatState,
)
from quiz.market_fortune.puzzles.situations import walk

Answer = str | int | bool


def table(seats: int = 4, seed: int = 1, mode: Mode = "fortune") -> MarketFortuneState:
    """A freshly dealt table."""
    return GAME.new_table(MarketFortuneConfig(mode=mode, seats=seats), seed)


def with_seat(state: MarketFortuneState, index: int, **changes: Any) -> MarketFortuneState:
    """``state`` with one seat changed (a hand-made scenario)."""
    seats = list(state.seats)
    seats[index] = seats[index].model_copy(update=changes)
    return state.model_copy(update={"seats": tuple(seats)})


def settle(state: MarketFortuneState, limit: int = 20) -> MarketFortuneState:
    """Apply the first legal action to every pending decision until none is left."""
    for _ in range(limit):
        if not state.tasks:
            return state
        seat = GAME.to_act(state)[0]
        state, _ = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    raise AssertionError("tasks did not settle")


def all_cards(state: MarketFortuneState) -> list[str]:
    """Every card of a freshly dealt table: decks, piles and hands."""
    found = [*state.stock_deck, *state.return_deck, *state.strategy_deck]
    for seat in state.seats:
        found += [*seat.hand, *seat.strategies]
    return found


def portfolio(pairs: list[list[str]], strategies: tuple[str, ...] = (), marked_first: bool = False) -> int:
    """The engine's count of a seat holding these investments and Strategies."""
    investments = tuple(
        Investment(stock=s, ret=r, marked=marked_first and i == 0) for i, (s, r) in enumerate(pairs)
    )
    return scoring.count(SeatState(investments=investments, strategies=strategies)).total


def counts_state(counts: list[int]) -> MarketFortuneState:
    """A table where seat ``i`` holds ``counts[i]`` investments (cards do not matter for terms)."""
    state = table(seats=len(counts))
    stocks = iter(cards.STOCK_IDS)
    returns = iter(cards.RETURN_IDS)
    for seat, n in enumerate(counts):
        invs = tuple(Investment(stock=next(stocks), ret=next(returns)) for _ in range(n))
        state = with_seat(state, seat, investments=invs)
    return state


def seat_list(seats: list[int]) -> str:
    if not seats:
        return "nobody"
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(str(s) for s in seats[:-1]) + f" and {seats[-1]}"


# -- setup ------------------------------------------------------------------------

def _cards_dealt(p: dict[str, Any]) -> int:
    prefix = "S." if p["kind"] == "Stocks" else "R."
    return sum(1 for card in table().seats[0].hand if card.startswith(prefix))


def _seats_allowed(p: dict[str, Any]) -> bool:
    try:
        table(seats=p["seats"])
    except (ValidationError, InvalidConfig):
        return False
    return True


def _first_player(p: dict[str, Any]) -> str:
    for seed in range(200):
        state = table(seed=seed)
        first_round = state.roll_off[0].split(", ")
        minus = [int(face.split()[1]) for face in first_round if face.endswith("-")]
        if len(minus) == 1:
            assert state.active == minus[0]
            return "the seat that rolled the minus"
    raise AssertionError("no single-minus roll-off found")


def _cards_of_value(p: dict[str, Any]) -> int:
    prefix = "S." if p["kind"] == "Stock" else "R."
    return sum(1 for c in all_cards(table()) if c.startswith(prefix) and cards.card_value(c) == p["value"])


# -- the turn -----------------------------------------------------------------------

def _actions_per_turn(p: dict[str, Any]) -> int:
    state = table()
    opener = state.active
    state, _ = GAME.apply(state, opener, Build(source="stock_deck"))
    state = settle(state)
    return 1 if state.active != opener else 2


def _which_action(p: dict[str, Any]) -> str:
    state = table()
    seat = state.active
    before = state.seats[seat]
    after_dominate, _ = GAME.apply(state, seat, Dominate())
    after_build, _ = GAME.apply(state, seat, Build(source="stock_deck"))
    assert len(after_dominate.seats[seat].strategies) == len(before.strategies) + 1
    drawn_red = cards.kind_of(after_dominate.seats[seat].strategies[-1]).colour == "red"
    assert (after_dominate.stage == "red") == drawn_red  # a red may follow a red draw only (3.4)
    assert len(after_build.seats[seat].hand) == len(before.hand) + 1
    pairs = [pair for pair in formable_pairs(state, seat) if pair[2] is None]
    if pairs:
        after_risk, _ = GAME.apply(state, seat, Risk(stock=pairs[0][0], ret=pairs[0][1]))
        assert after_risk.chance == state.chance + 1  # the die was rolled
    return str(p["action"])


_SOURCE_OF = {
    "the Stock deck": "stock_deck",
    "the Return deck": "return_deck",
    "the top card of the Stock discard pile": "stock_pile",
    "the top card of the Return discard pile": "return_pile",
}


def _build_source(p: dict[str, Any]) -> bool:
    state = walk(3, seats=4, wanted=lambda s: s.stage == "main" and not s.tasks
                 and len(s.stock_pile) >= 2 and len(s.return_pile) >= 2)
    assert state is not None
    builds = {a.source for a in GAME.legal_actions(state, state.active) if isinstance(a, Build)}
    return _SOURCE_OF.get(p["source"]) in builds


def _build_discard(p: dict[str, Any]) -> int:
    state = table()
    seat = state.active
    state = with_seat(state, seat, hand=state.seats[seat].hand[: p["total"]])
    state, _ = GAME.apply(state, seat, Build(source="stock_deck"))
    return 1 if state.tasks and state.tasks[0].step == "discard" and state.tasks[0].seat == seat else 0


def _momentum_play(p: dict[str, Any]) -> bool:
    for seed in range(60):
        state = table(seed=seed)
        seat = state.active
        pairs = [pair for pair in formable_pairs(state, seat) if pair[2] is None]
        if not pairs:
            continue
        after, _ = GAME.apply(state, seat, Risk(stock=pairs[0][0], ret=pairs[0][1]))
        if len(after.seats[seat].investments) == 1:  # the Risk succeeded
            return any(a.kind == "play" for a in GAME.legal_actions(after, seat))
    raise AssertionError("no successful Risk found")


# -- investments and victory ------------------------------------------------------------

def _valid_pair(p: dict[str, Any]) -> bool:
    holder = table()
    holder = with_seat(holder, 0, hand=(p["stock"], p["ret"]), strategies=())
    return (p["stock"], p["ret"], None) in formable_pairs(holder, 0)


def _value_bounds(p: dict[str, Any]) -> int:
    values = [portfolio([[s, r]]) for s in cards.STOCK_IDS for r in cards.RETURN_IDS
              if cards.card_industry(s) == cards.card_industry(r)]
    return min(values) if p["bound"] == "least" else max(values)


def _best_pair(p: dict[str, Any]) -> str:
    holder = with_seat(table(), 0, hand=tuple(p["hand"]), strategies=())
    pairs = [(s, r) for s, r, inn in formable_pairs(holder, 0) if inn is None]
    best = max(pairs, key=lambda pair: portfolio([list(pair)]))
    return f"{best[0]} + {best[1]}"


def _optimise_scenario(stock: str, ret: str, hand: tuple[str, ...]) -> tuple[MarketFortuneState, int]:
    state = table()
    seat = state.active
    return with_seat(state, seat, hand=hand, investments=(Investment(stock=stock, ret=ret),)), seat


def _optimise_swap(p: dict[str, Any]) -> bool:
    state, seat = _optimise_scenario(p["stock"], p["ret"], (p["swap_in"],))
    out = p["stock"] if p["swap_out"] == "Stock" else p["ret"]
    return Optimise(out=out, into=p["swap_in"]) in GAME.legal_actions(state, seat)


def _optimise_gain(p: dict[str, Any]) -> int:
    state, seat = _optimise_scenario(p["stock"], p["ret"], (p["new_stock"],))
    state, _ = GAME.apply(state, seat, Optimise(out=p["stock"], into=p["new_stock"]))
    return scoring.count(state.seats[seat]).total


def _count_value(p: dict[str, Any]) -> int:
    extra = p["extra"]
    if extra == "compound_interest":
        return portfolio(p["pairs"], marked_first=True)
    strategies = () if extra == "none" else (cards.strategy(extra).card_ids()[0],)
    return portfolio(p["pairs"], strategies)


# -- strategies and combat ----------------------------------------------------------------

def _deck_copies(key: str) -> int:
    return sum(1 for card in table().strategy_deck if cards.kind_of(card).key == key)


def _colour_count(p: dict[str, Any]) -> int:
    return sum(1 for card in table().strategy_deck if cards.kind_of(card).colour == p["colour"])


def _cards_to_discard(p: dict[str, Any]) -> int:
    """Play the red on a seat holding the blue, defend, and count both cards on the Strategy pile."""
    red = cards.strategy(p["red"]).card_ids()[0]
    blue = cards.strategy(p["blue"]).card_ids()[0]
    for seed in range(50):
        state = walk(seed, seats=3, wanted=lambda s: s.stage == "red" and not s.tasks
                     and s.attack is None and all(seat.investments for seat in s.seats))
        if state is None or any(c in state.strategy_pile for c in (red, blue)):
            continue
        if any(red in seat.strategies or blue in seat.strategies for seat in state.seats):
            continue
        attacker = state.active
        target = (attacker + 1) % len(state.seats)
        state = with_seat(state, attacker, strategies=(*state.seats[attacker].strategies, red))
        state = with_seat(state, target, strategies=(blue,))
        play = Play(card=red, target=target)
        if play not in GAME.legal_actions(state, attacker):
            continue
        state, _ = GAME.apply(state, attacker, play)
        state, _ = GAME.apply(state, target, Defend(card=blue))
        state = settle(state)
        return sum(1 for card in (red, blue) if card in state.strategy_pile)
    raise AssertionError("no scenario for this attack and defence")


def _green_count(key: str, p: dict[str, Any]) -> int:
    return portfolio([[p["stock"], p["ret"]]], (cards.strategy(key).card_ids()[0],))


# -- market terms -----------------------------------------------------------------------

def _leaders(p: dict[str, Any]) -> str:
    return seat_list(list(scoring.leaders(counts_state(p["counts"]))))


def _last(p: dict[str, Any]) -> str:
    state = counts_state(p["counts"])
    return seat_list([s for s in range(len(p["counts"])) if scoring.is_last_place(state, s)])


def _equal_or_ahead(p: dict[str, Any]) -> int:
    state = counts_state(p["counts"])
    return sum(1 for s in range(1, len(p["counts"])) if scoring.equal_or_ahead(state, 0, s))


def _red_playable(counts: list[int], key: str, target: int | None) -> bool:
    """Whether seat 0, holding the red ``key``, may play it (on ``target``) by the engine's rules."""
    state = counts_state(counts)
    card = cards.strategy(key).card_ids()[0]
    state = with_seat(state, 0, strategies=(card,))
    state = state.model_copy(update={"stock_pile": ("S.aerospace.5",), "return_pile": ("R.aerospace.5",)})
    return (card, target) in red_options(state, 0)


def _correction(p: dict[str, Any]) -> bool:
    return _red_playable([p["mine"], p["theirs"]], "correction", 1)


# -- rules shown by short engine runs ----------------------------------------------------

LOW_PAIRS = [("S.energy.1", "R.energy.1"), ("S.banking.1", "R.banking.1"), ("S.media.1", "R.media.1")]
"""Three 2M investments: a 4th one cannot lift the count to 25M."""


def _fourth_risk(mode: Mode) -> MarketFortuneState:
    """A table where the active seat formed its 4th (low) investment by a successful Risk."""
    for seed in range(80):
        state = table(seed=seed, mode=mode)
        seat = state.active
        invs = tuple(Investment(stock=s, ret=r) for s, r in LOW_PAIRS)
        state = with_seat(state, seat, investments=invs, hand=("S.mining.1", "R.mining.2"))
        after, _ = GAME.apply(state, seat, Risk(stock="S.mining.1", ret="R.mining.2"))
        if len(after.seats[seat].investments) == 4 or after.result is not None:
            return after
    raise AssertionError("no successful Risk")


def _short_count(p: dict[str, Any]) -> str:
    state = _fourth_risk("fortune")
    seat = state.active
    if state.stage == "victory":
        state, _ = GAME.apply(state, seat, Declare())
    assert state.result is None and state.tasks[0].step == "return" and state.tasks[0].seat == seat
    return "you take one investment of your choice back into your hand and play goes on"


def _family_low_count(p: dict[str, Any]) -> bool:
    state = _fourth_risk("family")
    return state.result is not None and state.result.winners == (state.active,)


def _risk_minus(p: dict[str, Any]) -> str:
    for seed in range(80):
        state = table(seed=seed)
        seat = state.active
        pairs = [pair for pair in formable_pairs(state, seat) if pair[2] is None]
        if not pairs:
            continue
        after, events = GAME.apply(state, seat, Risk(stock=pairs[0][0], ret=pairs[0][1]))
        if not after.seats[seat].investments:  # the Risk failed
            assert sorted(after.seats[seat].hand) == sorted(state.seats[seat].hand)
            public = [e for e in events if e.audience is None]
            assert not any(pairs[0][0] in e.text or pairs[0][1] in e.text for e in public)
            return "they stay in your hand and nobody else learns which cards they were"
    raise AssertionError("no failed Risk")


def _optimise_cost(p: dict[str, Any]) -> int:
    state, seat = _optimise_scenario("S.energy.2", "R.energy.3", ("S.energy.5", "R.banking.1"))
    state, _ = GAME.apply(state, seat, Optimise(out="S.energy.2", into="S.energy.5"))
    task = state.tasks[0]
    assert task.seat == seat and task.step == "discard"
    return task.count


def _optimise_per_turn(p: dict[str, Any]) -> bool:
    """Two optimisations in a row before the main action, each with its cost, by the engine."""
    state, seat = _optimise_scenario("S.energy.2", "R.energy.3", ("S.energy.5", "R.energy.4"))
    for out, into in (("S.energy.2", "S.energy.5"), ("R.energy.3", "R.energy.4")):
        if Optimise(out=out, into=into) not in GAME.legal_actions(state, seat):
            return False
        state, _ = GAME.apply(state, seat, Optimise(out=out, into=into))
        assert state.tasks[0].step == "discard"  # the cost
        state, _ = GAME.apply(state, seat, GAME.parse_action(f"discard:{out}"))
    return state.active == seat and state.stage == "main"


def _hold_back(p: dict[str, Any]) -> bool:
    """In the victory window of a short count: a return that flips nothing, by the engine."""
    state = _fourth_risk("fortune")
    seat = state.active
    holds = [a for a in GAME.legal_actions(state, seat) if a.kind == "return"]
    if not holds:
        return False
    after, _ = GAME.apply(state, seat, holds[0])
    return len(after.seats[seat].investments) == 3 and not any(inv.face_up for inv in after.seats[seat].investments)


def _momentum_count(p: dict[str, Any]) -> bool:
    """Whether the Momentum card of the 4th investment adds to that count, by the engine."""
    card = cards.strategy(p["kind"]).card_ids()[0]
    for seed in range(80):
        state = table(seed=seed)
        seat = state.active
        # Three investments on which the card would add something (two share an industry, but for
        # Diversification King); the 4th, S.mining.1 + R.mining.1, keeps the count short without it.
        second = ("S.banking.4", "R.banking.4") if p["kind"] == "diversification_king" else ("S.energy.4", "R.energy.4")
        pairs = [("S.energy.5", "R.energy.5"), second, ("S.media.1", "R.media.1")]
        invs = tuple(Investment(stock=s, ret=r) for s, r in pairs)
        deck = (*tuple(c for c in state.strategy_deck if c != card), card)
        state = with_seat(state, seat, investments=invs, hand=("S.mining.1", "R.mining.1"))
        state = state.model_copy(update={"strategy_deck": deck})
        after, _ = GAME.apply(state, seat, Risk(stock="S.mining.1", ret="R.mining.1"))
        if after.stage == "victory":
            with_card = scoring.count(after.seats[seat]).total
            without = scoring.count(after.seats[seat].model_copy(update={"strategies": ()})).total
            assert with_card > without, p  # the scenario tells the two answers apart
            _, events = GAME.apply(after, seat, Declare())
            counted = next(e.data["total"] for e in events if e.kind == "count")
            return bool(counted == with_card)
    raise AssertionError("no successful Risk")


def _dominate_colour(p: dict[str, Any]) -> bool:
    """Whether a kept red may be played after a Dominate draws ``kind``, by the engine."""
    drawn = cards.strategy(p["kind"]).card_ids()[-1]
    kept = "X.shrewd_move.1" if p["kind"] != "shrewd_move" else "X.fortune.1"
    state = table()
    seat = state.active
    deck = (*tuple(c for c in state.strategy_deck if c not in (drawn, kept)), drawn)
    state = with_seat(state, seat, strategies=(kept,)).model_copy(update={"strategy_deck": deck})
    after, _ = GAME.apply(state, seat, Dominate())
    return any(a.kind == "play" for a in GAME.legal_actions(after, seat))


def _championship_opener(p: dict[str, Any]) -> str:
    """Who opens game 2, by playing the end of game 1 in the engine (2.3)."""
    state = table(seats=3, mode="championship")
    seat = state.active
    if p["ended"] == "victory":
        pairs = [("S.energy.5", "R.energy.5"), ("S.banking.5", "R.banking.5"), ("S.media.5", "R.media.5")]
        invs = tuple(Investment(stock=s, ret=r) for s, r in pairs)
        for seed in range(80):
            trial = with_seat(table(seats=3, mode="championship", seed=seed), seat, investments=invs,
                              hand=("S.mining.5", "R.mining.5"))
            trial = trial.model_copy(update={"active": seat})
            after, _ = GAME.apply(trial, seat, Risk(stock="S.mining.5", ret="R.mining.5"))
            if after.stage == "victory":
                after, _ = GAME.apply(after, seat, Declare())
                after, _ = GAME.apply(after, seat, GAME.parse_action("next_game"))
                assert after.active == seat and "previous game" in after.roll_off[0]
                return "the winner of the first game"
        raise AssertionError("no successful Risk")
    limited = GAME.new_table(MarketFortuneConfig(mode="championship", seats=3, turn_limit_per_seat=1), 1)
    while limited.stage != "between":
        acting = GAME.to_act(limited)[0]
        limited, _ = GAME.apply(limited, acting, GAME.default_action(limited, acting))
    after, _ = GAME.apply(limited, GAME.to_act(limited)[0], GAME.parse_action("next_game"))
    assert after.next_opener is None and "previous game" not in after.roll_off[0]
    return "the seat that wins a new roll-off"


def _optimise_flipped(p: dict[str, Any]) -> bool:
    state, seat = _optimise_scenario("S.energy.2", "R.energy.3", ("S.energy.5",))
    flipped = tuple(inv.model_copy(update={"face_up": True}) for inv in state.seats[seat].investments)
    state = with_seat(state, seat, investments=flipped)
    return any(isinstance(a, Optimise) for a in GAME.legal_actions(state, seat))


ENGINE_ANSWERS: dict[str, Callable[[dict[str, Any]], Answer]] = {
    "setup.cards_dealt": _cards_dealt,
    "setup.building_dealt": lambda p: sum(len(s.hand) for s in table(seats=p["seats"]).seats),
    "setup.stock_deck_left": lambda p: len(table(seats=p["seats"]).stock_deck),
    "setup.strategies_dealt": lambda p: any(s.strategies for s in table().seats),
    "setup.seats_allowed": _seats_allowed,
    "setup.first_player": _first_player,
    "setup.roll_off_limit": lambda p: cards.ROLL_OFF_LIMIT,
    "setup.total_cards": lambda p: len(all_cards(table())),
    "setup.industries": lambda p: len({cards.card_industry(c) for c in all_cards(table()) if cards.is_building(c)}),
    "setup.cards_of_value": _cards_of_value,
    "turn.actions_per_turn": _actions_per_turn,
    "turn.which_action": _which_action,
    "turn.build_source": _build_source,
    "turn.build_discard": _build_discard,
    "turn.building_total": lambda p: cards.BUILDING_TOTAL - SeatState(
        investments=tuple(Investment(stock=cards.STOCK_IDS[i], ret=cards.RETURN_IDS[i]) for i in range(p["investments"]))
    ).building_total(),
    "turn.momentum_play": _momentum_play,
    "turn.turn_limit": lambda p: MarketFortuneConfig().turn_limit_per_seat,
    "die.faces": lambda p: {"plus": cards.DIE_PLUS_FACES, "minus": cards.DIE_MINUS_FACES, "any": cards.DIE_FACES}[p["sign"]],
    "die.risk_chance": lambda p: _fraction(Fraction(cards.DIE_PLUS_FACES, cards.DIE_FACES) ** p["risks"]),
    "investments.pair_value": lambda p: portfolio([[p["stock"], p["ret"]]]),
    "investments.valid_pair": _valid_pair,
    "investments.value_bounds": _value_bounds,
    "investments.best_pair": _best_pair,
    "investments.optimise_swap": _optimise_swap,
    "investments.optimise_gain": _optimise_gain,
    "victory.count_value": _count_value,
    "victory.count_wins": lambda p: portfolio(p["pairs"]) >= cards.VICTORY_VALUE,
    "victory.threshold": lambda p: cards.VICTORY_VALUE,
    "victory.investments_needed": lambda p: cards.INVESTMENTS_TO_WIN,
    "strategies.colour_of": lambda p: cards.strategy(p["kind"]).colour,
    "strategies.copies_of": lambda p: _deck_copies(p["kind"]),
    "strategies.colour_count": _colour_count,
    "strategies.kinds": lambda p: len({cards.kind_of(c).key for c in table().strategy_deck}),
    "combat.is_attack": lambda p: cards.strategy(p["kind"]).is_attack,
    "combat.cards_to_discard": _cards_to_discard,
    "combat.blue_by_effect": lambda p: cards.strategy(p["kind"]).name,
    "cards.red_by_effect": lambda p: cards.strategy(p["kind"]).name,
    "cards.draw_counts": lambda p: {"buy_more": cards.BUY_MORE_DRAWS, "liquidity": cards.LIQUIDITY_DRAWS,
                                    "lucky_investor": cards.LUCKY_INVESTOR_DRAWS}[p["kind"]],
    "cards.maximum_return": lambda p: _green_count("maximum_return", p),
    "cards.short_investment": lambda p: _green_count("short_investment", p),
    "terms.leaders": _leaders,
    "terms.last_place": _last,
    "terms.equal_or_ahead": _equal_or_ahead,
    "terms.building_card": lambda p: cards.is_building({"a Stock": "S.energy.1", "a Return": "R.energy.1",
                                                        "a Strategy": "X.theft.1"}[p["kind"]]),
    "terms.correction_target": _correction,
    "terms.bailout_allowed": lambda p: _red_playable(p["counts"], "bailout", None),
    "modes.match_target": lambda p: MarketFortuneConfig().match_target,
    "victory.short_count": _short_count,
    "modes.family_low_count": _family_low_count,
    "die.risk_minus": _risk_minus,
    "investments.optimise_cost": _optimise_cost,
    "investments.optimise_per_turn": _optimise_per_turn,
    "investments.optimise_flipped": _optimise_flipped,
    "victory.hold_back": _hold_back,
    "victory.momentum_count": _momentum_count,
    "turn.dominate_colour": _dominate_colour,
    "modes.championship_opener": _championship_opener,
    "modes.match_limit": lambda p: MarketFortuneConfig().match_game_limit,
}
"""Template id -> the engine's answer from the question's drawn parameters."""


def _fraction(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


RULEBOOK_FACTS: dict[str, tuple[Answer, str]] = {
    "die.fortune_no_roll": (False, "without rolling the die"),
    "turn.reds_per_turn": (1, "At most one red may be played per turn"),
    "strategies.blue_when": ("only in a defence window, when you are the target of an attack",
                             "A blue can only be played in a defence window"),
    "strategies.greens_per_investment": (1, "An investment can carry at most one green"),
    "strategies.no_limit": (False, "a strategy hand may hold any number of cards"),
    "combat.blues_per_window": (1, "at most one per window"),
    "combat.defence_order": ("clockwise from the attacker", "in clockwise order starting after the attacker"),
    "combat.window_without_blue": (True, "window opens for every target even when it holds no blue"),
    "combat.optimise_under_attack": (False, "Nobody may optimise while an attack is being resolved"),
    "modes.family_win": ("by forming its 4th investment, with no count", "forming a 4th investment wins at once"),
    "modes.locked_discard": (False, "While it is the top card nobody can take"),
}
"""Template id -> (the answer, the rulebook sentence that states it)."""


def rule_answer(template: str, params: dict[str, Any]) -> Answer | None:
    """Answers that depend on parameters but are stated by the rulebook's tables and text."""
    if template == "strategies.red_on_action":
        return bool(params["action"] == "Dominate")  # 6.2: reds only on your own Dominate turn
    if template == "combat.targets":
        return {"none": "no opponent: it only affects you", "one": "one opponent you choose",
                "all": "every opponent", "group": "every opponent who meets its condition"}[
            cards.strategy(params["kind"]).targeting]
    if template == "cards.turn_effects":
        return {"shrewd_move": "you take another turn right after this one",
                "regulatory_block": "the target loses its next turn",
                "fortune": "you form an investment without rolling"}[params["kind"]]
    if template == "modes.which_mode":
        return str(params["mode"])
    return None
