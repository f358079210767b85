"""Properties of the tournament plans, format by format."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournament.plan import (
    DuplicateForm,
    Format,
    PlanError,
    TablePlan,
    duplicate_form,
    plan_swiss_round,
    plan_tournament,
    rotated_seat,
    schedule_balance,
)
from tournament.results import TableResult

BOTS = ["bot:greedy", "bot:random"]


def _names(count: int) -> list[str]:
    return [f"agt_{number:02d}" for number in range(count)]


def _plan(fmt: Format, players: int, seats: int, boards: int, *,
          baselines: list[str] | None = None, seed: int = 7,
          form: DuplicateForm | None = "rotated") -> list[TablePlan]:
    """A plan; duplicate and gauntlet in the ``form`` given (rotated unless told)."""
    return plan_tournament(format=fmt, entrants=_names(players), baselines=baselines or [],
                           seats=seats, boards=boards, rounds=None, seed=seed,
                           form=form if fmt in ("duplicate", "gauntlet") else None)


def _check_common(plans: list[TablePlan], seats: int) -> None:
    assert [plan.index for plan in plans] == list(range(len(plans)))
    for plan in plans:
        assert len(plan.seating) == seats
        assert len(set(plan.seating)) == seats
        assert plan.round == plan.board
    # Within one (board, rotation) slice nobody but a baseline sits twice.
    slices: dict[tuple[int, int], Counter[str]] = defaultdict(Counter)
    for plan in plans:
        slices[plan.board, plan.rotation].update(p for p in plan.seating if not p.startswith("bot:"))
    assert all(max(seen.values(), default=0) <= 1 for seen in slices.values())


def _check_rotations(plans: list[TablePlan], seats: int) -> None:
    """Every group of a board plays it once per rotation, each player in every seat."""
    by_group: dict[tuple[int, frozenset[str]], list[TablePlan]] = defaultdict(list)
    for plan in plans:
        by_group[plan.board, frozenset(plan.seating)].append(plan)
    for (board, _), tables in by_group.items():
        assert sorted(plan.rotation for plan in tables) == list(range(seats))
        assert {plan.board for plan in tables} == {board}
        for player in tables[0].seating:
            assert sorted(plan.seating.index(player) for plan in tables) == list(range(seats))
        first = next(plan for plan in tables if plan.rotation == 0)
        for plan in tables:
            assert all(plan.seating[rotated_seat(seat, plan.rotation, seats)] == first.seating[seat]
                       for seat in range(seats))
        if seats in (2, 4, 8):  # every two players trade seats between two rotations
            for a, b in itertools.combinations(first.seating, 2):
                assert any(x.seating.index(a) == y.seating.index(b)
                           and x.seating.index(b) == y.seating.index(a)
                           for x, y in itertools.combinations(tables, 2))


@pytest.mark.parametrize(("players", "seats", "boards"), [
    (4, 4, 3), (8, 4, 7), (5, 4, 5), (6, 4, 6), (7, 3, 7), (9, 5, 4), (12, 6, 5), (3, 2, 4),
])
def test_duplicate_rotates_every_board_through_every_seat(players: int, seats: int, boards: int) -> None:
    plans = _plan("duplicate", players, seats, boards)
    _check_common(plans, seats)
    _check_rotations(plans, seats)
    balance = schedule_balance(plans, seats)
    assert all(len(set(counts)) == 1 for counts in balance.seat_counts.values())
    games = sorted(balance.games.values())
    assert games[-1] - games[0] <= seats  # byes differ by at most one board
    assert len(plans) == boards * (players // seats) * seats


@pytest.mark.parametrize(("players", "seats", "boards", "spread"), [
    (8, 4, 7, 0),    # 3 boards per pair exactly
    (5, 4, 5, 0),    # one bye each: every pair on 3 boards
    (6, 4, 6, 1),
    (9, 3, 8, 1),
    (10, 4, 9, 2),
    (7, 3, 7, 2),
])
def test_duplicate_pairs_meet_evenly(players: int, seats: int, boards: int, spread: int) -> None:
    balance = schedule_balance(_plan("duplicate", players, seats, boards), seats)
    assert balance.pair_meetings_max - balance.pair_meetings_min <= spread, balance.text()
    assert balance.pair_meetings_min >= 1


def test_baselines_in_a_duplicate_are_ordinary_players() -> None:
    plans = _plan("duplicate", 2, 4, 2, baselines=BOTS)
    _check_rotations(plans, 4)
    assert {p for plan in plans for p in plan.seating} == {*_names(2), *BOTS}


@pytest.mark.parametrize(("players", "baselines", "seats", "entrants_per_table"), [
    (5, ["bot:a", "bot:b", "bot:c"], 4, 1),
    (5, ["bot:a", "bot:b", "bot:c", "bot:d", "bot:e"], 4, 1),  # more baselines than fit
    (6, ["bot:a"], 4, 3),
    (3, ["bot:a", "bot:b"], 3, 1),
])
def test_gauntlet_tables_hold_baselines_and_rotate(
        players: int, baselines: list[str], seats: int, entrants_per_table: int) -> None:
    plans = _plan("gauntlet", players, seats, 6, baselines=baselines)
    _check_common(plans, seats)
    _check_rotations(plans, seats)
    for plan in plans:
        assert sum(p not in baselines for p in plan.seating) == entrants_per_table
    balance = schedule_balance(plans, seats, baselines=baselines)
    assert set(balance.games) == set(_names(players))
    assert balance.pair_meetings_max - balance.pair_meetings_min <= 1, balance.text()


@pytest.mark.parametrize(("fmt", "players", "bots", "seats", "boards"), [
    ("duplicate", 8, 0, 4, 6), ("duplicate", 16, 0, 4, 4), ("duplicate", 9, 1, 4, 5),
    ("duplicate", 7, 0, 3, 6), ("duplicate", 4, 0, 2, 4), ("duplicate", 12, 0, 6, 6),
    ("gauntlet", 5, 2, 3, 6), ("gauntlet", 6, 1, 4, 3),
])
def test_the_disjoint_form_never_gives_a_player_a_board_twice(
        fmt: Format, players: int, bots: int, seats: int, boards: int) -> None:
    baselines = BOTS[:bots]
    plans = _plan(fmt, players, seats, boards, baselines=baselines, form="disjoint")
    _check_common(plans, seats)
    per_table = seats - min(bots, seats - 1) if fmt == "gauntlet" else seats
    field = players if fmt == "gauntlet" else players + bots
    groups = field // per_table
    assert len(plans) == boards * groups
    for board in range(boards):
        tables = [plan for plan in plans if plan.board == board]
        assert [plan.rotation for plan in tables] == list(range(groups))
        agents = [p for plan in tables for p in plan.seating if not p.startswith("bot:")]
        assert len(agents) == len(set(agents))  # nobody plays the board twice
    balance = schedule_balance(plans, seats, baselines=baselines if fmt == "gauntlet" else ())
    games = sorted(balance.games.values())
    assert games[-1] - games[0] <= 1  # byes differ by at most one board
    for player, counts in balance.seat_counts.items():
        if not player.startswith("bot:"):
            assert max(counts) - min(counts) <= 2, (player, counts)  # greedy, per board
    assert plans == _plan(fmt, players, seats, boards, baselines=baselines, form="disjoint")


@pytest.mark.parametrize(("fmt", "players", "bots", "seats", "chosen"), [
    ("duplicate", 8, 0, 4, "disjoint"), ("duplicate", 6, 2, 4, "disjoint"),
    ("duplicate", 7, 0, 4, "rotated"), ("duplicate", 4, 0, 4, "rotated"),
    ("gauntlet", 2, 1, 2, "disjoint"), ("gauntlet", 1, 2, 3, "rotated"),
    ("round_robin", 8, 0, 4, None), ("swiss", 8, 0, 4, None),
])
def test_the_disjoint_form_is_the_default_where_the_field_fills_two_tables(
        fmt: str, players: int, bots: int, seats: int, chosen: str | None) -> None:
    arguments: dict[str, Any] = {"format": fmt, "entrants": _names(players), "baselines": BOTS[:bots],
                 "seats": seats}
    assert duplicate_form(**arguments, form=None) == chosen
    default = plan_tournament(**arguments, boards=2, rounds=None, seed=1)
    if chosen is not None:
        assert default == plan_tournament(**arguments, boards=2, rounds=None, seed=1,
                                          form=chosen)


@pytest.mark.parametrize(("changes", "words"), [
    ({"entrants": _names(7), "form": "disjoint"}, "disjoint form needs the field to fill two"),
    ({"format": "gauntlet", "entrants": _names(1), "baselines": ["bot:a"], "seats": 2,
      "form": "disjoint"}, "at least 2 entrants"),
    ({"format": "round_robin", "form": "rotated"}, "applies to duplicate and gauntlet"),
    ({"format": "gauntlet", "baselines": ["agt_99"]}, "baselines are house bots"),
])
def test_a_form_that_does_not_fit_raises_plan_error(changes: dict[str, object], words: str) -> None:
    arguments: dict[str, Any] = {"format": "duplicate", "entrants": _names(8), "baselines": [],
                                    "seats": 4, "boards": 2, "rounds": None, "seed": 0}
    with pytest.raises(PlanError, match=words):
        plan_tournament(**(arguments | changes))


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6, 8])
def test_every_rotation_is_a_seat_permutation(seats: int) -> None:
    for rotation in range(seats):
        assert sorted(rotated_seat(p, rotation, seats) for p in range(seats)) == list(range(seats))
    for position in range(seats):
        assert sorted(rotated_seat(position, r, seats) for r in range(seats)) == list(range(seats))
        assert rotated_seat(position, 0, seats) == position


def test_round_robin_balances_pairs_and_seat_positions() -> None:
    plans = _plan("round_robin", 8, 4, 7)
    _check_common(plans, 4)
    assert all(plan.rotation == 0 for plan in plans)
    balance = schedule_balance(plans, 4)
    assert balance.pair_meetings_min == balance.pair_meetings_max == 3
    assert all(max(c) - min(c) <= 1 for c in balance.seat_counts.values())
    assert set(balance.games.values()) == {7}


@pytest.mark.parametrize(("players", "seats", "boards"), [(10, 4, 9), (9, 3, 12), (7, 5, 6)])
def test_round_robin_with_byes_spreads_them(players: int, seats: int, boards: int) -> None:
    balance = schedule_balance(_plan("round_robin", players, seats, boards), seats)
    games = sorted(balance.games.values())
    assert games[-1] - games[0] <= 1
    assert balance.pair_meetings_max - balance.pair_meetings_min <= 3, balance.text()
    assert all(max(c) - min(c) <= 2 for c in balance.seat_counts.values())


def _play(plans: list[TablePlan], strength: dict[str, int]) -> list[TableResult]:
    """Results where the stronger player always places better."""
    results = []
    for plan in plans:
        order = sorted(plan.seating, key=lambda p: -strength[p])
        results.append(TableResult(
            index=plan.index, board=plan.board, round=plan.round, table_id=f"t{plan.index}",
            seating=plan.seating, placements=tuple(order.index(p) + 1 for p in plan.seating),
            scores=(), reason="victory", finished_at=float(plan.index)))
    return results


def _repeats(plans: list[TablePlan]) -> int:
    met = Counter(frozenset(pair) for plan in plans
                  for pair in itertools.combinations(plan.seating, 2))
    return sum(count - 1 for count in met.values())


@pytest.mark.parametrize(("players", "seats", "rounds", "least_repeats"), [
    (12, 3, 4, 0),   # transversals exist: nobody meets twice in four rounds
    (16, 4, 3, 0),
    (8, 4, 2, 4),    # two old groups of 4 into new ones: 2 repeated pairs per table at best
])
def test_swiss_keeps_repeat_meetings_minimal(players: int, seats: int, rounds: int,
                                             least_repeats: int) -> None:
    entrants = _names(players)
    strength = {name: players - number for number, name in enumerate(entrants)}
    plans = _plan("swiss", players, seats, rounds)
    assert {plan.round for plan in plans} == {0}
    for number in range(1, rounds):
        plans += plan_swiss_round(entrants=entrants, seats=seats, round=number, board=number,
                                  first_index=len(plans), results=_play(plans, strength), seed=7)
    _check_common(plans, seats)
    assert _repeats(plans) == least_repeats


def test_swiss_groups_by_standing() -> None:
    entrants = _names(16)
    strength = {name: 16 - number for number, name in enumerate(entrants)}
    plans = _plan("swiss", 16, 4, 1)
    second = plan_swiss_round(entrants=entrants, seats=4, round=1, board=1, first_index=4,
                              results=_play(plans, strength), seed=7)
    # Round 0 winners (the strongest of each table) meet at the top table.
    winners = {max(plan.seating, key=lambda p: strength[p]) for plan in plans}
    assert set(second[0].seating) == winners
    assert [plan.index for plan in second] == [4, 5, 6, 7]


def test_swiss_byes_go_to_the_fewest_byes_lowest_standing() -> None:
    entrants = _names(5)
    strength = {name: 5 - number for number, name in enumerate(entrants)}
    plans = _plan("swiss", 5, 4, 1)
    rested = set(entrants) - set(plans[0].seating)
    for number in range(1, 5):
        plans += plan_swiss_round(entrants=entrants, seats=4, round=number, board=number,
                                  first_index=len(plans), results=_play(plans, strength), seed=7)
        rested |= set(entrants) - set(plans[-1].seating)
    assert rested == set(entrants)  # five rounds, five different byes


@pytest.mark.parametrize("fmt", ["duplicate", "round_robin", "swiss", "gauntlet"])
def test_plans_are_deterministic(fmt: Format) -> None:
    baselines = ["bot:a", "bot:b"]
    first = _plan(fmt, 7, 4, 3, baselines=baselines, seed=11)
    assert _plan(fmt, 7, 4, 3, baselines=baselines, seed=11) == first
    assert _plan(fmt, 7, 4, 3, baselines=baselines, seed=12) != first


@pytest.mark.parametrize(("changes", "words"), [
    ({"seats": 1}, "at least 2 seats"),
    ({"boards": 0}, "at least one board"),
    ({"entrants": []}, "at least one entrant"),
    ({"entrants": ["agt_1", "agt_1", "agt_2", "agt_3"]}, "only once"),
    ({"entrants": ["agt_1", "bot:greedy"], "baselines": ["bot:greedy"]}, "only once"),
    ({"entrants": ["agt_1", "agt_2"]}, "at least 4 players"),
    ({"format": "gauntlet"}, "at least one baseline"),
    ({"format": "ladder"}, "unknown format"),
    ({"rounds": 3}, "rounds"),
    ({"boards": 10_000, "entrants": _names(40)}, "more than"),
])
def test_impossible_plans_raise_plan_error(changes: dict[str, object], words: str) -> None:
    arguments: dict[str, Any] = {"format": "duplicate", "entrants": _names(4), "baselines": [],
                                    "seats": 4, "boards": 2, "rounds": None, "seed": 0}
    with pytest.raises(PlanError, match=words):
        plan_tournament(**(arguments | changes))


def test_rounds_equal_to_boards_is_accepted() -> None:
    assert plan_tournament(format="round_robin", entrants=_names(4), baselines=[], seats=4,
                           boards=3, rounds=3, seed=0) == _plan("round_robin", 4, 4, 3, seed=0)


def test_balance_text_states_the_spread() -> None:
    balance = schedule_balance(_plan("duplicate", 8, 4, 7), 4)
    assert balance.text() == ("Every pair of players meets on 3 boards; every player holds every "
                              "seat position equally often; each player plays 28 tables.")


@settings(max_examples=20, deadline=None)
@given(fmt=st.sampled_from(["duplicate", "round_robin", "gauntlet", "swiss"]),
       players=st.integers(1, 9), bots=st.integers(0, 3), seats=st.integers(2, 6),
       boards=st.integers(1, 4), seed=st.integers(0, 2**32))
def test_any_plannable_input_gives_a_sound_plan(fmt: Format, players: int, bots: int, seats: int,
                                                boards: int, seed: int) -> None:
    baselines = [f"bot:b{n}" for n in range(bots)]
    try:
        plans = _plan(fmt, players, seats, boards, baselines=baselines, seed=seed)
    except PlanError:
        field = players if fmt == "gauntlet" else players + bots
        need = seats - min(bots, seats - 1) if fmt == "gauntlet" else seats
        assert (fmt == "gauntlet" and bots == 0) or field < need
        return
    _check_common(plans, seats)
    if fmt in ("duplicate", "gauntlet"):
        _check_rotations(plans, seats)
    balance = schedule_balance(plans, seats, baselines=baselines if fmt == "gauntlet" else ())
    games = sorted(balance.games.values())
    per_board = seats if fmt in ("duplicate", "gauntlet") else 1
    assert games[-1] - games[0] <= per_board  # byes differ by at most one board
    assert plans == _plan(fmt, players, seats, boards, baselines=baselines, seed=seed)


def test_swiss_rounds_seat_the_baselines_as_players() -> None:
    entrants = _names(6)
    strength = {name: 6 - number for number, name in enumerate(entrants)} | {b: 0 for b in BOTS}
    plans = plan_tournament(format="swiss", entrants=entrants, baselines=BOTS, seats=4, boards=3,
                            rounds=None, seed=2)
    assert {p for plan in plans for p in plan.seating} == {*entrants, *BOTS}
    second = plan_swiss_round(entrants=entrants, baselines=BOTS, seats=4, round=1, board=1,
                              first_index=len(plans), results=_play(plans, strength), seed=2)
    assert {p for plan in second for p in plan.seating} == {*entrants, *BOTS}
    assert [plan.index for plan in second] == [2, 3]
    assert all(plan.round == plan.board == 1 for plan in second)
