"""What a tournament shows to anyone (issue 33, W4 and W5).

* ``replays.jsonl`` was not counted against the anonymous replay limit: 320 replays in
  3.5 s from one address. It now counts as many replays as it holds.
* A private rated tournament put its entrants and ratings on the public leaderboard; its
  ratings now stay in the tournament.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gateway.config import Settings

GAME = "market-fortune"
Headers = dict[str, str]
ALLOWANCE = 6


@pytest.fixture()
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"sweeper_interval_s": 0.05,
                                       "anonymous_replays_per_address": ALLOWANCE,
                                       "anonymous_replay_window_s": 3600})


def _played(client: TestClient, organiser_headers: Headers, **changes: Any) -> str:
    created = client.post("/v1/tournaments", headers=organiser_headers, json={
        "name": "bots", "game": GAME, "mode": "family", "seats": 2,
        "options": {"turn_limit_per_seat": 4}, "entrants": ["bot:greedy", "bot:random"],
        "format": "duplicate", "boards": 2, "turn_timeout_s": 0.2, "max_concurrent_tables": 4,
        **changes})
    assert created.status_code == 201, created.text
    tournament_id: str = created.json()["id"]
    give_up = time.monotonic() + 20
    while client.get(f"/v1/tournaments/{tournament_id}",
                     headers=organiser_headers).json()["status"] == "running":
        assert time.monotonic() < give_up
        time.sleep(0.05)
    return tournament_id


def test_a_bundle_counts_as_many_replays_as_it_holds(
    client: TestClient, organiser_headers: Headers,
) -> None:
    tournament_id = _played(client, organiser_headers)
    bundle = client.get(f"/v1/tournaments/{tournament_id}/replays.jsonl")
    assert bundle.status_code == 200
    held = len(bundle.text.splitlines())
    assert held == 4 and 2 * held > ALLOWANCE
    again = client.get(f"/v1/tournaments/{tournament_id}/replays.jsonl")
    assert again.status_code == 429 and again.json()["code"] == "rate/limited"
    assert "Retry-After" in again.headers
    # The organiser is not an anonymous reader.
    assert client.get(f"/v1/tournaments/{tournament_id}/replays.jsonl",
                      headers=organiser_headers).status_code == 200


def test_a_private_tournament_stays_off_the_public_leaderboard(
    client: TestClient, organiser_headers: Headers,
) -> None:
    tournament_id = _played(client, organiser_headers, private=True, rated=True)
    own = client.get(f"/v1/tournaments/{tournament_id}", headers=organiser_headers).json()
    assert own["ratings"]  # rated within the tournament
    board = client.get(f"/v1/games/{GAME}/leaderboard").json()
    assert board["tables"] == 0 and board["ratings"] == []
    _played(client, organiser_headers, rated=True)  # the control: a public one is shown
    assert client.get(f"/v1/games/{GAME}/leaderboard").json()["tables"] == 4
