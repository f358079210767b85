"""No agent ever holds two live tables of one board: every format, form and concurrency.

The scheduler's decision (:func:`tournament.pacing.due_tables`) is played out here
against seeded random finishing orders, by one worker or by two workers deciding from
snapshots of different ages (a lease that ran out), as the gateway's scheduler does.
After every step the live tables are checked: no agent at two of one board. The
same runs check that the concurrency is used (boards interleave) and that every
table is played.
"""

from __future__ import annotations

import functools
import random
from collections import Counter

import pytest

from tests.tournament.helpers import result
from tournament.pacing import due_tables, is_agent, live_boards
from tournament.plan import DuplicateForm, Format, TablePlan, plan_swiss_round, plan_tournament
from tournament.results import TableResult

BOTS = ["bot:greedy", "bot:random", "bot:cautious"]

# (format, form, entrants, baselines, seats, boards)
CASES = [
    ("duplicate", "rotated", 4, 0, 4, 3),
    ("duplicate", "rotated", 8, 0, 4, 3),
    ("duplicate", "rotated", 6, 1, 3, 3),
    ("duplicate", "disjoint", 8, 0, 4, 3),
    ("duplicate", "disjoint", 9, 2, 4, 3),
    ("duplicate", "disjoint", 16, 0, 4, 2),
    ("gauntlet", "rotated", 5, 3, 4, 3),
    ("gauntlet", "rotated", 6, 1, 4, 3),
    ("gauntlet", "disjoint", 5, 2, 3, 3),
    ("round_robin", None, 9, 0, 3, 4),
    ("round_robin", None, 6, 2, 4, 4),
    ("swiss", None, 8, 0, 4, 3),
    ("swiss", None, 7, 1, 2, 3),
]


def _names(count: int) -> list[str]:
    return [f"agt_{number:02d}" for number in range(count)]


@functools.cache
def _planned(fmt: Format, form: DuplicateForm | None, entrants: int, baselines: int, seats: int, boards: int,
             seed: int) -> tuple[TablePlan, ...]:
    return tuple(plan_tournament(
        format=fmt, entrants=_names(entrants), baselines=BOTS[:baselines],
        seats=seats, boards=boards, rounds=None, seed=seed, form=form))


def _assert_no_agent_at_two_live_tables_of_a_board(plans: dict[int, TablePlan],
                                                    created: set[int], done: set[int]) -> None:
    seen: Counter[tuple[str, int]] = Counter()
    for index in created - done:
        seen.update((entrant, plans[index].board) for entrant in plans[index].seating
                    if is_agent(entrant))
    assert not [key for key, count in seen.items() if count > 1], seen


def _play(fmt: Format, form: DuplicateForm | None, entrants: int, baselines: int, seats: int, boards: int,
          concurrency: int, workers: int, seed: int) -> int:
    """Play a whole plan; returns the most boards ever live at once."""
    rng = random.Random(seed)
    players, bots = _names(entrants), BOTS[:baselines]
    plans = {plan.index: plan for plan in _planned(fmt, form, entrants, baselines, seats, boards,
                                                    seed)}
    created: set[int] = set()
    done: set[int] = set()
    results: list[TableResult] = []
    history: list[tuple[frozenset[int], frozenset[int]]] = [(frozenset(), frozenset())]
    most_boards = 0
    for _step in range(10_000):
        if fmt == "swiss" and done == set(plans) and 1 + max(p.round for p in plans.values()) < boards:
            round_ = 1 + max(p.round for p in plans.values())
            for plan in plan_swiss_round(entrants=players, baselines=bots, seats=seats,
                                         round=round_, board=round_, first_index=len(plans),
                                         results=results, seed=seed):
                plans[plan.index] = plan
        if done == set(plans):
            break
        for _worker in range(workers):
            # A worker decides from a snapshot of some age; creating a table that exists is a no-op.
            seen_created, seen_done = rng.choice(history[-3:])
            created.update(due_tables(plans, seen_created, seen_done, concurrency))
        _assert_no_agent_at_two_live_tables_of_a_board(plans, created, done)
        most_boards = max(most_boards, len({board for _, board in live_boards(plans, created, done)}))
        running = sorted(created - done)
        for index in rng.sample(running, rng.randint(1, len(running))) if running else ():
            done.add(index)
            plan = plans[index]
            results.append(result(plan.seating, list(range(1, seats + 1)), index=index,
                                  board=plan.board, round=plan.round))
        history.append((frozenset(created), frozenset(done)))
    assert done == set(plans) and len(created) == len(plans)
    return most_boards


@pytest.mark.parametrize(("fmt", "form", "entrants", "baselines", "seats", "boards"), CASES)
@pytest.mark.parametrize("concurrency", [1, 3, 8, 64])
@pytest.mark.parametrize("workers", [1, 2])
def test_no_agent_ever_holds_two_live_tables_of_one_board(
        fmt: Format, form: DuplicateForm | None, entrants: int, baselines: int, seats: int, boards: int,
        concurrency: int, workers: int) -> None:
    for seed in range(2):
        most_boards = _play(fmt, form, entrants, baselines, seats, boards, concurrency, workers,
                            seed)
        if concurrency >= 8 and fmt != "swiss":  # swiss plays a round (one board) at a time
            assert most_boards >= 2, "the boards never interleaved"


def test_the_disjoint_form_starts_a_whole_board_at_once() -> None:
    plans = {plan.index: plan for plan in plan_tournament(
        format="duplicate", entrants=_names(16), baselines=[], seats=4, boards=2, rounds=None,
        seed=3, form="disjoint")}
    first = due_tables(plans, set(), set(), 64)
    assert first == sorted(plans)  # nobody plays a board twice: nothing waits
    rotated = {plan.index: plan for plan in plan_tournament(
        format="duplicate", entrants=_names(16), baselines=[], seats=4, boards=2, rounds=None,
        seed=3, form="rotated")}
    started = due_tables(rotated, set(), set(), 64)
    assert len(started) == 8  # one rotation per group and board; the others wait
    assert len({(rotated[index].board, frozenset(rotated[index].seating)) for index in started}) == 8


def test_house_bots_are_exempt_and_a_table_waits_for_its_agents() -> None:
    plans = {0: TablePlan(0, 0, 0, 0, ("agt_a", "bot:x")), 1: TablePlan(1, 0, 0, 1, ("bot:x", "agt_a")),
             2: TablePlan(2, 1, 1, 0, ("agt_a", "bot:x")), 3: TablePlan(3, 0, 0, 0, ("agt_b", "bot:x"))}
    assert due_tables(plans, set(), set(), 4) == [0, 2, 3]
    assert due_tables(plans, {0, 2, 3}, set(), 4) == []
    assert due_tables(plans, {0, 2, 3}, {0}, 4) == [1]
    assert due_tables(plans, {0, 2, 3}, {0}, 2) == []  # the concurrency holds
