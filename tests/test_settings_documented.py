"""Every gateway setting is in the README's table of environment variables, so an operator
finds each knob where the README says they are (docs/deploy.md links there too)."""

from __future__ import annotations

from pathlib import Path

from gateway.config import Settings

README = Path(__file__).resolve().parent.parent / "README.md"


def test_every_setting_is_in_the_readme() -> None:
    text = README.read_text(encoding="utf-8")
    names = ["REDIS_URL" if name == "redis_url" else f"AGENTS_CLUB_{name.upper()}"
             for name in Settings.model_fields]
    missing = [name for name in names if f"`{name}`" not in text]
    assert missing == [], f"settings missing from the README's table: {missing}"
