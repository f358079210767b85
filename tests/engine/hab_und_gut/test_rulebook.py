"""engine/hab_und_gut/rulebook.md: its tables are the engine's data, and every cited section exists."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

from engine.hab_und_gut import GAME
from engine.hab_und_gut.components import MARKET_CARDS, TRACK

ROOT = Path(__file__).resolve().parents[3]
RULEBOOK = ROOT / "engine" / "hab_und_gut" / "rulebook.md"


def _tables_tool() -> ModuleType:
    path = ROOT / "docs" / "tools" / "hab_und_gut_tables.py"
    spec = importlib.util.spec_from_file_location("hab_und_gut_tables", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _headings() -> set[str]:
    text = RULEBOOK.read_text(encoding="utf-8")
    return set(re.findall(r"^#{2,3} ([0-9]+(?:\.[0-9]+)?) ", text, re.MULTILINE))


def test_the_rulebook_tables_equal_the_engine_data() -> None:
    tool = _tables_tool()
    text = RULEBOOK.read_text(encoding="utf-8")
    assert tool.render(text) == text, "run python docs/tools/hab_und_gut_tables.py"
    for space, price in enumerate(TRACK):
        assert re.search(rf"^\| {space} \| {price}( \(start\))? \|$", text, re.MULTILINE)
    for card_id in (c for c in MARKET_CARDS if c.startswith("M.coal.")):
        assert f"`{card_id}`" in text


def test_every_section_the_engine_cites_exists() -> None:
    sources = (ROOT / "engine" / "hab_und_gut").glob("*.py")
    cited = {rule for path in sources for rule in re.findall(r'rule="([0-9.]+)"', path.read_text())}
    assert {"4.2", "4.3", "4.5", "5.1", "5.2"} <= cited
    assert cited <= _headings()


def test_the_game_serves_its_rulebook() -> None:
    assert GAME.rulebook() == RULEBOOK.read_text(encoding="utf-8")
    assert GAME.rulebook().startswith("# Hab & Gut")
