"""The rulebook (engine/market_fortune/rulebook.md) against the engine and the catalogue.

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
from tests.engine.market_fortune.conftest import MF

ROOT = Path(__file__).resolve().parents[3]
RULEBOOK = ROOT / "engine" / "market_fortune" / "rulebook.md"
ENGINE = ROOT / "engine" / "market_fortune"

FIXED_SECTIONS: dict[int, int] = {
    1: 5, 2: 3, 3: 7, 4: 3, 5: 3, 6: 6, 7: 4, 8: 4, 9: 3, 10: 3, 11: 3, 12: 27, 13: 4, 14: 1,
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


# -- the worked examples of the rulebook hold in the engine ---------------------------

EIGHT = ("S.energy.1", "S.banking.2", "S.health.3", "S.retail.4", "R.mining.1", "R.farming.2", "R.property.3", "R.telecom.4")


def test_example_3_2_a_pile_card_just_taken_cannot_be_discarded(mf: MF) -> None:
    state = mf.build(hands={0: EIGHT}, return_pile=["R.media.4"], active=0)
    state, _ = mf.act(state, "build:return_pile")
    options = mf.ids(state)
    assert "discard:R.media.4" not in options and len(options) == 8
    state = mf.build(hands={0: EIGHT}, deck_tops={"return_deck": ["R.media.4"]}, active=0)
    state, _ = mf.act(state, "build:return_deck")
    assert "discard:R.media.4" in mf.ids(state)


def test_example_4_1_a_seat_below_eight_climbs_back_one_card_per_build(mf: MF) -> None:
    from engine.market_fortune.state import MarketFortuneState

    state: MarketFortuneState = mf.build(seats=2, hands={0: EIGHT[:6], 1: EIGHT[6:]}, active=0)
    sizes = []
    for _ in range(3):
        state = state.model_copy(update={"active": 0, "stage": "main"})
        state, _ = mf.act(state, "build:stock_deck")
        if state.tasks:
            state, _ = mf.act(state, mf.ids(state)[0])
        sizes.append(state.seats[0].building_total())
    assert sizes == [7, 8, 8]


def test_example_5_2_an_optimisation_upgrades_an_investment(mf: MF) -> None:
    state = mf.build(hands={0: ("S.energy.5", *EIGHT[1:6])}, investments={0: [("S.energy.1", "R.energy.4")]}, active=0)
    state, _ = mf.act(state, "optimise:S.energy.1:S.energy.5", "discard:S.energy.1")
    (investment,) = state.seats[0].investments
    assert (investment.stock, investment.ret) == ("S.energy.5", "R.energy.4")
    assert "S.energy.1" in state.stock_pile and state.seats[0].building_total() == 7


def test_example_8_1_and_8_2_the_count() -> None:
    from engine.market_fortune.scoring import count
    from engine.market_fortune.state import Investment, SeatState

    four = tuple(
        Investment(stock=s, ret=r)
        for s, r in [("S.energy.5", "R.energy.3"), ("S.banking.4", "R.banking.4"), ("S.health.3", "R.health.2"), ("S.retail.2", "R.retail.1")]
    )
    assert count(SeatState(investments=four)).total == 24
    assert count(SeatState(investments=four, strategies=("X.dividends.1",))).total == 26


def test_example_10_3_market_terms(mf: MF) -> None:
    from engine.market_fortune.scoring import equal_or_ahead, is_last_place, leaders

    pairs = [(f"S.{i}.1", f"R.{i}.1") for i in ("energy", "banking", "health", "retail", "media", "mining", "farming", "property")]
    state = mf.build(investments={0: pairs[:2], 1: pairs[2:5], 2: pairs[5:8]})
    assert leaders(state) == (1, 2)
    assert [is_last_place(state, seat) for seat in range(4)] == [False, False, False, True]
    assert [other for other in (1, 2, 3) if equal_or_ahead(state, 0, other)] == [1, 2]


def test_example_7_2_group_attack_windows_go_clockwise_from_the_attacker(mf: MF) -> None:
    one = {seat: [(f"S.{industry}.1", f"R.{industry}.1")] for seat, industry in ((0, "energy"), (2, "banking"), (3, "health"), (4, "retail"))}
    hands = {seat: (f"S.media.{seat + 1}",) for seat in range(5)}
    state = mf.build(seats=5, hands=hands, investments=one, strategies={2: ("X.inflation.1",), 4: ("X.risk_control.1",)}, active=2, stage="red")
    state, _ = mf.act(state, "play:X.inflation.1")
    windows = []
    while state.attack is not None or state.tasks:
        seat = mf.game.to_act(state)[0]
        if state.attack is not None and state.attack.defender == seat and not state.tasks:
            windows.append(seat)
            choice = "defend:X.risk_control.1" if seat == 4 else "decline"
        else:
            choice = mf.ids(state)[0]
        state, _ = mf.act(state, choice)
    assert windows == [3, 4, 0]
    assert [len(state.seats[seat].hand) for seat in (0, 3, 4)] == [0, 0, 1]
