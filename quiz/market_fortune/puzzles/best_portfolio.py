"""Puzzle: the four most valuable investments that the discard piles hold.

Situation: the Stock and Return discard piles (public, 4.2) of a seeded game
after some turns. Task: four investments (5.1: a Stock and a Return of one
industry, no Innovation) from those cards with the greatest total value. Any
set reaching the greatest total passes.

Random-guess model: a guess picks 4 distinct Stocks and 4 distinct Returns
from the piles and pairs them uniformly; ``C(s,4) * C(r,4) * 4!`` guesses.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import comb, factorial
from typing import Any

from engine.market_fortune.cards import INVESTMENTS_TO_WIN, card_industry, card_value
from quiz.market_fortune.puzzles.answers import AnswerModel, CardPair, pair_misfits, parse
from quiz.market_fortune.puzzles.situations import investment_value, valid_pairs, walk
from quiz.model import IssuedPuzzle, Puzzle
from quiz.puzzles import MAX_GUESS_CHANCE, Misfit, UnsolvablePuzzle

__all__ = ["BestPortfolio", "best_sets"]

MIN_PILE = 8
"""Smallest pile size a situation is taken at (smaller piles are too easy to guess)."""


class _Answer(AnswerModel):
    investments: list[CardPair]


def best_sets(stocks: Sequence[str], returns: Sequence[str]) -> tuple[int, int, list[tuple[str, str]]] | None:
    """(best total, number of best sets, one best set) of four disjoint valid pairs, or None.

    Within an industry the best ``m`` pairs use its ``m`` highest Stocks and
    ``m`` highest Returns (each value exists once per industry and type, so
    that choice is unique), paired any of ``m!`` ways; a dynamic programme
    over industries then adds up the ways to reach the best total.
    """
    pairs = valid_pairs(stocks, returns)
    by_industry: dict[str, tuple[list[str], list[str]]] = {}
    for stock, ret in pairs:
        industry = card_industry(stock)
        entry = by_industry.setdefault(industry, ([], []))
        if stock not in entry[0]:
            entry[0].append(stock)
        if ret not in entry[1]:
            entry[1].append(ret)
    # best[k] = (total, ways, chosen pairs) over the industries seen so far
    best: dict[int, tuple[int, int, list[tuple[str, str]]]] = {0: (0, 1, [])}
    for industry in sorted(by_industry):
        own_stocks = sorted(by_industry[industry][0], key=card_value, reverse=True)
        own_returns = sorted(by_industry[industry][1], key=card_value, reverse=True)
        merged: dict[int, tuple[int, int, list[tuple[str, str]]]] = {}
        for k, (total, ways, chosen) in best.items():
            for m in range(0, min(len(own_stocks), len(own_returns), INVESTMENTS_TO_WIN - k) + 1):
                picked = list(zip(own_stocks[:m], own_returns[:m], strict=True))
                value = total + sum(investment_value(s, r) for s, r in picked)
                count = ways * factorial(m)
                current = merged.get(k + m)
                if current is None or value > current[0]:
                    merged[k + m] = (value, count, chosen + picked)
                elif value == current[0]:
                    merged[k + m] = (value, current[1] + count, current[2])
        best = merged
    return best.get(INVESTMENTS_TO_WIN)


class BestPortfolio:
    """The ``best_portfolio`` puzzle kind (sections 4.2, 5.1, 8.1)."""

    name = "best_portfolio"
    answer_model = _Answer

    def generate(self, seed: int) -> IssuedPuzzle:
        """A pile situation from a seeded game; see the module docstring."""
        rng = random.Random(seed)
        for _attempt in range(20):
            game_seed = rng.getrandbits(62)
            seats = rng.randint(3, 5)
            state = walk(game_seed, seats=seats, wanted=self._fits)
            if state is None:
                continue
            issued = IssuedPuzzle(
                puzzle=Puzzle(
                    kind=self.name,
                    title="The best portfolio on the discard piles",
                    sections=("4.2", "5.1", "8.1"),
                    prompt=(
                        f"A seeded {seats}-seat Fortune game after {state.turn} turns. Suppose you could "
                        "take any of the cards lying on the Stock and Return discard piles. Form four "
                        "investments from them (each one Stock and one Return of the same industry; no "
                        "Innovation; each card used once) whose total value (Stock + Return, no "
                        "Strategies) is as great as possible. Any four reaching the greatest total pass."
                    ),
                    situation={
                        "stock_pile": list(state.stock_pile),
                        "return_pile": list(state.return_pile),
                    },
                    answer_format=(
                        '{"investments": [["<Stock id>", "<Return id>"], ... four pairs]}, '
                        'for example {"investments": [["S.energy.5", "R.energy.4"], ...]}'
                    ),
                )
            )
            if self.guess_chance(issued) <= MAX_GUESS_CHANCE and self.check(issued, self.solve(issued)):
                return issued
        raise UnsolvablePuzzle(f"{self.name}: no fitting situation for seed {seed}")

    @staticmethod
    def _fits(state: Any) -> bool:
        if len(state.stock_pile) < MIN_PILE or len(state.return_pile) < MIN_PILE:
            return False
        return best_sets(state.stock_pile, state.return_pile) is not None

    @staticmethod
    def _piles(issued: IssuedPuzzle) -> tuple[list[str], list[str]]:
        situation = issued.puzzle.situation
        return list(situation["stock_pile"]), list(situation["return_pile"])

    def misfits(self, issued: IssuedPuzzle, answer: Mapping[str, Any]) -> list[Misfit]:
        """Exactly four pairs, each a Stock id then a Return id."""
        parsed = _Answer.model_validate(dict(answer))
        misfits: list[Misfit] = []
        if len(parsed.investments) != INVESTMENTS_TO_WIN:
            misfits.append((("investments",), f"Must list exactly {INVESTMENTS_TO_WIN} investments, "
                            f"not {len(parsed.investments)}"))
        for index, pair in enumerate(parsed.investments):
            misfits += pair_misfits(("investments", str(index)), pair)
        return misfits

    def check(self, issued: IssuedPuzzle, answer: Mapping[str, Any]) -> bool:
        """Four disjoint engine-valid pairs from the piles reaching the best total."""
        parsed = parse(_Answer, answer)
        stocks, returns = self._piles(issued)
        best = best_sets(stocks, returns)
        if parsed is None or best is None or len(parsed.investments) != INVESTMENTS_TO_WIN:
            return False
        chosen = [(pair[0], pair[1]) for pair in parsed.investments]
        used = [card for pair in chosen for card in pair]
        if len(set(used)) != len(used):
            return False
        allowed = valid_pairs(stocks, returns)
        if any(pair not in allowed for pair in chosen):
            return False
        return sum(investment_value(s, r) for s, r in chosen) == best[0]

    def solve(self, issued: IssuedPuzzle) -> dict[str, Any]:
        """One best set."""
        best = best_sets(*self._piles(issued))
        if best is None:
            raise UnsolvablePuzzle(self.name)
        return {"investments": [list(pair) for pair in best[2]]}

    def guess_chance(self, issued: IssuedPuzzle) -> Fraction:
        """Best sets over every pick of 4 Stocks and 4 Returns, paired."""
        stocks, returns = self._piles(issued)
        best = best_sets(stocks, returns)
        if best is None:
            return Fraction(0)
        space = comb(len(stocks), 4) * comb(len(returns), 4) * factorial(4)
        return Fraction(best[1], space)
