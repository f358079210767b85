"""Who may choose a table's seed: whoever knows it knows every hidden card (the deal is the
public engine's ``new_table(config, seed)``), so an agent may never know the seed of a
table another agent can sit at before it ends. The replay still publishes the seed after
the end, and seed plus log still rebuild the final state.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine.core import replay as engine_replay
from engine.registry import get_game

GAME = "market-fortune"
PROBLEM = "application/problem+json"

Headers = dict[str, str]


@pytest.fixture()
def players(mint_token: Callable[..., str], auth: Callable[[str], Headers]) -> list[Headers]:
    """Auth headers of three agents admitted to Market Fortune."""
    return [auth(mint_token(agent_id=f"seat-{i}", name=f"seat{i}", games=(GAME,))) for i in range(3)]


@pytest.fixture()
def organiser(mint_token: Callable[..., str], auth: Callable[[str], Headers]) -> Headers:
    return auth(mint_token(agent_id="org", name="org", kind="organiser"))


def refused(response: Any) -> None:
    """403 ``table/seed_not_allowed``, whose detail names the rule."""
    assert response.status_code == 403, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert body["code"] == "table/seed_not_allowed"
    assert "house bots in every other seat" in body["detail"]


def play_some(client: TestClient, table_id: str, seats: list[Headers], moves: int) -> None:
    """Each seat to act plays its first legal action, ``moves`` times in all."""
    for _ in range(moves):
        for headers in seats:
            observation = client.get(f"/v1/tables/{table_id}/observation", headers=headers).json()
            if observation["seat"] in observation["to_act"] and observation["legal_actions"]:
                client.post(f"/v1/tables/{table_id}/actions", headers=headers, json={
                    "version": observation["version"],
                    "action": observation["legal_actions"][0]["id"]})
                break


def replays_exactly(client: TestClient, table_id: str, headers: Headers) -> dict[str, Any]:
    replay: dict[str, Any] = client.get(f"/v1/tables/{table_id}/replay", headers=headers).json()
    game = get_game(replay["game"])
    rebuilt = engine_replay(
        game, game.config_model.model_validate(replay["config"]), replay["seed"],
        [(entry["seat"], entry["action"]) for entry in replay["log"]],
    )
    assert rebuilt.model_dump(mode="json") == replay["final_state"]
    return replay


@pytest.mark.parametrize("request_fields", [
    {"seats": 2},                                                     # another agent may join
    {"seats": 3, "house_bots": [{"seat": 1}]},                         # one seat left for an agent
    {"seats": 2, "house_bots": [{"seat": 1}], "join": False},          # the creator does not sit
    {"seats": 2, "private": True},                                     # an invitation is no guard
])
def test_an_agent_cannot_choose_the_seed_of_a_table_another_agent_may_join(
    client: TestClient, players: list[Headers], request_fields: dict[str, Any]
) -> None:
    body = {"game": GAME, "mode": "family", "seed": 12345, **request_fields}
    refused(client.post("/v1/tables", headers=players[0], json=body))
    # Refused, not dealt from another seed: nothing was created.
    assert client.get("/v1/tables").json()["tables"] == []


def test_an_agent_alone_with_house_bots_chooses_its_seed_and_replays_exactly(
    client: TestClient, players: list[Headers]
) -> None:
    table = client.post("/v1/tables", headers=players[0], json={
        "game": GAME, "mode": "family", "seats": 3, "seed": 4242,
        "house_bots": [{"seat": 1}, {"seat": 2}]}).json()
    assert table["status"] == "playing" and "seed" not in table
    play_some(client, table["id"], [players[0]], 6)
    assert client.post(f"/v1/tables/{table['id']}/close", headers=players[0]).status_code == 200
    replay = replays_exactly(client, table["id"], players[0])
    assert replay["seed"] == 4242 and replay["log"]


def test_the_organiser_chooses_any_tables_seed_and_it_replays_exactly(
    client: TestClient, players: list[Headers], organiser: Headers
) -> None:
    table = client.post("/v1/tables", headers=organiser, json={
        "game": GAME, "mode": "family", "seats": 2, "seed": 777, "join": False}).json()
    for headers in players[:2]:
        assert client.post(f"/v1/tables/{table['id']}/join", headers=headers).status_code == 200
    play_some(client, table["id"], players[:2], 6)
    assert client.post(f"/v1/tables/{table['id']}/close", headers=organiser).status_code == 200
    replay = replays_exactly(client, table["id"], players[0])
    assert replay["seed"] == 777 and replay["log"]


def test_a_server_seed_reaches_nobody_before_the_end(
    client: TestClient, players: list[Headers], organiser: Headers, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    seen: list[str] = []
    table_ids = []
    for _ in range(2):
        created = client.post("/v1/tables", headers=players[0], json={
            "game": GAME, "mode": "family", "seats": 2})
        table_id = created.json()["id"]
        table_ids.append(table_id)
        seen.append(created.text)
        seen.append(client.post(f"/v1/tables/{table_id}/join", headers=players[1]).text)
        play_some(client, table_id, players[:2], 4)
        for headers in players[:2]:
            seen.append(client.get(f"/v1/tables/{table_id}", headers=headers).text)
            seen.append(client.get(f"/v1/tables/{table_id}/observation", headers=headers).text)
            seen.append(client.get(f"/v1/tables/{table_id}/events", headers=headers).text)
        seen.append(client.get(f"/v1/tables/{table_id}/replay", headers=players[0]).text)
    before_the_end = "\n".join(seen) + caplog.text
    seeds = []
    for table_id in table_ids:
        assert client.post(f"/v1/tables/{table_id}/close", headers=organiser).status_code == 200
        seeds.append(replays_exactly(client, table_id, players[0])["seed"])
    assert seeds[0] != seeds[1]
    for seed in seeds:
        assert str(seed) not in before_the_end
