"""House bots: one agent sits against three server-side bots and the table plays to its end."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from engine.bots import available_bots
from engine.registry import all_games, get_game


@pytest.mark.parametrize("game_name", sorted(all_games()))
def test_one_agent_against_three_house_bots_plays_to_the_end(
    game_name: str, client: TestClient,
    mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    me = auth(mint_token(agent_id="solo", name="solo", games=(game_name,)))
    mode = get_game(game_name).info.modes[0]
    bots = sorted(available_bots(game_name))
    created = client.post("/v1/tables", headers=me, json={
        "game": game_name, "mode": mode.name, "seats": 4, "seed": 3,
        "house_bots": [{"seat": seat, "bot": bots[seat % len(bots)]} for seat in (1, 2, 3)],
    })
    assert created.status_code == 201, created.text
    table = created.json()
    assert table["status"] == "playing" and table["your_seat"] == 0
    assert [s["kind"] for s in table["seated"]] == ["agent", "house_bot", "house_bot", "house_bot"]
    table_id = table["id"]
    waits = []
    for _ in range(5000):
        observation = client.get(f"/v1/tables/{table_id}/observation", headers=me).json()
        if observation["status"] == "finished":
            break
        if observation["legal_actions"]:
            # Bots answered: it is my turn again. Act at once by the first listed action.
            acted = client.post(f"/v1/tables/{table_id}/actions", headers=me, json={
                "version": observation["version"], "action": observation["legal_actions"][0]["id"]})
            assert acted.status_code == 200, acted.text
            continue
        started = time.monotonic()
        client.get(f"/v1/tables/{table_id}/events", headers=me,
                   params={"after": observation["last_event_id"], "wait": 5})
        waits.append(time.monotonic() - started)
    else:
        raise AssertionError("the table did not finish")
    replay = client.get(f"/v1/tables/{table_id}/replay").json()
    by_seat = {entry["seat"] for entry in replay["log"] if entry["by"] == "house_bot"}
    assert by_seat == {1, 2, 3}
    assert {entry["seat"] for entry in replay["log"] if entry["by"] == "agent"} == {0}
    # Bots act promptly: the agent never waited anywhere near a long-poll's full 5 s.
    assert not waits or max(waits) < 4.0


def test_house_bot_moves_are_reproducible_from_the_seed(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    organiser = auth(mint_token(agent_id="org", name="org", kind="organiser"))
    logs = []
    for _ in range(2):
        table = client.post("/v1/tables", headers=organiser, json={
            "game": "hab-und-gut", "mode": "standard", "seats": 3, "seed": 21, "join": False,
            "house_bots": [{"seat": s, "bot": "random"} for s in range(3)],
        }).json()
        assert table["status"] == "playing"
        for _ in range(200):
            body = client.get(f"/v1/tables/{table['id']}/events",
                              params={"after": 0, "wait": 0}).json()
            if body["status"] == "finished":
                break
            time.sleep(0.05)
        replay = client.get(f"/v1/tables/{table['id']}/replay").json()
        logs.append([(entry["seat"], entry["action"]) for entry in replay["log"]])
    assert logs[0] == logs[1] and len(logs[0]) > 10


@pytest.mark.redis_cluster
def test_house_bots_take_their_turns_on_their_own(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    """A few turns of a table of house bots (the whole games above are single-Redis only:
    the bots' index, its claim and the bots' commits are the same few paths each turn)."""
    organiser = auth(mint_token(agent_id="org", name="org", kind="organiser"))
    table = client.post("/v1/tables", headers=organiser, json={
        "game": "hab-und-gut", "mode": "standard", "seats": 3, "seed": 5, "join": False,
        "house_bots": [{"seat": s, "bot": "random"} for s in range(3)],
    }).json()
    assert table["status"] == "playing"
    movers: set[int] = set()
    give_up = time.monotonic() + 30
    while movers != {0, 1, 2} and time.monotonic() < give_up:
        events = client.get(f"/v1/tables/{table['id']}/events",
                            params={"after": 0, "wait": 0}).json()["events"]
        movers = {event["data"]["seat"] for event in events
                  if "seat" in event["data"] and not event["kind"].startswith("seat.")}
        time.sleep(0.05)
    assert movers == {0, 1, 2}  # each bot has played


@pytest.mark.parametrize("game_name", sorted(all_games()))
def test_against_house_bots_an_agent_needs_one_request_per_decision(
    game_name: str, client: TestClient,
    mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    """``POST .../actions?wait=`` answers at the seat's next decision point: every answer
    (but the last, the end) holds legal actions at the table's current version, so the
    agent acts from it with no other request and is never told its version is stale."""
    me = auth(mint_token(agent_id="solo", name="solo", games=(game_name,)))
    mode = get_game(game_name).info.modes[0]
    created = client.post("/v1/tables", headers=me, json={
        "game": game_name, "mode": mode.name, "seats": 3, "seed": 5,
        "house_bots": [{"seat": seat, "bot": "random"} for seat in (1, 2)],
    }).json()
    table_id = created["id"]
    now = client.get(f"/v1/tables/{table_id}/observation", headers=me,
                     params={"wait": 10}).json()
    requests = 0
    while now["status"] != "finished":
        assert now["legal_actions"], now["summary"]
        acted = client.post(f"/v1/tables/{table_id}/actions", headers=me, params={"wait": 10},
                            json={"version": now["version"],
                                  "action": now["legal_actions"][-1]["id"]})
        requests += 1
        assert acted.status_code == 200, acted.text
        answer = acted.json()
        assert answer["version"] <= answer["observation"]["version"]
        assert answer["status"] == answer["observation"]["status"]
        now = answer["observation"]
        assert requests < 3000, "the table did not finish"
    log = client.get(f"/v1/tables/{table_id}/replay", headers=me).json()["log"]
    decisions = len([entry for entry in log if entry["seat"] == 0])
    assert requests == decisions > 0  # every request applied one decision; none was refused
    assert now["outcome"] is not None
