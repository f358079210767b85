"""``bench/tournament.py`` plays both forms and prints the spreads and their ratio."""

from __future__ import annotations

import pytest

from bench import tournament as bench


def test_it_prints_both_forms_and_the_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--boards", "1", "--repeats", "2", "--field", "mixed"],
                      gateway_rate=5.0) == 0
    printed = capsys.readouterr().out
    assert "greedy#1 - greedy#2: duplicate mean" in printed
    assert "| plain mean" in printed and "| ratio" in printed
    assert "in-process house-bot tables:" in printed
    assert "through the gateway: 5.0/s, ratio" in printed


def test_both_forms_play_the_same_number_of_tables() -> None:
    entrants = bench.FIELDS["mixed"].entrants
    duplicate = bench.duplicate_plans(entrants, 3, seed=1)
    plain = bench.plain_plans(entrants, len(duplicate), seed=1)
    assert len(duplicate) == len(plain) == 12
    assert len({plan.board for plan in duplicate}) == 3
    assert len({plan.board for plan in plain}) == 12
