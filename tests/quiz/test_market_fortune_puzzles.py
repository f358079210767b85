"""Market Fortune puzzle kinds: any correct answer passes, wrong and malformed ones fail,
and the guess chance each kind reports is the exact share of passing guesses."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb, factorial
from typing import Any

import pytest

from engine.market_fortune import cards
from quiz import MAX_GUESS_CHANCE, IssuedPuzzle
from quiz.market_fortune.puzzles import PUZZLE_KINDS, BestPortfolio, BestRisks, Defence
from quiz.market_fortune.puzzles.best_portfolio import best_sets
from quiz.market_fortune.puzzles.situations import investment_value, valid_pairs

SEEDS = range(25)
MALFORMED: list[Any] = [
    {}, {"investments": None}, {"risks": []}, {"defences": "all"}, {"extra": 1},
    {"investments": [["S.energy.5"]]}, {"risks": {"0": ["S.energy.5", 3]}},
    {"defences": [], "if_declined": {"investments": "1", "hand": 0, "strategies": 0}},
]  # fmt: skip


@pytest.mark.parametrize("kind", PUZZLE_KINDS, ids=lambda k: k.name)
def test_generated_puzzles_are_solvable_hard_to_guess_and_refuse_junk(kind: Any) -> None:
    for seed in SEEDS:
        issued = kind.generate(seed)
        assert issued == kind.generate(seed)  # seeded
        assert issued.puzzle.kind == kind.name
        assert kind.check(issued, kind.solve(issued))
        assert 0 < kind.guess_chance(issued) <= MAX_GUESS_CHANCE
        for junk in MALFORMED:
            assert not kind.check(issued, junk)


def _portfolio_puzzle(seed: int) -> IssuedPuzzle:
    return BestPortfolio().generate(seed)


def test_best_portfolio_accepts_every_best_set_and_only_those() -> None:
    kind = BestPortfolio()
    for seed in range(6):
        issued = _portfolio_puzzle(seed)
        stocks = issued.puzzle.situation["stock_pile"]
        returns = issued.puzzle.situation["return_pile"]
        pairs = sorted(valid_pairs(stocks, returns))
        # brute force over every four disjoint valid pairs: the greatest total and its sets
        totals: dict[int, int] = {}
        accepted = 0
        for chosen in itertools.combinations(pairs, 4):
            used = [card for pair in chosen for card in pair]
            if len(set(used)) != 8:
                continue
            total = sum(investment_value(s, r) for s, r in chosen)
            totals[total] = totals.get(total, 0) + 1
            if kind.check(issued, {"investments": [list(pair) for pair in reversed(chosen)]}):
                accepted += 1
        best = max(totals)
        assert accepted == totals[best]
        found = best_sets(stocks, returns)
        assert found is not None and found[0] == best and found[1] == accepted
        space = comb(len(stocks), 4) * comb(len(returns), 4) * factorial(4)
        assert kind.guess_chance(issued) == Fraction(accepted, space)
        # a pair across two industries never passes, even with a high total
        solution = kind.solve(issued)["investments"]
        # Cross two pairs of different industries (two pairs of one industry cross into valid pairs).
        i, j = next((i, j) for i, j in itertools.combinations(range(4), 2)
                    if cards.card_industry(solution[i][0]) != cards.card_industry(solution[j][0]))
        crossed = [pair for n, pair in enumerate(solution) if n not in (i, j)]
        crossed += [[solution[i][0], solution[j][1]], [solution[j][0], solution[i][1]]]
        assert not kind.check(issued, {"investments": crossed})
        assert not kind.check(issued, {"investments": solution[:3]})
        assert not kind.check(issued, {"investments": [*solution[:3], solution[0]]})


def test_best_risks_exact_guess_chance_and_ties() -> None:
    kind = BestRisks()
    for seed in range(8):
        issued = kind.generate(seed)
        solution = kind.solve(issued)
        hands: dict[str, list[str]] = issued.puzzle.situation["hands"]
        chance = Fraction(1)
        for seat, hand in hands.items():
            stocks = [c for c in hand if c.startswith("S.")]
            returns = [c for c in hand if c.startswith("R.")]
            options: list[list[str] | None] = [[s, r] for s in stocks for r in returns] + [None]
            passing = 0
            for option in options:
                answer = {"risks": {**solution["risks"], seat: option}}
                if kind.check(issued, answer):
                    passing += 1
                    if option is not None:
                        assert cards.card_industry(option[0]) == cards.card_industry(option[1])
            assert passing >= 1
            chance *= Fraction(passing, len(options))
        assert kind.guess_chance(issued) == chance
        missing_seat = dict(solution["risks"])
        missing_seat.pop(next(iter(missing_seat)))
        assert not kind.check(issued, {"risks": missing_seat})


INVESTMENT_TAKERS = {"market_crash", "correction", "systemic_risk"}
"""12.18: the attacks Diamond Hands may answer (they take investments)."""


def _declined_by_rulebook(situation: dict[str, Any]) -> dict[str, int]:
    """What declining costs, read from section 12 card by card."""
    key = cards.kind_of(situation["attack_card"]).key
    you, attacker = situation["you"], situation["attacker"]
    investments = situation["your_investments"]
    hand = len(situation["your_hand"])
    strategies = len(situation["your_strategies"])
    if key in ("theft", "inflation") and hand:
        hand -= 1
    elif key == "negotiation" and not situation["building_cards_per_seat"][attacker]:
        hand -= 1 if hand else 0
    elif key == "market_crash":
        investments = 0
    elif key in ("correction", "systemic_risk") and investments:
        investments, hand = investments - 1, hand + 2
    elif key == "federal_audit" and strategies:
        strategies -= 1
    assert situation["investments_per_seat"][you] == situation["your_investments"]
    return {"investments": investments, "hand": hand, "strategies": strategies}


def test_defence_agrees_with_the_rulebook_and_has_one_answer() -> None:
    kind = Defence()
    for seed in range(20):
        issued = kind.generate(seed)
        situation = issued.puzzle.situation
        attack = cards.kind_of(situation["attack_card"])
        assert attack.colour == "red" and attack.is_attack
        blues = [
            card for card in situation["your_strategies"]
            if cards.kind_of(card).colour == "blue"
            and (cards.kind_of(card).key != "diamond_hands" or attack.key in INVESTMENT_TAKERS)
        ]  # fmt: skip
        expected: dict[str, Any] = {"defences": sorted(blues), "if_declined": _declined_by_rulebook(situation)}
        assert kind.solve(issued) == expected
        assert kind.check(issued, expected)
        # exactly one subset of the strategy hand passes
        hand = situation["your_strategies"]
        passing = [
            subset for size in range(len(hand) + 1) for subset in itertools.combinations(hand, size)
            if kind.check(issued, {**expected, "defences": list(subset)})
        ]  # fmt: skip
        assert passing == [tuple(blues)]
        for field in ("investments", "hand", "strategies"):
            off = {**expected["if_declined"], field: expected["if_declined"][field] + 1}
            assert not kind.check(issued, {**expected, "if_declined": off})
        assert not kind.check(issued, {**expected, "defences": expected["defences"] * 2 or ["X.theft.1"]})
