"""The Hab & Gut admission quiz: every answer is the engine's, every puzzle is solvable and hard to guess.

Question answers are recomputed here by running the engine on a hand-made
table (or, for rules stated in prose, by finding the rule in the rulebook), not
by repeating the template's arithmetic.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from engine.core import IllegalAction, InvalidConfig
from engine.hab_und_gut import GAME
from engine.hab_und_gut.components import COMMODITIES, MARKET_CARDS, SHARE_CARDS, TRACK
from engine.hab_und_gut.state import HabConfig, HabState
from quiz import MAX_GUESS_CHANCE, IssuedQuestion, PassRule, generate, get_bank, grade
from tests.engine.hab_und_gut.conftest import view_of

ROOT = Path(__file__).resolve().parents[3]
RULEBOOK = ROOT / "engine" / "hab_und_gut" / "rulebook.md"
BANK = get_bank("hab-und-gut")
CHALLENGES = 300


def _table(seats: int = 4) -> HabState:
    return GAME.new_table(HabConfig(seats=seats), 77)


def _at(state: HabState, commodity: str, space: int) -> HabState:
    spaces = list(state.prices)
    spaces[COMMODITIES.index(commodity)] = space
    return state.model_copy(update={"prices": tuple(spaces)})


def _apply_ids(state: HabState, seat: int, ids: list[str]) -> tuple[HabState, int]:
    """Apply ids while legal; returns the state and how many were accepted."""
    done = 0
    for action_id in ids:
        try:
            state, _ = GAME.apply(state, seat, GAME.parse_action(action_id))
        except IllegalAction:
            break
        done += 1
    return state, done


def _play_turns(state: HabState, turns: int) -> HabState:
    for _ in range(turns):
        turn = state.turn
        while state.turn == turn and state.phase != "over":
            state, _ = GAME.apply(state, state.actor, GAME.default_action(state, state.actor))
    return state


def _market_card_move(params: dict[str, Any], mode: str) -> int:
    commodity, value, space = params["commodity"], params["value"], params["space"]
    card = next(
        c.id for c in MARKET_CARDS.values() if c.commodity == commodity and c.value == value
    )
    state = _at(_table(), commodity, space)
    holders = [tuple(c for c in h if c != card) for h in state.holders]
    deck = tuple(c for c in state.deck if c != card)
    # Holders hold sorted ids (state.py), as the engine deals them.
    if mode == "full":
        holders[0] = tuple(sorted((*holders[0], card)))
    else:
        holders[3] = tuple(sorted((*holders[3], card)))  # seat 0's right holder
    state = state.model_copy(update={"holders": tuple(holders), "deck": deck})
    while state.phase == "stock":
        state, _ = GAME.apply(state, state.actor, GAME.parse_action("end"))
    if mode == "full":
        state, _ = GAME.apply(state, 0, GAME.parse_action(f"play:left:{commodity}{value:+d}"))
    else:
        # The full card must not touch the commodity the question is about.
        full = next(
            a
            for a in GAME.legal_actions(state, 0)
            if a.id.startswith("play:left:") and not a.id.startswith(f"play:left:{commodity}")
        )
        state, _ = GAME.apply(state, 0, full)
        state, _ = GAME.apply(state, 0, GAME.parse_action(f"halve:right:{commodity}{value:+d}"))
    return TRACK[state.prices[COMMODITIES.index(commodity)]]


def _settle(donations: list[int], money: list[int] | None = None) -> HabState:
    """Play a table to its last pick, give the seats these figures, and let the engine settle."""
    seats = len(donations)
    state = _play_turns(GAME.new_table(HabConfig(seats=seats), 5), 7)
    while state.phase == "stock":
        state, _ = GAME.apply(state, state.actor, GAME.parse_action("end"))
    while not (state.order_index == seats - 1 and state.full_side is not None):
        state, _ = GAME.apply(state, state.actor, GAME.default_action(state, state.actor))
    state = state.model_copy(
        update={
            "charity_money": tuple(donations),
            "money": tuple(money) if money else state.money,
            "shares": ((),) * seats,
            "charity": ((),) * seats,
            "supply": tuple(sorted(SHARE_CARDS)),
        }
    )
    state, _ = GAME.apply(state, state.actor, GAME.default_action(state, state.actor))
    assert state.phase == "over"
    return state


def _seat_words(seats: list[int] | tuple[int, ...]) -> str:
    if not seats:
        return "nobody"
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(str(s) for s in seats[:-1]) + f" and {seats[-1]}"


def _seats_allowed(p: dict[str, Any]) -> bool:
    try:
        GAME.new_table(HabConfig(seats=p["seats"]), 1)
    except InvalidConfig:
        return False
    return True


def _holders_seen(p: dict[str, Any]) -> str:
    numbers = sorted(h.holder for h in view_of(_table(p["seats"]), p["seat"]).holders)
    return f"holders {numbers[0]} and {numbers[1]}"


def _first_player(p: dict[str, Any]) -> int:
    return _play_turns(_table(p["seats"]), p["turn"] - 1).first_player


def _purchase_cost(p: dict[str, Any]) -> int:
    state = _at(_table(), p["commodity"], p["space"]).model_copy(update={"money": (10_000,) * 4})
    after, done = _apply_ids(state, 0, [f"buy:{p['commodity']}"] * p["count"])
    assert done == p["count"]
    return state.money[0] - after.money[0]


def _affordable(p: dict[str, Any]) -> int:
    state = _at(_table(), p["commodity"], p["space"])
    state = state.model_copy(update={"money": (p["money"],) * 4})
    return _apply_ids(state, 0, [f"buy:{p['commodity']}"] * 10)[1]


def _sell_at_zero(p: dict[str, Any]) -> int:
    state = _table()
    cards = tuple(sorted(SHARE_CARDS))[: p["count"]]  # coal shares
    state = _at(state, "coal", 0).model_copy(
        update={"shares": (cards, (), (), ()), "supply": tuple(sorted(SHARE_CARDS))[p["count"] :]}
    )
    after, _ = _apply_ids(state, 0, ["sell:coal"] * p["count"])
    return after.money[0] - state.money[0]


def _trade_limit(p: dict[str, Any]) -> int:
    state = _at(_table(), "coal", 1).model_copy(update={"money": (10_000,) * 4})
    return _apply_ids(state, 0, ["buy:coal"] * 10)[1]


def _charity_per_phase(p: dict[str, Any]) -> int:
    state, _ = _apply_ids(_table(), 0, ["buy:coal", "buy:coal", "buy:coal"])
    return _apply_ids(state, 0, ["donate:coal"] * 3)[1]


def _holder_left(p: dict[str, Any]) -> int:
    return len(_play_turns(_table(), p["turns"]).holders[0])


def _who_is_out(p: dict[str, Any]) -> str:
    return _seat_words(_settle(p["donations"]).eliminated)


def _who_wins(p: dict[str, Any]) -> str:
    return _seat_words(_settle(p["donations"], p["money"]).winners)


def _cards_of_face(p: dict[str, Any]) -> int:
    state = _table()
    every = [*state.deck, *(c for h in state.holders for c in h)]
    return sum(
        1
        for c in every
        if MARKET_CARDS[c].commodity == p["commodity"] and MARKET_CARDS[c].value == p["value"]
    )


ENGINE_ANSWERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "components.track_spaces": lambda p: len(TRACK),
    "components.price_on_space": lambda p: (
        view_of(_at(_table(), "coal", p["space"]), None).prices[0].price
    ),
    "components.top_price": lambda p: view_of(_at(_table(), "coal", 29), None).prices[0].price,
    "components.cards_of_face": _cards_of_face,
    "components.market_deck_size": lambda p: len(
        _table().deck + tuple(c for h in _table().holders for c in h)
    ),
    "components.shares_per_commodity": lambda p: sum(
        1 for c in _table().supply if SHARE_CARDS[c].commodity == p["commodity"]
    ),
    "setup.start_money": lambda p: _table().money[0],
    "setup.start_price": lambda p: next(
        x.price for x in view_of(_table(), None).prices if x.commodity == p["commodity"]
    ),
    "setup.undealt": lambda p: len(_table(p["seats"]).deck),
    "setup.seats_allowed": _seats_allowed,
    "setup.holders_seen": _holders_seen,
    "turn.turns_per_game": lambda p: _play_turns(_table(3), 8).turn,
    "turn.first_player": _first_player,
    "stock.trade_limit": _trade_limit,
    "stock.buy_and_sell": lambda p: (
        _apply_ids(
            _table().model_copy(update={"shares": ((tuple(sorted(SHARE_CARDS))[-1],), (), (), ())}),
            0,
            ["buy:coal", "sell:wheat"],
        )[1]
        == 2
    ),
    "stock.purchase_cost": _purchase_cost,
    "stock.affordable": _affordable,
    "stock.buy_at_zero": lambda p: (
        _apply_ids(_at(_table(), p["commodity"], 0), 0, [f"buy:{p['commodity']}"])[1] == 1
    ),
    "stock.sell_at_zero": _sell_at_zero,
    "stock.charity_per_phase": _charity_per_phase,
    "stock.charity_just_bought": lambda p: (
        _apply_ids(_table(), 0, ["buy:tea", "donate:tea"])[1] == 2
    ),
    "market.price_after_full": lambda p: _market_card_move(p, "full"),
    "market.price_after_half": lambda p: _market_card_move(p, "half"),
    "market.holder_left": _holder_left,
    "round_end.reshuffled": lambda p: (
        sum(len(h) for h in _play_turns(_table(5), 4).holders) + len(_play_turns(_table(5), 4).deck)
    ),
    "game_end.who_is_out": _who_is_out,
    "game_end.all_tied": lambda p: len(_settle([p["given"]] * p["seats"]).eliminated),
    "game_end.who_wins": _who_wins,
}
"""Template id -> the answer found by running the engine on the question's parameters."""

