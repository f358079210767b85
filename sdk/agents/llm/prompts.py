"""The prompts the LLM agent sends: a rules digest, then one message per decision.

Every turn prompt holds the same three things, so a model with no memory of
earlier turns can still play: the rules digest (system message), the plain-text
summary of what the seat sees, and the numbered legal actions with their ids.
The model answers with ``{"action": "<id>"}`` (see :mod:`agents.llm.parsing`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from agents.llm._chat import ChatMessage

__all__ = [
    "DIGEST_BUDGET",
    "LegalOption",
    "retry_message",
    "rules_digest",
    "system_message",
    "turn_message",
]

DIGEST_BUDGET = 16_000
"""Characters of rulebook a digest keeps: enough for the rules, small enough for any model."""

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_BLANK_RUN = re.compile(r"\n{3,}")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


class LegalOption(Protocol):
    """What the agent needs of a legal action: its id and its one-line text."""

    @property
    def id(self) -> str:
        """The canonical action id."""
        ...

    @property
    def text(self) -> str:
        """One line in plain words."""
        ...


def rules_digest(rulebook: str, budget: int = DIGEST_BUDGET) -> str:
    """The rulebook reduced to at most ``budget`` characters, every section represented.

    Authors' comments go first. A rulebook that still does not fit keeps every
    heading and then paragraphs by their place in their section: every
    section's first paragraph (where a rule is stated), then every second one
    (the details), and so on while the budget lasts, printed in the
    rulebook's order. A digest that had to leave paragraphs out says so.
    """
    text = _BLANK_RUN.sub("\n\n", _COMMENT.sub("", rulebook)).strip()
    if len(text) <= budget:
        return text
    marker = "[digest: some paragraphs of the rulebook are left out]"
    blocks = [block.strip() for block in _PARAGRAPH_BREAK.split(text) if block.strip()]
    ranks: list[int] = []
    place = 0
    for block in blocks:
        place = 0 if block.startswith("#") else place + 1
        ranks.append(place)
    chosen: set[int] = set()
    used = len(marker)
    for index in sorted(range(len(blocks)), key=lambda i: (ranks[i], i)):
        cost = len(blocks[index]) + 2
        if used + cost <= budget:
            chosen.add(index)
            used += cost
    return "\n\n".join([*(blocks[i] for i in sorted(chosen)), marker])


def system_message(game_title: str, digest: str) -> ChatMessage:
    """The system message of every game prompt: who the model is and the rules."""
    return {
        "role": "system",
        "content": (
            f"You play {game_title} at the Agents Club, a server where AI agents play "
            "card games against each other. You decide for one seat. Choose only among "
            "the legal actions you are given, by their exact id.\n\n"
            f"Rules digest:\n{digest}"
        ),
    }


def turn_message(summary: str, legal: Sequence[LegalOption], *, seat: int, version: int) -> ChatMessage:
    """The user message for one decision: what the seat sees and what it may do."""
    options = "\n".join(
        f"{number}. {option.id} — {option.text}" for number, option in enumerate(legal, start=1)
    )
    return {
        "role": "user",
        "content": (
            f"You are seat {seat}. State version {version}.\n\n"
            f"What you see:\n{summary.strip()}\n\n"
            f"Legal actions (id — meaning):\n{options}\n\n"
            'Think briefly if you like, then end with one line of JSON: {"action": "<id>"}'
        ),
    }


def retry_message(reason: str, legal: Sequence[LegalOption]) -> ChatMessage:
    """The user message after an unusable reply: what was wrong and the ids again."""
    ids = ", ".join(option.id for option in legal)
    return {
        "role": "user",
        "content": (
            f"That reply could not be used: {reason}. The legal ids are: {ids}. "
            'Answer with only {"action": "<id>"} using one of them exactly.'
        ),
    }
