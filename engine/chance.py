"""Seeded chance: every die roll and shuffle derives from ``(seed, counter)``.

The state keeps only the table seed and an integer counter; each draw of
chance uses the next counter value. That keeps states small (no RNG object to
serialise) and makes ``seed + action log`` replay a table exactly. The seed
itself must never reach a player before the table ends.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, TypeVar

__all__ = ["draw_below", "roll", "shuffle"]

T = TypeVar("T")


_SPAN = 1 << 64


def _hasher(seed: int, counter: int) -> Any:
    """A BLAKE2b state that has read ``"<seed>:<counter>:"``; each draw copies it.

    Copying a hasher that has read the common prefix costs about half of
    hashing the whole text anew, and a shuffle makes one draw per card.
    """
    return hashlib.blake2b(f"{seed}:{counter}:".encode(), digest_size=8)


def _draw(hasher: Any, index: int, bound: int) -> int:
    """A uniform integer in ``[0, bound)`` from draws ``index``, ``index + 1``, ... of ``hasher``.

    Each attempt hashes ``"<seed>:<counter>:<index + attempt>"`` to 64 bits;
    rejection sampling (no modulo bias).
    """
    limit = _SPAN - (_SPAN % bound)
    attempt = index
    while True:
        stream = hasher.copy()
        stream.update(str(attempt).encode())
        value = int.from_bytes(stream.digest(), "big")
        if value < limit:
            return value % bound
        attempt += 1


def draw_below(seed: int, counter: int, bound: int, index: int = 0) -> int:
    """A uniform integer in ``[0, bound)`` (rejection sampling, no modulo bias)."""
    if bound <= 0:
        raise ValueError("bound must be positive")
    return _draw(_hasher(seed, counter), index * 1_000_003, bound)


def roll(seed: int, counter: int, sides: int) -> int:
    """A die roll in ``[1, sides]`` for chance event ``counter``."""
    return draw_below(seed, counter, sides) + 1


def shuffle(seed: int, counter: int, items: Sequence[T]) -> list[T]:
    """A Fisher-Yates shuffle of ``items`` for chance event ``counter``."""
    result = list(items)
    hasher = _hasher(seed, counter)
    for i in range(len(result) - 1, 0, -1):
        j = _draw(hasher, i * 1_000_003, i + 1)
        result[i], result[j] = result[j], result[i]
    return result
