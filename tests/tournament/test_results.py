"""Placements from an engine outcome, and the table result's checks and JSON round trip."""

from __future__ import annotations

from typing import Any

import pytest

from tournament.results import TableResult, placements


def _result(**changes: Any) -> TableResult:
    fields: dict[str, Any] = {
        "index": 3, "board": 1, "round": 1, "table_id": "tbl_1",
        "seating": ("agt_a", "agt_b", "bot:greedy", "bot:random"),
        "placements": (2, 1, 3, 3), "scores": (10.0, 12.5, 4.0, 4.0),
        "reason": "victory", "finished_at": 1_700_000_000.5,
    }
    fields.update(changes)
    return TableResult(**fields)


def test_a_single_winner_then_the_others_by_score() -> None:
    assert placements([2], [5.0, 9.0, 11.0, 1.0], 4) == (3, 2, 1, 4)


def test_winners_share_first_and_the_next_place_is_skipped() -> None:
    assert placements([0, 3], [1.0, 9.0, 5.0, 0.0], 4) == (1, 3, 4, 1)


def test_equal_scores_tie_among_the_rest() -> None:
    assert placements([1], [4.0, 99.0, 4.0, 2.0], 4) == (2, 1, 2, 4)


def test_no_scores_count_as_zeros_so_the_rest_share_one_place() -> None:
    assert placements([0], [], 4) == (1, 2, 2, 2)


def test_a_winner_goes_first_even_with_a_lower_score() -> None:
    assert placements([0], [1.0, 50.0, 20.0], 3) == (1, 2, 3)


def test_eliminated_seats_finish_after_everyone_still_in_the_running() -> None:
    # Hab & Gut: the least generous donor is out, however rich.
    assert placements([1], [300.0, 250.0, 200.0, 100.0], 4, eliminated=[0]) == (4, 1, 2, 3)
    # Two out: the one left in the running is second; the two out follow by score.
    assert placements([2], [300.0, 280.0, 250.0, 10.0], 4, eliminated=[0, 1]) == (3, 4, 1, 2)
    assert placements([2], [5.0, 5.0, 9.0], 3, eliminated=[0, 1]) == (2, 2, 1)


def test_a_winner_cannot_be_eliminated() -> None:
    with pytest.raises(ValueError, match="both won and were eliminated"):
        placements([0], [1.0, 2.0], 2, eliminated=[0])
    with pytest.raises(ValueError, match="not all seats"):
        placements([0], [1.0, 2.0], 2, eliminated=[5])


def test_no_winner_orders_by_score_alone() -> None:
    assert placements([], [3.0, 3.0, 7.0], 3) == (2, 2, 1)


@pytest.mark.parametrize(("winners", "scores", "seats"), [
    ([4], [1.0] * 4, 4),       # not a seat
    ([-1], [], 4),
    ([0], [1.0, 2.0], 4),      # scores neither empty nor one per seat
    ([], [], 0),
])
def test_placements_refuse_what_is_not_a_table(
        winners: list[int], scores: list[float], seats: int) -> None:
    with pytest.raises(ValueError):
        placements(winners, scores, seats)


def test_json_round_trip_gives_an_equal_result() -> None:
    result = _result()
    assert TableResult.from_json(result.to_json()) == result
    no_scores = _result(scores=())
    assert TableResult.from_json(no_scores.to_json()) == no_scores


def test_json_integers_read_as_float_scores() -> None:
    raw = _result().to_json() | {"scores": [10, 12, 4, 4], "finished_at": 17}
    result = TableResult.from_json(raw)
    assert result.scores == (10.0, 12.0, 4.0, 4.0)
    assert result.finished_at == 17.0


@pytest.mark.parametrize("raw_change", [
    {"index": "3"},
    {"index": True},
    {"seating": "agt_a"},
    {"placements": [1, 1, 2, 4]},           # not competition order
    {"placements": [2, 2, 3, 4]},           # no first place
    {"placements": [1, 2, 3]},              # one short
    {"scores": [1.0, 2.0]},
    {"scores": [1.0, 2.0, float("nan"), 0.0]},
    {"seating": ["agt_a", "agt_a", "bot:greedy", "bot:random"]},
    {"seating": ["agt_a"], "placements": [1], "scores": []},
])
def test_from_json_refuses_a_bad_result(raw_change: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        TableResult.from_json(_result().to_json() | raw_change)


def test_from_json_names_a_missing_field() -> None:
    raw = _result().to_json()
    del raw["reason"]
    with pytest.raises(ValueError, match="reason"):
        TableResult.from_json(raw)
