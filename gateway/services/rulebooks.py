"""A game's rulebook as served: whole, one section, or the sections matching a search.

The markdown files carry maintainers' HTML comments (where generated tables
start and end, what not to renumber); they are notes for us, not rules, so the
served text leaves them out. The HTTP route and the MCP tools read rulebooks here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gateway.services.records import game_or_problem

__all__ = ["Section", "find_sections", "rulebook_text", "section", "sections"]

_COMMENT = re.compile(r"<!--.*?-->\n?", re.DOTALL)
_BLANK_RUN = re.compile(r"\n{3,}")
_HEADING = re.compile(r"^(#{2,3}) (\d+(?:\.\d+)?) (.*)$", re.MULTILINE)


@dataclass(frozen=True)
class Section:
    """One numbered section (``8`` or ``8.2``) with its heading line and its text."""

    number: str
    title: str
    text: str


def rulebook_text(game: str) -> str:
    """The rulebook of ``game`` without maintainers' comments; ``game/not_found`` otherwise."""
    raw = game_or_problem(game).rulebook()
    return _BLANK_RUN.sub("\n\n", _COMMENT.sub("", raw))


def sections(game: str) -> list[Section]:
    """Every numbered section, in order; a chapter's text runs up to its first subsection."""
    text = rulebook_text(game)
    found = list(_HEADING.finditer(text))
    out = []
    for index, heading in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(text)
        out.append(Section(heading.group(2), heading.group(3).strip(), text[heading.start():end].strip()))
    return out


def section(game: str, number: str) -> list[Section]:
    """Section ``number`` (``8.2``), or a whole chapter (``8``: the chapter and its
    subsections); empty when there is none."""
    chapter = "." not in number
    return [s for s in sections(game)
            if s.number == number or (chapter and s.number.split(".")[0] == number)]


def find_sections(game: str, query: str, *, limit: int = 5) -> list[Section]:
    """The sections whose text holds every word of ``query`` (case-insensitive), the most
    mentions first; at most ``limit``."""
    words = [word.casefold() for word in re.findall(r"\w+", query)]
    if not words:
        return []
    scored = []
    for found in sections(game):
        folded = found.text.casefold()
        if all(word in folded for word in words):
            scored.append((-sum(folded.count(word) for word in words), found))
    scored.sort(key=lambda pair: pair[0])
    return [found for _score, found in scored[:limit]]
