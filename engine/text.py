"""Small helpers for the plain-English texts the engines write (events, actions, summaries)."""

from __future__ import annotations

__all__ = ["counted"]


def counted(number: int, word: str, plural: str | None = None, *, signed: bool = False) -> str:
    """``number`` and ``word``, plural unless the number is one or minus one.

    ``counted(1, "turn")`` is ``"1 turn"``, ``counted(3, "Strategy", "Strategies")``
    is ``"3 Strategies"``, ``counted(1, "space", signed=True)`` is ``"+1 space"``.
    """
    shown = f"{number:+d}" if signed else str(number)
    return f"{shown} {word if abs(number) == 1 else plural or word + 's'}"
