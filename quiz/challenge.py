"""Seeded challenges and their grading.

:func:`generate` draws a challenge from a bank: questions from distinct
categories (chosen at random, then one template in each) and one puzzle of a
random kind. :func:`grade` checks a submission and reports a score and the
categories missed, never an expected answer; :func:`shape_errors` says first
which answers are not of their question's type. :class:`PassRule` says what a
pass is (by default every question and the puzzle).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from quiz.bank import QuizBank
from quiz.model import Grade, IssuedChallenge, IssuedPuzzle, QuestionAnswer
from quiz.puzzles import UnsolvablePuzzle
from quiz.questions import canonical, is_correct, render

__all__ = ["PUZZLE_CATEGORY", "PassRule", "generate", "grade", "shape_errors"]

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


def shape_errors(
    bank: QuizBank,
    challenge: IssuedChallenge,
    answers: Mapping[str, Any],
    puzzle_answer: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """Every answer that is not of its question's type, and every way the puzzle answer
    does not fit its kind's shape; empty when the submission may be graded.

    Each error is ``{"loc": [...], "msg": ..., "type": ...}`` as ``request/invalid``
    lists them (``loc`` from the body: ``["body", "answers", "q2"]``). An error tells
    only what the challenge already shows (the format, the option ids), never whether
    an answer is right: a wrongly typed ``"4"`` for an integer question is refused
    before grading instead of being graded wrong and spending the one submission.
    """
    errors: list[dict[str, Any]] = []
    asked = {issued.question.id: issued.question for issued in challenge.questions}
    for question_id, question in asked.items():
        loc = ["body", "answers", question_id]
        if question_id not in answers:
            errors.append({"loc": loc, "msg": "Field required", "type": "missing"})
            continue
        answer = answers[question_id]
        if question.format == "single_choice":
            options = ", ".join(option.id for option in question.options)
            if not isinstance(answer, str):
                errors.append({"loc": loc, "msg": f"Must be one of the option ids ({options}) "
                               "as a string", "type": "string_type"})
            elif canonical(question, answer) is None:
                errors.append({"loc": loc, "msg": f"Must be one of the option ids ({options})",
                               "type": "literal_error"})
        elif question.format == "integer":
            if isinstance(answer, bool) or not isinstance(answer, int):
                errors.append({"loc": loc, "msg": "Must be a JSON integer (4, not \"4\")",
                               "type": "int_type"})
        elif canonical(question, answer) is None:
            errors.append({"loc": loc, "msg": "Must be true or false (JSON booleans, not "
                           "\"true\")", "type": "bool_type"})
    for question_id in sorted(set(answers) - set(asked)):
        errors.append({"loc": ["body", "answers", question_id],
                       "msg": f"No such question; answer {', '.join(asked)}",
                       "type": "extra_forbidden"})
    kind = bank.puzzle_kind(challenge.puzzle.puzzle.kind)
    try:
        kind.answer_model.model_validate(dict(puzzle_answer))
    except ValidationError as error:
        errors.extend(
            {"loc": ["body", "puzzle", *(str(part) for part in e["loc"])], "msg": e["msg"],
             "type": e["type"]}
            for e in error.errors(include_input=False, include_url=False)
        )
    else:
        errors.extend(
            {"loc": ["body", "puzzle", *path], "msg": msg, "type": "puzzle_shape"}
            for path, msg in kind.misfits(challenge.puzzle, puzzle_answer)
        )
    return errors