RULEBOOK_FACTS: dict[str, tuple[Any, str]] = {
    "market.same_holder": (False, "Taking both cards from the same holder is not allowed."),
    "round_end.charity_proceeds": (None, "Each of its shares is sold at the current price"),
    "round_end.charity_spendable": (False, "Charity money is frozen: it can never be spent"),
    "round_end.prices_reset": (False, "Prices stay where they are."),
    "game_end.charity_not_wealth": (False, "it is not the seat's own money."),
    "information.far_holder": (False, "A seat sees into its two holders and no other."),
    "information.deck_seen": (False, "The set-aside market cards are seen by nobody."),
    "information.money_public": (True, "each seat's money"),
    "information.donation_commodity": (False, "that a seat gave a share to charity (not which)"),
    "turn.phase_order": (
        "the stock phase (trading shares)",
        "Each turn has a stock phase (4) followed by a market phase (5).",
    ),
}
"""Prose rules: the expected answer (``None``: arithmetic on the listed prices) and the
rulebook sentence that states it."""


@cache
def _rulebook() -> str:
    return " ".join(RULEBOOK.read_text(encoding="utf-8").split())


def _expected_value(issued: IssuedQuestion) -> Any:
    question = issued.question
    if question.format == "single_choice":
        return next(o.text for o in question.options if o.id == issued.expected)
    if question.format == "integer":
        return int(issued.expected)
    return issued.expected == "yes"


