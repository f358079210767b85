"""``bench/action_work.py`` runs and reports every part of an action's game work."""

from __future__ import annotations

import pytest

from bench import action_work


def test_it_times_each_part_of_an_action(capsys: pytest.CaptureFixture[str]) -> None:
    assert action_work.main(["--games", "1"]) == 0
    printed = capsys.readouterr().out
    for part in ("parse", "apply", "state JSON", "observation", "game work per action",
                 "JSON round trip of the state"):
        assert part in printed
    assert "who acts changes after" in printed
