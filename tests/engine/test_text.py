"""The engines' counted words: singular for one, plural otherwise, signs kept when asked."""

from __future__ import annotations

from engine.text import counted


def test_counted_words_agree_with_their_number() -> None:
    assert counted(1, "investment") == "1 investment"
    assert counted(0, "investment") == "0 investments"
    assert counted(3, "Strategy", "Strategies") == "3 Strategies"
    assert counted(1, "Strategy", "Strategies") == "1 Strategy"
    assert counted(1, "space", signed=True) == "+1 space"
    assert counted(-1, "space", signed=True) == "-1 space"
    assert counted(-4, "space", signed=True) == "-4 spaces"
