"""Seeded chance is deterministic, uniform enough, and depends on every input."""

from collections import Counter

from engine.chance import draw_below, roll, shuffle


def test_same_seed_and_counter_give_the_same_result() -> None:
    assert roll(7, 3, 6) == roll(7, 3, 6)
    assert shuffle(7, 3, list(range(20))) == shuffle(7, 3, list(range(20)))


def test_counter_and_seed_change_the_result() -> None:
    deals = {tuple(shuffle(seed, counter, range(30))) for seed in range(5) for counter in range(5)}
    assert len(deals) == 25


def test_shuffle_is_a_permutation() -> None:
    assert sorted(shuffle(1, 1, range(60))) == list(range(60))


def test_draws_are_roughly_uniform() -> None:
    counts = Counter(draw_below(11, counter, 6) for counter in range(6000))
    assert set(counts) == set(range(6))
    assert all(800 < n < 1200 for n in counts.values())
