"""The rulebook (docs/market-fortune.md) against the engine and the catalogue.

The quiz and the engine's errors cite sections by number, so the numbering is
fixed; the Strategy catalogue in section 12 must match the data table.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from engine.market_fortune.cards import CATALOGUE

ROOT = Path(__file__).resolve().parents[3]
RULEBOOK = ROOT / "docs" / "market-fortune.md"
ENGINE = ROOT / "engine" / "market_fortune"

FIXED_SECTIONS: dict[int, int] = {
    1: 5, 2: 3, 3: 7, 4: 3, 5: 3, 6: 6, 7: 4, 8: 4, 9: 3, 10: 3, 11: 3, 12: 27, 13: 1, 14: 1,
}  # fmt: skip
"""Chapter -> number of numbered subsections, as fixed by the outline."""

HEADING = re.compile(r"^(#{2,3}) (\d+(?:\.\d+)?) (.+)$", re.MULTILINE)


def rulebook() -> str:
    return RULEBOOK.read_text(encoding="utf-8")


def headings() -> dict[str, str]:
    """Section number -> heading title."""
    return {number: title for _, number, title in HEADING.findall(rulebook())}


def subsection(number: str) -> str:
    """The text of one ``### number`` subsection, up to the next heading."""
    text = rulebook()
    match = re.search(rf"^### {re.escape(number)} .*$", text, re.MULTILINE)
    assert match, number
    end = re.compile(r"^#{2,3} ", re.MULTILINE).search(text, match.end())
    return text[match.end() : end.start() if end else len(text)]


def load_renderer() -> ModuleType:
    path = ROOT / "docs" / "tools" / "render_catalogue.py"
    spec = importlib.util.spec_from_file_location("render_catalogue", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_outline_marker_is_gone() -> None:
    text = rulebook()
    assert "OUTLINE" not in text
    assert "<!--" not in text
    assert "to be written" not in text


def test_sections_are_numbered_exactly_as_fixed() -> None:
    numbers = list(headings())
    expected = [
        number
        for chapter, count in FIXED_SECTIONS.items()
        for number in (str(chapter), *(f"{chapter}.{n}" for n in range(1, count + 1)))
    ]
    assert numbers == expected


@pytest.mark.parametrize("kind", CATALOGUE, ids=lambda kind: kind.key)
def test_every_card_kind_has_its_entry(kind: object) -> None:
    from engine.market_fortune.cards import StrategyKind

    assert isinstance(kind, StrategyKind)
    assert headings()[kind.section] == kind.name
    entry = subsection(kind.section)
    assert f"- Colour: {kind.colour}\n" in entry
    assert f"- Copies: {kind.copies}\n" in entry
    assert kind.effect in entry
    for card_id in kind.card_ids():
        assert f"`{card_id}`" in entry


def test_section_12_is_in_sync_with_the_catalogue() -> None:
    renderer = load_renderer()
    assert renderer.rendered_rulebook(rulebook()) == rulebook(), (
        "run: .venv/bin/python docs/tools/render_catalogue.py"
    )


SECTION_LITERAL = re.compile(r"""["']((?:1[0-4]|[1-9])\.[1-9]\d?)["']""")
"""A quoted section number such as ``rule="3.2"`` or ``sections=("7.2", ...)``."""
SECTION_MENTION = re.compile(r"(?:\(|\b(?:rule|section|sections) )((?:1[0-4]|[1-9])\.[1-9]\d?)\b")
"""A section named in prose: ``(3.2)``, ``(rule 7.2)``, ``section 12.4``."""


def cited_sections(folder: Path) -> set[str]:
    cited: set[str] = set()
    for source in folder.rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        cited.update(SECTION_LITERAL.findall(text))
        cited.update(SECTION_MENTION.findall(text))
    return cited


def test_every_rule_the_engine_cites_exists() -> None:
    cited = cited_sections(ENGINE)
    assert {"3.2", "7.2", "12.27"} <= cited, "the scan no longer sees the engine's citations"
    missing = sorted(cited - set(headings()))
    assert not missing, f"cited by the engine but not in the rulebook: {missing}"


def test_every_rule_the_quiz_cites_exists() -> None:
    quiz = ROOT / "quiz" / "market_fortune"
    cited = cited_sections(quiz) if quiz.is_dir() else set()
    missing = sorted(cited - set(headings()))
    assert not missing, f"cited by the quiz but not in the rulebook: {missing}"


def test_cross_references_inside_the_rulebook_exist() -> None:
    text = rulebook()
    body = HEADING.sub("", text)
    references = set(re.findall(r"\((?:see )?(\d{1,2}\.\d{1,2})[;,)]", body))
    references |= set(re.findall(r"\b(?:section|sections) (\d{1,2}(?:\.\d{1,2})?)\b", body))
    assert references
    missing = sorted(references - set(headings()))
    assert not missing, missing
