"""Seeded chance: the exact sequence a seed gives, and its distribution.

A stored table replays from its seed and action log (``core.replay``), so the
values a ``(seed, counter)`` gives are part of the format: the recorded
sequences below fail on any change to how chance is derived, and an independent
derivation from the documented recipe (BLAKE2b of ``"<seed>:<counter>:<attempt>"``,
64 bits, rejection sampling) checks that the recording is that recipe.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter

from engine.chance import draw_below, roll, shuffle

ROLLS_OF_SEED_7 = [3, 1, 4, 2, 5, 3, 3, 6, 6, 2, 5, 5, 2, 6, 3, 2, 2, 6, 4, 1]
"""``roll(7, counter, 6)`` for counters 0 to 19."""


def _recipe(seed: int, counter: int, bound: int) -> int:
    """``draw_below`` as its docstring describes it, written out again."""
    span = 1 << 64
    for attempt in itertools.count():
        digest = hashlib.blake2b(f"{seed}:{counter}:{attempt}".encode(), digest_size=8).digest()
        value = int.from_bytes(digest, "big")
        if value < span - span % bound:
            return value % bound
    raise AssertionError("unreachable")


def test_a_seed_gives_its_recorded_sequence() -> None:
    assert [roll(7, counter, 6) for counter in range(20)] == ROLLS_OF_SEED_7
    assert shuffle(7, 3, list(range(10))) == [5, 0, 2, 1, 4, 6, 8, 9, 3, 7]
    assert [draw_below(2026, counter, 1000) for counter in range(8)] == [
        69, 248, 917, 367, 925, 163, 710, 81]


def test_the_recording_is_the_documented_recipe() -> None:
    assert [_recipe(7, counter, 6) + 1 for counter in range(20)] == ROLLS_OF_SEED_7
    assert all(draw_below(seed, counter, bound) == _recipe(seed, counter, bound)
               for seed in (0, 1, 2**40) for counter in range(30) for bound in (2, 7, 1000))


def test_counter_and_seed_change_the_result() -> None:
    deals = {tuple(shuffle(seed, counter, range(30))) for seed in range(5) for counter in range(5)}
    assert len(deals) == 25


def test_shuffle_is_a_permutation() -> None:
    assert sorted(shuffle(1, 1, range(60))) == list(range(60))


def _chi_square(counts: Counter[int] | Counter[tuple[int, ...]], cells: int, draws: int) -> float:
    expected = draws / cells
    return sum((observed - expected) ** 2 / expected for observed in counts.values()) + (
        (cells - len(counts)) * expected)


def test_die_rolls_are_uniform() -> None:
    # 6,000 rolls of a d6: chi-square with 5 degrees of freedom stays under 20.5 with
    # probability 0.999 for a fair die; a die one face 3 points heavier fails it.
    counts: Counter[int] = Counter(roll(11, counter, 6) for counter in range(6000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert _chi_square(counts, 6, 6000) < 20.5, counts


def test_every_order_of_a_shuffle_is_equally_likely() -> None:
    # 4 items, 24 orders, 4,800 shuffles: chi-square with 23 degrees of freedom stays
    # under 49.7 with probability 0.999 (a biased swap, j in [0, n) instead of
    # [0, i], gives a skewed spread that fails it).
    counts: Counter[tuple[int, ...]] = Counter(
        tuple(shuffle(5, counter, range(4))) for counter in range(4800))
    assert len(counts) == 24
    assert _chi_square(counts, 24, 4800) < 49.7, counts
