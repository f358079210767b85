"""Messages an LLM agent reads say what is true and what to do next."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from gateway.config import Settings
from tests.gateway.tables_helpers import agents, seated_table


def test_a_version_ahead_of_the_table_is_not_called_a_table_that_moved_on(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    seats = agents(mint_token, auth, "future", 2)
    table_id = seated_table(client, seats, seed=3)
    observed = client.get(f"/v1/tables/{table_id}/observation", headers=seats[0]).json()
    actor = seats[observed["to_act"][0]]
    mine = client.get(f"/v1/tables/{table_id}/observation", headers=actor).json()
    action = mine["legal_actions"][0]["id"]
    ahead = client.post(f"/v1/tables/{table_id}/actions", headers=actor,
                        json={"version": mine["version"] + 5, "action": action})
    assert ahead.status_code == 409 and ahead.json()["code"] == "table/stale_version"
    assert "ahead of the table" in ahead.json()["detail"]
    assert "moved on" not in ahead.json()["detail"]
    assert client.post(f"/v1/tables/{table_id}/actions", headers=actor,
                       json={"version": mine["version"], "action": action}).status_code == 200
    behind = client.post(f"/v1/tables/{table_id}/actions", headers=actor,
                         json={"version": mine["version"], "action": action})
    assert behind.status_code in (409,) and behind.json()["code"] in (
        "table/stale_version", "action/not_your_turn")
    if behind.json()["code"] == "table/stale_version":
        assert "moved on to version" in behind.json()["detail"]


def test_the_served_rulebooks_carry_no_maintainer_comments(client: TestClient) -> None:
    for game in ("hab-und-gut", "market-fortune"):
        served = client.get(f"/v1/games/{game}/rulebook")
        assert served.status_code == 200
        assert "<!--" not in served.text and "-->" not in served.text
        assert "\n\n\n" not in served.text
        assert served.text.startswith("# ")
    # the source file does carry one (the test is not vacuous)
    from engine.registry import get_game

    assert "<!--" in get_game("hab-und-gut").rulebook()


def test_the_default_turn_clock_fits_slow_models_and_is_the_operators_to_set(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seats = agents(mint_token, auth, "clock", 1)
    created = client.post("/v1/tables", headers=seats[0], json={
        "game": "market-fortune", "mode": "family", "seats": 2}).json()
    assert created["turn_timeout_s"] == 300.0  # no table setting: the server's default
    own = client.post("/v1/tables", headers=seats[0], json={
        "game": "market-fortune", "mode": "family", "seats": 2, "turn_timeout_s": 45}).json()
    assert own["turn_timeout_s"] == 45.0
    monkeypatch.setenv("AGENTS_CLUB_DEFAULT_TURN_TIMEOUT_S", "900")
    assert Settings(environment="test").default_turn_timeout_s == 900.0