@cache
def _engine_answer(template: str, frozen: str) -> Any:
    return ENGINE_ANSWERS[template](json.loads(frozen))


def _independent_answer(issued: IssuedQuestion) -> Any:
    template = issued.question.template
    if template in ENGINE_ANSWERS:
        return _engine_answer(template, json.dumps(issued.params, sort_keys=True))
    answer, sentence = RULEBOOK_FACTS[template]
    assert " ".join(sentence.split()) in _rulebook(), (template, sentence)
    if answer is None:
        return sum(issued.params["prices"])
    return answer


def test_the_bank_is_registered_with_enough_templates_and_real_sections() -> None:
    assert BANK.rulebook == "engine/hab_und_gut/rulebook.md"
    assert len(BANK.templates) >= 25
    assert len(BANK.categories) >= 3
    headings = set(re.findall(r"^#{2,3} ([0-9.]+) ", RULEBOOK.read_text(), re.MULTILINE))
    for template in BANK.templates:
        assert template.section in headings, template.id
        assert template.id in ENGINE_ANSWERS or template.id in RULEBOOK_FACTS, template.id
    assert {kind.name for kind in BANK.puzzle_kinds} == {"price_moves", "final_reckoning"}


def test_every_template_answers_what_the_engine_does() -> None:
    import random

    from quiz.questions import render

    for template in BANK.templates:
        for draw in range(12):
            issued = render(template, random.Random(f"{template.id}:{draw}"), 1)
            assert _expected_value(issued) == _independent_answer(issued), (
                template.id,
                issued.params,
            )


