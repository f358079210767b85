"""Puzzle: the best Risk each seat could attempt from its hand.

Situation: every seat's building hand at one moment of a seeded game. Task:
for each seat, the Stock + Return pair it could put at stake in a Risk (3.3,
same industry, no Innovation) with the highest value, or ``null`` when it has
no such pair. Any pair of the highest value passes.

Random-guess model: for each seat independently, a guess names one of its
Stocks with one of its Returns, or ``null``: ``stocks * returns + 1`` choices
per seat.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from quiz.market_fortune.puzzles.answers import AnswerModel, CardPair, pair_misfits, parse
from quiz.market_fortune.puzzles.situations import investment_value, valid_pairs, walk
from quiz.model import IssuedPuzzle, Puzzle
from quiz.puzzles import MAX_GUESS_CHANCE, Misfit, UnsolvablePuzzle

__all__ = ["BestRisks", "best_pairs"]


class _Answer(AnswerModel):
    risks: dict[str, CardPair | None]


def best_pairs(hand: list[str]) -> list[tuple[str, str]]:
    """The engine-valid pairs of ``hand`` with the highest value (empty when none)."""
    stocks = [card for card in hand if card.startswith("S.")]
    returns = [card for card in hand if card.startswith("R.")]
    pairs = valid_pairs(stocks, returns)
    if not pairs:
        return []
    top = max(investment_value(s, r) for s, r in pairs)
    return sorted(pair for pair in pairs if investment_value(*pair) == top)


class BestRisks:
    """The ``best_risks`` puzzle kind (sections 3.3, 5.1)."""

    name = "best_risks"
    answer_model = _Answer

    def generate(self, seed: int) -> IssuedPuzzle:
        """A moment of a seeded game whose hands make a hard guess; see the module docstring."""
        rng = random.Random(seed)
        for _attempt in range(20):
            game_seed = rng.getrandbits(62)
            seats = rng.randint(4, 6)
            state = walk(game_seed, seats=seats, wanted=self._fits, min_steps=rng.randint(0, 60))
            if state is None:
                continue
            hands = {str(i): list(seat.hand) for i, seat in enumerate(state.seats)}
            issued = IssuedPuzzle(
                puzzle=Puzzle(
                    kind=self.name,
                    title="The best Risk at every seat",
                    sections=("3.3", "5.1"),
                    prompt=(
                        f"A seeded {seats}-seat Fortune game after {state.turn} turns; these are the "
                        "building hands of all seats. For every seat, name the Stock and the Return "
                        "of the same industry (no Innovation) that it could put at stake in a Risk "
                        "with the highest investment value, or null if that seat has no such pair. "
                        "When several pairs tie for the highest value, any of them passes."
                    ),
                    situation={"hands": hands},
                    answer_format=(
                        '{"risks": {"0": ["<Stock id>", "<Return id>"], "1": null, ...}} '
                        "with one entry per seat number"
                    ),
                )
            )
            if self.check(issued, self.solve(issued)):
                return issued
        raise UnsolvablePuzzle(f"{self.name}: no fitting situation for seed {seed}")

    @classmethod
    def _fits(cls, state: Any) -> bool:
        if state.tasks or state.attack is not None:
            return False
        hands = {str(i): list(seat.hand) for i, seat in enumerate(state.seats)}
        return cls._chance(hands) <= MAX_GUESS_CHANCE

    @staticmethod
    def _chance(hands: Mapping[str, list[str]]) -> Fraction:
        chance = Fraction(1)
        for hand in hands.values():
            stocks = sum(1 for card in hand if card.startswith("S."))
            returns = sum(1 for card in hand if card.startswith("R."))
            best = best_pairs(hand)
            chance *= Fraction(max(1, len(best)), stocks * returns + 1)
        return chance

    def misfits(self, issued: IssuedPuzzle, answer: Mapping[str, Any]) -> list[Misfit]:
        """One entry per seat shown, each null or a Stock id then a Return id."""
        parsed = _Answer.model_validate(dict(answer))
        seats = sorted(issued.puzzle.situation["hands"], key=int)
        misfits: list[Misfit] = []
        missing = [seat for seat in seats if seat not in parsed.risks]
        unknown = sorted(set(parsed.risks) - set(seats))
        if missing:
            misfits.append((("risks",), f"Must have an entry for every seat shown; missing: {', '.join(missing)}"))
        for seat in unknown:
            misfits.append((("risks", seat), f"No such seat; the seats are {', '.join(seats)}"))
        for seat, pair in sorted(parsed.risks.items()):
            if pair is not None:
                misfits += pair_misfits(("risks", seat), pair)
        return misfits

    def check(self, issued: IssuedPuzzle, answer: Mapping[str, Any]) -> bool:
        """Every seat answered with one of its best pairs, or null when it has none."""
        parsed = parse(_Answer, answer)
        hands: dict[str, list[str]] = issued.puzzle.situation["hands"]
        if parsed is None or set(parsed.risks) != set(hands):
            return False
        for seat, hand in hands.items():
            best = best_pairs(hand)
            named = parsed.risks[seat]
            if (named is None and best) or (named is not None and (named[0], named[1]) not in best):
                return False
        return True

    def solve(self, issued: IssuedPuzzle) -> dict[str, Any]:
        """The first best pair of every seat."""
        hands: dict[str, list[str]] = issued.puzzle.situation["hands"]
        risks: dict[str, list[str] | None] = {}
        for seat, hand in hands.items():
            best = best_pairs(hand)
            risks[seat] = list(best[0]) if best else None
        return {"risks": risks}

    def guess_chance(self, issued: IssuedPuzzle) -> Fraction:
        """The product over seats of best pairs (or null) over that seat's choices."""
        return self._chance(issued.puzzle.situation["hands"])
