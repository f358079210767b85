"""Seeded chance: every die roll and shuffle derives from ``(seed, counter)``.

The state keeps only the table seed and an integer counter; each draw of
chance uses the next counter value. That keeps states small (no RNG object to
serialise) and makes ``seed + action log`` replay a table exactly. The seed
itself must never reach a player before the table ends.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

__all__ = ["draw_below", "roll", "shuffle"]

T = TypeVar("T")


def _stream(seed: int, counter: int, index: int) -> int:
    """64 pseudo-random bits for draw ``index`` of chance event ``counter``."""
    digest = hashlib.blake2b(f"{seed}:{counter}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def draw_below(seed: int, counter: int, bound: int, index: int = 0) -> int:
    """A uniform integer in ``[0, bound)`` (rejection sampling, no modulo bias)."""
    if bound <= 0:
        raise ValueError("bound must be positive")
    limit = (1 << 64) - ((1 << 64) % bound)
    attempt = 0
    while True:
        value = _stream(seed, counter, index * 1_000_003 + attempt)
        if value < limit:
            return value % bound
        attempt += 1


def roll(seed: int, counter: int, sides: int) -> int:
    """A die roll in ``[1, sides]`` for chance event ``counter``."""
    return draw_below(seed, counter, sides) + 1


def shuffle(seed: int, counter: int, items: Sequence[T]) -> list[T]:
    """A Fisher-Yates shuffle of ``items`` for chance event ``counter``."""
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j = draw_below(seed, counter, i + 1, index=i)
        result[i], result[j] = result[j], result[i]
    return result
