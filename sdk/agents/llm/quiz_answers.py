"""Answering the admission quiz with a language model: prompts and reply readers.

Each question is asked on its own with the rules digest as the system message
and the format it must be answered in (an option id, a whole number, yes/no).
The puzzle is asked with its situation as JSON and the answer's shape; the
reply's last JSON object is the answer. The agent works out answers only from
the rulebook and the model: it never looks at the server's quiz code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from agents.llm._chat import ChatMessage
from agents.llm.parsing import json_objects

__all__ = [
    "ParsedAnswer",
    "PuzzleLike",
    "QuestionLike",
    "parse_puzzle_reply",
    "parse_question_reply",
    "puzzle_message",
    "question_message",
]

_INTEGER = re.compile(r"-?\d+")
_YES = {"yes", "true", "y", "sí", "si"}
_NO = {"no", "false", "n"}


class OptionLike(Protocol):
    """An option of a single-choice question."""

    @property
    def id(self) -> str:
        """What the agent answers."""
        ...

    @property
    def text(self) -> str:
        """What the option says."""
        ...


class QuestionLike(Protocol):
    """The parts of an admission question the agent reads."""

    @property
    def id(self) -> str:
        """The question's id in the challenge (``q1``...)."""
        ...

    @property
    def section(self) -> str:
        """The rulebook section that answers it."""
        ...

    @property
    def format(self) -> str:
        """``single_choice``, ``integer`` or ``yes_no``."""
        ...

    @property
    def prompt(self) -> str:
        """The question."""
        ...

    @property
    def options(self) -> Sequence[OptionLike]:
        """The options of a single-choice question."""
        ...


class PuzzleLike(Protocol):
    """The parts of an admission puzzle the agent reads."""

    @property
    def title(self) -> str:
        """The puzzle's title."""
        ...

    @property
    def prompt(self) -> str:
        """The task."""
        ...

    @property
    def situation(self) -> dict[str, Any]:
        """The public facts of the situation."""
        ...

    @property
    def answer_format(self) -> str:
        """The JSON object the answer must be, in words."""
        ...


@dataclass(frozen=True)
class ParsedAnswer:
    """A reply read as an answer (``usable``), or the ``reason`` it could not be."""

    answer: Any
    usable: bool
    reason: str = ""


_FORMAT_HINTS = {
    "single_choice": 'the id of one option, as {"answer": "<option id>"}',
    "integer": 'a whole number, as {"answer": <number>}',
    "yes_no": 'yes or no, as {"answer": "yes"} or {"answer": "no"}',
}


def question_message(question: QuestionLike) -> ChatMessage:
    """The user message asking one admission question."""
    lines = [f"Admission question {question.id} (rulebook section {question.section}):", question.prompt]
    if question.options:
        lines.append("Options:")
        lines.extend(f"  {option.id}: {option.text}" for option in question.options)
    hint = _FORMAT_HINTS.get(question.format, 'your answer as {"answer": ...}')
    lines.append(f"Answer with {hint}, on the last line.")
    return {"role": "user", "content": "\n".join(lines)}


def puzzle_message(puzzle: PuzzleLike) -> ChatMessage:
    """The user message asking the admission puzzle."""
    return {
        "role": "user",
        "content": (
            f"Admission puzzle: {puzzle.title}\n{puzzle.prompt}\n\n"
            f"Situation (JSON):\n{json.dumps(puzzle.situation, indent=1, sort_keys=True)}\n\n"
            f"Answer format: {puzzle.answer_format}\n"
            "Reason step by step with the rules, then end with the answer as one JSON object."
        ),
    }


def parse_question_reply(question: QuestionLike, reply: str) -> ParsedAnswer:
    """The answer ``reply`` gives to ``question``, checked against its format."""
    objects = [item for item in json_objects(reply) if "answer" in item]
    raw: Any = objects[-1]["answer"] if objects else reply.strip().splitlines()[-1:] or [""]
    if isinstance(raw, list):
        raw = raw[0] if raw else ""
    if question.format == "single_choice":
        ids = [option.id for option in question.options]
        candidate = str(raw).strip().strip("\"'`.").strip()
        if candidate in ids:
            return ParsedAnswer(candidate, True)
        lowered = {option_id.lower(): option_id for option_id in ids}
        if candidate.lower() in lowered:
            return ParsedAnswer(lowered[candidate.lower()], True)
        return ParsedAnswer(None, False, f"{candidate!r} is not one of the options {ids}")
    if question.format == "integer":
        if isinstance(raw, int) and not isinstance(raw, bool):
            return ParsedAnswer(raw, True)
        numbers = {int(found) for found in _INTEGER.findall(str(raw))}
        if len(numbers) == 1:
            return ParsedAnswer(numbers.pop(), True)
        if numbers:  # "3 or 4": picking one would be a silent guess
            return ParsedAnswer(None, False, f"the reply names several numbers ({sorted(numbers)}), not one")
        return ParsedAnswer(None, False, "the reply holds no whole number")
    if question.format == "yes_no":
        if isinstance(raw, bool):
            return ParsedAnswer(raw, True)
        word = str(raw).strip().strip("\"'`.!").lower()
        if word in _YES:
            return ParsedAnswer(True, True)
        if word in _NO:
            return ParsedAnswer(False, True)
        return ParsedAnswer(None, False, "the reply is neither yes nor no")
    return ParsedAnswer(raw, True)


def parse_puzzle_reply(reply: str) -> ParsedAnswer:
    """The puzzle answer in ``reply``: its last JSON object."""
    objects = json_objects(reply)
    if not objects:
        return ParsedAnswer(None, False, "the reply holds no JSON object")
    if not objects[-1]:
        return ParsedAnswer(None, False, "the reply's JSON object is empty")
    return ParsedAnswer(objects[-1], True)
