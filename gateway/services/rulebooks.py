"""A game's rulebook as served: whole, one section, or the sections matching a search.

The markdown files carry maintainers' HTML comments (where generated tables
start and end, what not to renumber); they are notes for us, not rules, so the
served text leaves them out. The HTTP route and the MCP tools read rulebooks here.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import Counter
from dataclasses import dataclass

from gateway.services.records import game_or_problem

__all__ = [
    "SEARCH_MAX_CHARS",
    "SEARCH_MAX_WORDS",
    "Section",
    "find_sections",
    "rulebook_text",
    "section",
]

_COMMENT = re.compile(r"<!--.*?-->\n?", re.DOTALL)
_BLANK_RUN = re.compile(r"\n{3,}")
_HEADING = re.compile(r"^(#{2,3}) (\d+(?:\.\d+)?) (.*)$", re.MULTILINE)


@dataclass(frozen=True)
class Section:
    """One numbered section (``8`` or ``8.2``) with its heading line and its text."""

    number: str
    title: str
    text: str


@functools.cache  # a game_or_problem refusal is raised, never cached
def rulebook_text(game: str) -> str:
    """The rulebook of ``game`` without maintainers' comments (``game/not_found``
    otherwise), cleaned once per game and process: the rulebooks ship with the code."""
    raw = game_or_problem(game).rulebook()
    return _BLANK_RUN.sub("\n\n", _COMMENT.sub("", raw))


def section(game: str, number: str) -> list[Section]:
    """Section ``number`` (``8.2``), or a whole chapter (``8``: the chapter and its
    subsections); empty when there is none."""
    chapter = "." not in number
    return [s for s in _index(game).sections
            if s.number == number or (chapter and s.number.split(".")[0] == number)]


SEARCH_MAX_CHARS = 200
"""The longest search text taken (the API's bound; a query of more is refused there)."""

SEARCH_MAX_WORDS = 12
"""The most distinct words one search looks up; any further ones are ignored."""

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class _Index:
    """A rulebook's sections, its words in order, and per word how often each section holds it."""

    sections: tuple[Section, ...]
    words: tuple[str, ...]
    postings: dict[str, dict[int, int]]

    def mentions(self, prefix: str) -> dict[int, int]:
        """Section -> mentions of the words starting with ``prefix`` ("reshuffl" finds
        "reshuffle" and "reshuffled"): a bisection, then the words of that range."""
        found: Counter[int] = Counter()
        at = bisect.bisect_left(self.words, prefix)
        while at < len(self.words) and self.words[at].startswith(prefix):
            found.update(self.postings[self.words[at]])
            at += 1
        return found


@functools.cache
def _index(game: str) -> _Index:
    """Built once per game and process (the rulebooks ship with the code): a search then
    reads a range of a sorted word list per query word instead of scanning every
    section's text. Its sections are every numbered one, in order; a chapter's text runs
    up to its first subsection."""
    text = rulebook_text(game)
    headings = list(_HEADING.finditer(text))
    found = tuple(
        Section(heading.group(2), heading.group(3).strip(), text[heading.start():end].strip())
        for heading, end in zip(
            headings, [later.start() for later in headings[1:]] + [len(text)], strict=True))
    postings: dict[str, dict[int, int]] = {}
    for number, part in enumerate(found):
        for word, count in Counter(_WORD.findall(part.text.casefold())).items():
            postings.setdefault(word, {})[number] = count
    return _Index(found, tuple(sorted(postings)), postings)


def find_sections(game: str, query: str, *, limit: int = 5) -> list[Section]:
    """The sections holding every word of ``query`` (case-insensitive; a word also matches
    the longer words it begins), the most mentions first; at most ``limit``.

    Bounded work whatever the query: at most :data:`SEARCH_MAX_CHARS` of it are read and
    :data:`SEARCH_MAX_WORDS` distinct words looked up, each over a prebuilt index whose
    size is the rulebook's vocabulary, never a scan of every section per word.
    """
    game_or_problem(game)
    words = list(dict.fromkeys(_WORD.findall(query[:SEARCH_MAX_CHARS].casefold())))
    if not words:
        return []
    index = _index(game)
    mentions: dict[int, int] | None = None
    for word in words[:SEARCH_MAX_WORDS]:
        counts = index.mentions(word)
        mentions = counts if mentions is None else {
            number: mentions[number] + count for number, count in counts.items()
            if number in mentions}
        if not mentions:
            return []
    assert mentions is not None
    ranked = sorted(mentions, key=lambda number: (-mentions[number], number))
    return [index.sections[number] for number in ranked[:limit]]
