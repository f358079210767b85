"""Seeded challenges and their grading.

:func:`generate` draws a challenge from a bank: questions from distinct
categories (chosen at random, then one template in each) and one puzzle of a
random kind. :func:`grade` checks a submission and reports a score and the
categories missed, never an expected answer. :class:`PassRule` says what a
pass is (by default every question and the puzzle).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from quiz.bank import QuizBank
from quiz.model import Grade, IssuedChallenge, IssuedPuzzle, QuestionAnswer
from quiz.puzzles import UnsolvablePuzzle
from quiz.questions import is_correct, render

__all__ = ["PUZZLE_CATEGORY", "PassRule", "generate", "grade"]

PUZZLE_CATEGORY = "puzzle"
"""The name :class:`~quiz.model.Grade` uses for a failed puzzle in ``missed_categories``."""


@dataclass(frozen=True)
class PassRule:
    """How many questions must be right, and whether the puzzle must be solved."""

    questions_required: int = 3
    puzzle_required: bool = True

    def passes(self, result: Grade) -> bool:
        """True when ``result`` meets this rule."""
        enough = result.questions_correct >= min(self.questions_required, result.questions_total)
        return enough and (result.puzzle_solved or not self.puzzle_required)


def generate(bank: QuizBank, seed: int, *, questions: int = 3) -> IssuedChallenge:
    """The challenge for ``seed``: ``questions`` questions of distinct categories and a puzzle.

    The same bank and seed always give the same challenge.
    """
    categories = bank.categories
    if questions > len(categories):
        raise ValueError(f"{bank.game} has only {len(categories)} categories")
    rng = random.Random(f"{bank.game}:{seed}")
    chosen = rng.sample(categories, questions)
    issued = tuple(
        render(rng.choice(bank.templates_in(category)), rng, position)
        for position, category in enumerate(chosen, start=1)
    )
    puzzle = _puzzle(bank, rng)
    return IssuedChallenge(game=bank.game, seed=seed, questions=issued, puzzle=puzzle)


PUZZLE_ROUNDS = 3
"""Rounds over every puzzle kind (each with a fresh seed) before a challenge gives up."""


def _puzzle(bank: QuizBank, rng: random.Random) -> IssuedPuzzle:
    """A puzzle of a random kind; when a kind finds no situation, the next kind is tried."""
    for _round in range(PUZZLE_ROUNDS):
        for kind in rng.sample(list(bank.puzzle_kinds), len(bank.puzzle_kinds)):
            try:
                return kind.generate(rng.getrandbits(63))
            except UnsolvablePuzzle:
                continue
    raise UnsolvablePuzzle(f"{bank.game}: no puzzle after {PUZZLE_ROUNDS} rounds over every kind")


def grade(
    bank: QuizBank,
    challenge: IssuedChallenge,
    answers: Mapping[str, QuestionAnswer],
    puzzle_answer: Mapping[str, Any] | None,
) -> Grade:
    """Check ``answers`` (question id -> answer) and ``puzzle_answer`` against ``challenge``."""
    missed: list[str] = []
    correct = 0
    for issued in challenge.questions:
        if is_correct(issued, answers.get(issued.question.id)):
            correct += 1
        else:
            missed.append(issued.question.category)
    kind = bank.puzzle_kind(challenge.puzzle.puzzle.kind)
    solved = puzzle_answer is not None and kind.check(challenge.puzzle, puzzle_answer)
    if not solved:
        missed.append(PUZZLE_CATEGORY)
    return Grade(
        questions_correct=correct,
        questions_total=len(challenge.questions),
        puzzle_solved=solved,
        missed_categories=tuple(missed),
    )
