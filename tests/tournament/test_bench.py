"""``bench/tournament.py``: both forms play the same number of tables and see greedy beat random."""

from __future__ import annotations

from bench import tournament as bench


def test_greedy_scores_above_random_in_both_forms() -> None:
    # The field's second difference is greedy's points per table minus random's: every
    # seeded tournament of either form must find greedy ahead, or the bench measures noise.
    field = bench.FIELDS["mixed"]
    forms = {"duplicate": lambda entrants, seed: bench.duplicate_plans(entrants, 1, seed),
             "plain": lambda entrants, seed: bench.plain_plans(entrants, 4, seed)}
    for name, form in forms.items():
        values = bench.measure("market-fortune", "fortune", field, 2, form, own_chance=False)
        assert set(values) == {"greedy#1 - greedy#2", "greedy#1 - greedy#2 (points)",
                               "greedy - random", "greedy - random (points)"}
        assert all(len(spread) == 2 for spread in values.values())
        assert all(difference > 0 for difference in values["greedy - random (points)"]), (name, values)


def test_both_forms_play_the_same_number_of_tables() -> None:
    entrants = bench.FIELDS["mixed"].entrants
    duplicate = bench.duplicate_plans(entrants, 3, seed=1)
    plain = bench.plain_plans(entrants, len(duplicate), seed=1)
    assert len(duplicate) == len(plain) == 12
    assert len({plan.board for plan in duplicate}) == 3
    assert len({plan.board for plan in plain}) == 12