def test_seeded_challenges_have_distinct_categories_and_engine_answers() -> None:
    for seed in range(CHALLENGES):
        challenge = generate(BANK, seed)
        categories = [q.question.category for q in challenge.questions]
        assert len(set(categories)) == 3
        for issued in challenge.questions:
            assert _expected_value(issued) == _independent_answer(issued)
        if seed % 10 == 0:
            right = {q.question.id: _right_answer(q) for q in challenge.questions}
            kind = BANK.puzzle_kind(challenge.puzzle.puzzle.kind)
            result = grade(BANK, challenge, right, kind.solve(challenge.puzzle))
            assert PassRule().passes(result)
            wrong = grade(BANK, challenge, {}, {"nothing": 1})
            assert wrong.questions_correct == 0 and not wrong.puzzle_solved


def _right_answer(issued: IssuedQuestion) -> Any:
    if issued.question.format == "integer":
        return int(issued.expected)
    if issued.question.format == "yes_no":
        return issued.expected == "yes"
    return issued.expected


@pytest.mark.parametrize("kind_name", ["price_moves", "final_reckoning"])
def test_puzzles_are_solvable_hard_to_guess_and_strictly_checked(kind_name: str) -> None:
    kind = BANK.puzzle_kind(kind_name)
    for seed in range(25):
        issued = kind.generate(seed)
        assert kind.guess_chance(issued) <= MAX_GUESS_CHANCE
        solution = kind.solve(issued)
        assert kind.check(issued, solution)
        assert kind.generate(seed) == issued
        shown = json.dumps(issued.puzzle.model_dump())
        assert str(issued.secret["game_seed"]) not in shown
        for junk in ({}, {"x": 1}, {key: "1" for key in solution}):
            assert not kind.check(issued, junk)
        for wrong in _near_misses(kind_name, solution):
            assert not kind.check(issued, wrong)


def _near_misses(kind_name: str, solution: dict[str, Any]) -> list[dict[str, Any]]:
    """Answers one step away from the right one."""
    misses: list[dict[str, Any]] = []
    if kind_name == "price_moves":
        for commodity, price in solution["prices"].items():
            space = TRACK.index(price)
            other = TRACK[space - 1] if space else TRACK[1]
            misses.append({"prices": {**solution["prices"], commodity: other}})
        return misses
    for key in ("donations", "final_money"):
        bumped = list(solution[key])
        bumped[0] += 5
        misses.append({**solution, key: bumped})
    seats = len(solution["donations"])
    for key in ("eliminated", "winners"):
        others = [s for s in range(seats) if s not in solution[key]]
        misses.append({**solution, key: [*solution[key], others[0]]})
        misses.append({**solution, key: solution[key][1:]})
    return misses
