"""Statistical sanity of whole tournaments played in-process by the real engine's house bots.

Market Fortune, Fortune mode, four seats; tables played with
:func:`tournament.house.play_plans` (``engine.simulation.play_table``).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.registry import get_game
from tournament.fit import BOARDS_TO_SEPARATE_GREEDY_FROM_RANDOM, Estimate, fit_report
from tournament.house import board_seed, play_plans
from tournament.plan import Format, plan_tournament

GAME, MODE = "market-fortune", "fortune"


def _tournament(fmt: Format, entrants: list[str], boards: int, seed: int, *,
                own_chance: bool = False) -> list[Estimate]:
    plans = plan_tournament(format=fmt, entrants=entrants, baselines=[],
                            seats=4, boards=boards, rounds=None, seed=seed)
    results = play_plans(game=GAME, mode=MODE, plans=plans, seed=seed, own_chance=own_chance)
    return fit_report(results, samples=200, seed=seed)


def _overlap(first: Estimate, second: Estimate) -> bool:
    return first.low <= second.high and second.low <= first.high


def test_every_rotation_of_a_board_starts_from_the_same_deal() -> None:
    game = get_game(GAME)
    config = game.config_model(mode=MODE, seats=4)
    plans = plan_tournament(format="duplicate", entrants=["bot:greedy", "r#1", "r#2", "r#3", "r#4"],
                            baselines=[], seats=4, boards=3, rounds=None, seed=5)
    deals: dict[int, Any] = {}
    for plan in plans:
        state = game.new_table(config, board_seed(5, plan.board))
        assert deals.setdefault(plan.board, state) == state
    assert len({deal.model_dump_json() for deal in deals.values()}) == 3


@pytest.mark.parametrize(("fmt", "boards", "own_chance"), [
    ("duplicate", 6, False), ("duplicate", 12, True), ("round_robin", 24, False)])
def test_four_identical_greedy_bots_all_overlap(fmt: Format, boards: int, own_chance: bool) -> None:
    """95% intervals: at 6 boards about one seeded tournament in twenty tells identical bots
    apart when each bot draws its own chance (measured, tournament/fit.py); at 12 none of
    twenty did, so the own-chance case is sized at 12 rather than betting on one seed."""
    estimates = _tournament(fmt, [f"greedy#{n}" for n in range(1, 5)], boards, seed=1,
                            own_chance=own_chance)
    assert all(_overlap(a, b) for a in estimates for b in estimates)
    assert {e.rank for e in estimates} == {"1–4"}
    if fmt == "duplicate" and not own_chance:
        # Deterministic bots on the same deals in every seat: the luck cancels exactly.
        assert all(abs(e.strength) < 1e-9 for e in estimates)


@pytest.mark.parametrize("seed", [0, 1])
def test_greedy_separates_from_random_within_the_stated_boards(seed: int) -> None:
    entrants = ["bot:greedy", "random#1", "random#2", "random#3"]
    estimates = _tournament("duplicate", entrants, BOARDS_TO_SEPARATE_GREEDY_FROM_RANDOM, seed)
    greedy, *randoms = estimates
    assert greedy.entrant == "bot:greedy"
    assert greedy.rank == "1"
    assert all(greedy.low > other.high for other in randoms)
