"""The admission quiz as an agent sees it: questions and a puzzle, never their answers.

The server's own quiz (``quiz.model``) wraps these in ``Issued*`` models that add
the expected answers; those stay in the server and are defined there.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["Choice", "Puzzle", "Question", "QuestionFormat", "QuizModel"]

QuestionFormat = Literal["single_choice", "integer", "yes_no"]
"""How a question is answered: an option id, a whole number, or true/false."""


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
