"""One entrant at two live tables of one deal (issue 33, B1): the plan puts a board's
rotations side by side, and the scheduler started them together, so with four seats and
four concurrent tables one entrant held every seat of a live deal and saw each starting
hand. Now a table waits while any of its agents still plays another table of its board.

Four agents enter a duplicate tournament of four seats over two boards, with room for
all eight tables at once (the field fills one table: the rotated form). Every table's
life (created, finished) comes from the server's own records; no agent may ever have two
overlapping lives on one board, while tables of different boards do overlap (the
concurrency is used, not given up).

Eight agents at four seats fill two tables: the disjoint form is then the default, and
no agent sees a board twice at all (an agent that remembers learns nothing of a deal it
still has to play). Asking for it with four agents is a 422.

Every format and concurrency, by one worker or two with snapshots of different ages, is
played out on the scheduler's decision itself in ``tests/tournament/test_pacing.py``."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from itertools import combinations
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gateway.config import Settings
from tests.gateway.test_tournaments import _register
from tournament.bundle import verify_bundle

GAME = "market-fortune"
Headers = dict[str, str]


@pytest.fixture()
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"sweeper_interval_s": 0.02})


def _play(client: TestClient, organiser_headers: Headers, organiser: Headers,
          agents: list[str], boards: int, **fields: object,
          ) -> tuple[dict[str, Any], dict[tuple[str, int], list[tuple[float, float]]],
                     list[tuple[int, float, float]]]:
    """Run a duplicate tournament to its end; its record, and every table's life
    (created, finished) by agent and board, from the server's own records."""
    created = client.post("/v1/tournaments", headers=organiser_headers, json={
        "name": "duplicate", "game": GAME, "mode": "family", "seats": 4,
        "options": {"turn_limit_per_seat": 2}, "entrants": agents, "format": "duplicate",
        "boards": boards, "turn_timeout_s": 0.05, "max_concurrent_tables": 8, **fields})
    assert created.status_code == 201, created.text
    tournament_id = created.json()["id"]
    give_up = time.monotonic() + 45
    while client.get(f"/v1/tournaments/{tournament_id}",
                     headers=organiser_headers).json()["status"] == "running":
        assert time.monotonic() < give_up, "the tournament did not finish"
        time.sleep(0.1)
    results = client.get(f"/v1/tournaments/{tournament_id}/results",
                         headers=organiser_headers).json()["results"]
    lives: dict[tuple[str, int], list[tuple[float, float]]] = defaultdict(list)
    every: list[tuple[int, float, float]] = []
    for result in results:
        table = client.get(f"/v1/tables/{result['table_id']}", headers=organiser).json()
        life = (table["created_at"], result["finished_at"])
        every.append((result["board"], *life))
        for agent in result["seating"]:
            lives[(agent, result["board"])].append(life)
    return created.json(), lives, every


def _assert_never_two_live(lives: dict[tuple[str, int], list[tuple[float, float]]]) -> None:
    for (agent, board), spans in lives.items():
        for (_start, end), (other_start, _other_end) in combinations(sorted(spans), 2):
            assert end <= other_start, f"{agent} held two live tables of board {board}"


def test_no_entrant_ever_holds_two_live_tables_of_one_board(
    client: TestClient, settings: Settings, organiser_headers: Headers,
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    organiser = auth(mint_token(agent_id="org", name="org", kind="organiser"))
    agents = _register(settings, "north", "east", "south", "west")
    shown, lives, every = _play(client, organiser_headers, organiser, agents, 2)
    assert shown["duplicate_form"] == "rotated"  # four agents fill one table only
    assert len(every) == 8  # one group, four rotations, two boards
    assert all(len(spans) == 4 for spans in lives.values())  # every seat of a board, once each
    _assert_never_two_live(lives)
    assert any(board != other_board and start < other_end and other_start < end
               for (board, start, end), (other_board, other_start, other_end)
               in combinations(every, 2)), "the boards never interleaved"


def test_in_the_disjoint_form_no_entrant_sees_a_board_twice(
    client: TestClient, settings: Settings, organiser_headers: Headers,
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    organiser = auth(mint_token(agent_id="org", name="org", kind="organiser"))
    agents = _register(settings, *(f"player-{number}" for number in range(8)))
    shown, lives, every = _play(client, organiser_headers, organiser, agents, 3)
    assert shown["duplicate_form"] == "disjoint"  # the default: eight agents fill two tables
    assert len(every) == 6  # two groups, one table each, three boards
    assert set(lives) == {(agent, board) for agent in agents for board in range(3)}
    assert all(len(spans) == 1 for spans in lives.values()), "an agent saw a board twice"
    _assert_never_two_live(lives)
    # The exports take the form as they are: each board's two tables, rotations 0 and 1,
    # and the bundle reproduces (replays, standings, fit) as `agents-club tournament verify` does.
    bundle = client.get(f"/v1/tournaments/{shown['id']}/bundle", headers=organiser_headers).json()
    assert bundle["tournament"]["duplicate_form"] == "disjoint"
    assert sorted((result["board"], result["rotation"]) for result in bundle["results"]) == [
        (board, rotation) for board in range(3) for rotation in range(2)]
    assert verify_bundle(bundle) == []
    report = client.get(f"/v1/tournaments/{shown['id']}/report", headers=organiser_headers)
    assert report.status_code == 200, report.text
    scores = report.json()["duplicate_scores"]
    assert {entrant: sorted(by_board) for entrant, by_board in scores.items()} == {
        agent: ["0", "1", "2"] for agent in agents}  # one table of every board each


def test_the_disjoint_form_is_refused_on_a_field_of_one_table(
    client: TestClient, settings: Settings, organiser_headers: Headers,
) -> None:
    agents = _register(settings, "north", "east", "south", "west")
    refused = client.post("/v1/tournaments", headers=organiser_headers, json={
        "name": "too small", "game": GAME, "mode": "family", "seats": 4, "entrants": agents,
        "format": "duplicate", "duplicate_form": "disjoint"})
    assert refused.status_code == 422
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert refused.json()["code"] == "tournament/invalid"
    assert "disjoint form needs the field to fill two tables" in refused.json()["detail"]
