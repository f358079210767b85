"""Reading an action id out of a language model's reply.

Models answer in many shapes: the JSON object the prompt asks for, a
``ACTION: <id>`` line, prose that names one id, or the option's number. Each
reader below accepts one shape; :func:`parse_action_reply` tries them in order
and says why a reply is unusable, so the agent can tell the model what to fix.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ParsedChoice", "json_objects", "parse_action_reply"]

_ACTION_LINE = re.compile(r"^\W*action\W*[:=]\s*[`\"']?([^\s`\"']+)", re.IGNORECASE | re.MULTILINE)
_NUMBER_ONLY = re.compile(r"^\s*#?\s*(\d{1,3})\s*\.?\s*$")
# Characters that can appear inside an action id; an id found in prose must not
# touch one of them on either side, or "build:stock" would match inside
# "build:stock:discard".
_ID_CHAR = r"[A-Za-z0-9_:\-./+]"


@dataclass(frozen=True)
class ParsedChoice:
    """What a reply chose: a legal ``action_id``, or ``None`` and the ``reason`` why not."""

    action_id: str | None
    reason: str = ""

    @property
    def usable(self) -> bool:
        """True when the reply named exactly one legal action."""
        return self.action_id is not None


def parse_action_reply(reply: str, legal_ids: Sequence[str]) -> ParsedChoice:
    """The legal action id that ``reply`` chooses, or why it chooses none.

    ``legal_ids`` is the order the prompt listed them in (numbers are 1-based).
    """
    text = reply.strip()
    if not text:
        return ParsedChoice(None, "the reply was empty")
    legal = set(legal_ids)

    named = _from_json(text) or _from_action_line(text)
    if named is not None:
        if named in legal:
            return ParsedChoice(named)
        return ParsedChoice(None, f"{named!r} is not one of the legal action ids")

    found = _ids_in_prose(text, legal_ids)
    if len(found) == 1:
        return ParsedChoice(found[0])
    if len(found) > 1:
        return ParsedChoice(None, f"the reply names several actions ({', '.join(found[:4])})")

    number = _NUMBER_ONLY.match(text)
    if number is not None:
        index = int(number.group(1))
        if 1 <= index <= len(legal_ids):
            return ParsedChoice(legal_ids[index - 1])
        return ParsedChoice(None, f"there is no option number {index}")
    return ParsedChoice(None, "the reply names no legal action id")


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every top-level JSON object embedded in ``text`` (prose, code fences), in order."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    position = text.find("{")
    while position != -1:
        try:
            payload, end = decoder.raw_decode(text, position)
        except ValueError:
            position = text.find("{", position + 1)
            continue
        if isinstance(payload, dict):
            found.append(payload)
        position = text.find("{", end)
    return found


def _from_json(text: str) -> str | None:
    """The ``action`` member of the last JSON object in ``text`` that has one."""
    named: str | None = None
    for payload in json_objects(text):
        value = payload.get("action", payload.get("action_id"))
        if isinstance(value, str | int) and not isinstance(value, bool):
            named = str(value).strip()
    return named


def _from_action_line(text: str) -> str | None:
    """The id on the last ``ACTION: <id>`` line of ``text``."""
    matches = _ACTION_LINE.findall(text)
    return matches[-1].rstrip(".,;") if matches else None


def _ids_in_prose(text: str, legal_ids: Sequence[str]) -> list[str]:
    """Legal ids that occur in ``text`` as whole tokens, in listing order."""
    found = []
    for action_id in legal_ids:
        pattern = rf"(?<!{_ID_CHAR}){re.escape(action_id)}(?!{_ID_CHAR})"
        if re.search(pattern, text):
            found.append(action_id)
    return found
