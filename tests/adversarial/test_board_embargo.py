"""Live board results (issue 33, W1): standings, live ratings and the public leaderboard
counted every finished table, so an anonymous reader saw one rotation's placements while
its board was still being played. Each now counts a board only once all of its tables
are over: at every look while the tournament runs, what an anonymous reader is shown adds
up to the published boards' tables and no more, although the organiser sees tables
finished beyond them."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from gateway.config import Settings
from tests.gateway.test_tournaments import _register

GAME = "market-fortune"
Headers = dict[str, str]


@pytest.fixture()
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"sweeper_interval_s": 0.02})


def test_nothing_of_a_board_counts_before_it_is_over(
    client: TestClient, settings: Settings, organiser_headers: Headers,
) -> None:
    agents = _register(settings, "ann", "bob")
    created = client.post("/v1/tournaments", headers=organiser_headers, json={
        "name": "embargo", "game": GAME, "mode": "family", "seats": 2,
        "options": {"turn_limit_per_seat": 2}, "entrants": agents, "format": "duplicate",
        "boards": 2, "turn_timeout_s": 0.1, "max_concurrent_tables": 4, "rated": True})
    assert created.status_code == 201, created.text
    tournament_id = created.json()["id"]
    ahead = 0  # looks at which the organiser saw finished tables of an unfinished board
    give_up = time.monotonic() + 40
    while True:
        # Read in this order: the ladder cannot be ahead of what is published after it.
        ladder = client.get(f"/v1/games/{GAME}/leaderboard").json()
        shown = client.get(f"/v1/tournaments/{tournament_id}").json()
        organiser = client.get(f"/v1/tournaments/{tournament_id}", headers=organiser_headers).json()
        published = [table for table in shown["tables"] if table["status"] == "finished"]
        assert sum(standing["games"] for standing in shown["standings"]) == 2 * len(published)
        assert sum(rating["games"] for rating in shown["ratings"]) == 2 * len(published)
        assert ladder["tables"] <= len(published) and len(published) % 2 == 0
        ahead += organiser["progress"]["done"] > len(published)
        if shown["status"] != "running":
            break
        assert time.monotonic() < give_up, "the tournament did not finish"
        time.sleep(0.02)
    assert ahead > 0, "never looked while a board was half played"
    assert len(published) == 4 and client.get(f"/v1/games/{GAME}/leaderboard").json()["tables"] == 4
