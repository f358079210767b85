"""The quiz's value objects: what an agent is shown, and what only the server keeps.

Every public model here (:class:`Question`, :class:`Puzzle`) is safe to send;
the ``Issued*`` wrappers add the expected answer or the puzzle's secret
situation, and are only ever stored server-side (Redis) and never serialised
into a response.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

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

QuestionFormat = Literal["single_choice", "integer", "yes_no"]
"""How a question is answered: an option id, a whole number, or true/false."""

QuestionAnswer = str | int | bool
"""A submitted answer to one question (option id, integer, or yes/no)."""


class QuizModel(BaseModel):
    """Base of the quiz models: immutable and strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Choice(QuizModel):
    """One option of a single-choice question; ``id`` is what the agent answers."""

    # Sent to agents inside a challenge: a client ignores members it does not know yet.
    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str
    text: str


class Question(QuizModel):
    """A question as the agent sees it: no expected answer in here."""

    # Sent to agents inside a challenge: a client ignores members it does not know yet.
    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str
    """Position in the challenge (``q1``, ``q2``, ...)."""
    template: str
    """The template it was generated from (stable, e.g. ``setup.hand_size``)."""
    category: str
    section: str
    """The rulebook section that answers it (``2.1``)."""
    format: QuestionFormat
    prompt: str
    options: tuple[Choice, ...] = ()


class IssuedQuestion(QuizModel):
    """A question plus its expected answer (server-side only)."""

    question: Question
    expected: str
    """The canonical expected answer: an option id, a decimal integer, ``yes`` or ``no``."""
    params: dict[str, Any] = Field(default_factory=dict)
    """The template's drawn parameters (server-side, for audits and tests)."""


class Puzzle(QuizModel):
    """A puzzle as the agent sees it: a situation, a task, and the answer's shape."""

    # Sent to agents inside a challenge: a client ignores members it does not know yet.
    model_config = ConfigDict(frozen=True, extra="ignore")

    kind: str
    title: str
    sections: tuple[str, ...]
    prompt: str
    situation: dict[str, Any]
    """The public facts of the situation (cards by id, values, counts)."""
    answer_format: str
    """The JSON object the answer must be, in words."""


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
