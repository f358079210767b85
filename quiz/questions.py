"""Question templates: one rule fact, many seeded questions.

A :class:`QuestionTemplate` turns a seeded :class:`random.Random` into a
:class:`Draft` (prompt, format, the right answer and, for single choice, the
wrong options). :func:`render` shuffles the options and gives them ids, so the
position of the right answer carries no information; :func:`is_correct`
compares a submitted answer with the canonical expected one.

Templates compute their answers from the engine's own constants and catalogue,
so a rule change moves the quiz with it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from quiz.model import IssuedQuestion, Question, QuestionAnswer, QuestionFormat

__all__ = [
    "OPTION_IDS",
    "Draft",
    "QuestionTemplate",
    "canonical",
    "is_correct",
    "render",
]

OPTION_IDS = ("A", "B", "C", "D", "E", "F")
"""Ids given to the options of a single-choice question, in shown order."""


@dataclass(frozen=True)
class Draft:
    """One generated question before its options are shuffled.

    ``answer`` is the right option's text (single choice), an ``int`` (integer)
    or a ``bool`` (yes/no); ``distractors`` are the wrong options' texts.
    """

    prompt: str
    format: QuestionFormat
    answer: str | int | bool
    distractors: Sequence[str] = field(default_factory=tuple)
    section: str | None = None
    """Overrides the template's section when the drawn parameter has its own
    (a question about one Strategy cites that Strategy's catalogue row)."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """The drawn parameters (JSON values), kept server-side so tests can
    recompute the answer with the engine."""

    def __post_init__(self) -> None:
        # A broken template must fail loudly in the tests, not issue a question
        # with two right answers or none.
        if self.format == "single_choice":
            if not isinstance(self.answer, str):
                raise ValueError("a single-choice answer is the right option's text")
            texts = [self.answer, *self.distractors]
            if len(set(texts)) != len(texts) or not 2 <= len(texts) <= len(OPTION_IDS):
                raise ValueError(f"bad options for {self.prompt!r}: {texts}")
        elif self.format == "integer":
            if isinstance(self.answer, bool) or not isinstance(self.answer, int):
                raise ValueError("an integer answer must be an int")
        elif not isinstance(self.answer, bool):
            raise ValueError("a yes/no answer must be a bool")


@dataclass(frozen=True)
class QuestionTemplate:
    """A parametrised question about one rule: its category and rulebook section."""

    id: str
    category: str
    section: str
    build: Callable[[random.Random], Draft]


def render(template: QuestionTemplate, rng: random.Random, position: int) -> IssuedQuestion:
    """Generate the question ``q<position>`` from ``template`` with ``rng``."""
    draft = template.build(rng)
    options: tuple[tuple[str, str], ...] = ()
    if draft.format == "single_choice":
        texts = [str(draft.answer), *draft.distractors]
        rng.shuffle(texts)
        options = tuple(zip(OPTION_IDS, texts, strict=False))
        expected = next(option_id for option_id, text in options if text == draft.answer)
    elif draft.format == "integer":
        expected = str(draft.answer)
    else:
        expected = "yes" if draft.answer else "no"
    question = Question.model_validate(
        {
            "id": f"q{position}",
            "template": template.id,
            "category": template.category,
            "section": draft.section or template.section,
            "format": draft.format,
            "prompt": draft.prompt,
            "options": [{"id": option_id, "text": text} for option_id, text in options],
        }
    )
    return IssuedQuestion(question=question, expected=expected, params=dict(draft.params))


def canonical(question: Question, answer: QuestionAnswer) -> str | None:
    """The canonical form of a submitted answer, or ``None`` if it has the wrong shape.

    Option ids are case-insensitive; yes/no accepts ``true``/``false`` or the
    words ``yes``/``no``; integers must be JSON integers (a boolean is not one).
    """
    if question.format == "single_choice":
        if not isinstance(answer, str):
            return None
        option_id = answer.strip().upper()
        return option_id if any(option.id == option_id for option in question.options) else None
    if question.format == "integer":
        if isinstance(answer, bool) or not isinstance(answer, int):
            return None
        return str(answer)
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    if isinstance(answer, str) and answer.strip().lower() in ("yes", "no"):
        return answer.strip().lower()
    return None


def is_correct(issued: IssuedQuestion, answer: QuestionAnswer | None) -> bool:
    """True when ``answer`` is the expected answer of ``issued``."""
    if answer is None:
        return False
    return canonical(issued.question, answer) == issued.expected
