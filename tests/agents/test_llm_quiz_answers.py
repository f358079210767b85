"""Admission prompts and the readers of quiz and puzzle replies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agents.llm.quiz_answers import (
    parse_puzzle_reply,
    parse_question_reply,
    puzzle_message,
    question_message,
)


@dataclass(frozen=True)
class Option:
    id: str
    text: str


@dataclass(frozen=True)
class Q:
    format: str
    options: tuple[Option, ...] = ()
    id: str = "q1"
    section: str = "2.1"
    prompt: str = "How many cards?"


@dataclass(frozen=True)
class P:
    title: str = "Reach 25M"
    prompt: str = "Pick swaps."
    situation: dict[str, Any] = field(default_factory=lambda: {"hand": ["S-1", "R-2"]})
    answer_format: str = '{"swaps": [...], "pair": [...]}'


CHOICE = Q("single_choice", (Option("A", "four"), Option("B", "eight")))


def test_question_prompt_lists_options_section_and_format() -> None:
    content = question_message(CHOICE)["content"]
    assert "section 2.1" in content and "How many cards?" in content
    assert "A: four" in content and "B: eight" in content
    assert '{"answer": "<option id>"}' in content


def test_single_choice_reader() -> None:
    assert parse_question_reply(CHOICE, 'Eight cards. {"answer": "B"}').answer == "B"
    assert parse_question_reply(CHOICE, "b").answer == "B"
    refused = parse_question_reply(CHOICE, '{"answer": "Z"}')
    assert not refused.usable and "'Z'" in refused.reason


def test_integer_reader() -> None:
    number = Q("integer")
    assert parse_question_reply(number, '{"answer": 25}').answer == 25
    assert parse_question_reply(number, "The answer is\n8").answer == 8
    assert not parse_question_reply(number, "many").usable


def test_yes_no_reader() -> None:
    yes_no = Q("yes_no")
    assert parse_question_reply(yes_no, '{"answer": "yes"}').answer is True
    assert parse_question_reply(yes_no, '{"answer": false}').answer is False
    assert parse_question_reply(yes_no, "No.").answer is False
    assert not parse_question_reply(yes_no, "perhaps").usable


def test_puzzle_prompt_and_reader_take_the_last_nested_object() -> None:
    content = puzzle_message(P())["content"]
    assert '"S-1"' in content and "Answer format" in content
    reply = 'First {"draft": 1}. Final:\n```json\n{"swaps": [{"out": "S-1", "in": "S-4"}], "pair": ["S-2", "R-2"]}\n```'
    parsed = parse_puzzle_reply(reply)
    assert parsed.usable and parsed.answer == {"swaps": [{"out": "S-1", "in": "S-4"}], "pair": ["S-2", "R-2"]}
    assert not parse_puzzle_reply("no idea").usable
