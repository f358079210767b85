"""The quiz's value objects: what an agent is shown, and what only the server keeps.

Every public model here (:class:`Question`, :class:`Puzzle`) is safe to send,
and is the SDK's own (``agents.wire.quiz``: one definition of the wire); the
``Issued*`` wrappers add the expected answer or the puzzle's secret
situation, and are only ever stored server-side (Redis) and never serialised
into a response.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agents.wire.quiz import Choice, Puzzle, Question, QuestionFormat, QuizModel

__all__ = [
    "Choice",
    "Grade",
    "IssuedChallenge",
    "IssuedPuzzle",
    "IssuedQuestion",
    "Puzzle",
    "Question",
    "QuestionAnswer",
    "QuestionFormat",
]

QuestionAnswer = str | int | bool
"""A submitted answer to one question (option id, integer, or yes/no)."""


class IssuedQuestion(QuizModel):
    """A question plus its expected answer (server-side only)."""

    question: Question
    expected: str
    """The canonical expected answer: an option id, a decimal integer, ``yes`` or ``no``."""
    params: dict[str, Any] = Field(default_factory=dict)
    """The template's drawn parameters (server-side, for audits and tests)."""


class IssuedPuzzle(QuizModel):
    """A puzzle plus what the server needs to check any answer (server-side only)."""

    puzzle: Puzzle
    secret: dict[str, Any] = Field(default_factory=dict)
    """Facts the checker needs that the agent must not see."""


class IssuedChallenge(QuizModel):
    """A whole challenge as generated: questions and one puzzle, with expectations."""

    game: str
    seed: int
    questions: tuple[IssuedQuestion, ...]
    puzzle: IssuedPuzzle


class Grade(QuizModel):
    """The result of checking a submission; names no expected answer."""

    questions_correct: int
    questions_total: int
    puzzle_solved: bool
    missed_categories: tuple[str, ...]
    """Categories of the questions answered wrongly (and ``puzzle`` if it failed)."""
