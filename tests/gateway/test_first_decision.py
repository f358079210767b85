"""A create or join with ``wait_s`` answers at the seat's first decision, with its observation:
an agent goes from no seat to its first action in one request, and from then on needs one
request per decision (act-and-wait)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from .tables_helpers import GAME, agents, in_background, organiser_auth

Auth = Callable[[str], dict[str, str]]


def observe(client: TestClient, table_id: str, headers: dict[str, str]) -> dict[str, Any]:
    answer = client.get(f"/v1/tables/{table_id}/observation", headers=headers)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_a_table_against_house_bots_costs_one_request_per_decision(
    client: TestClient, mint_token: Callable[..., str], auth: Auth,
) -> None:
    [me] = agents(mint_token, auth, "solo", count=1)
    created = client.post("/v1/tables", headers=me, params={"wait_s": 20}, json={
        "game": GAME, "mode": "family", "seats": 2, "house_bots": [{"seat": 1}]})
    assert created.status_code == 201, created.text
    table = created.json()
    first = table["observation"]
    assert first["seat"] == table["your_seat"] == 0
    assert first["legal_actions"] and 0 in first["to_act"]
    assert first == observe(client, table["id"], me)  # what a GET would have answered
    requests, observation = 1, first
    while observation["status"] != "finished":
        acted = client.post(f"/v1/tables/{table['id']}/actions", headers=me,
                            params={"wait_s": 20}, json={
                                "version": observation["version"],
                                "action": observation["legal_actions"][0]["id"]})
        assert acted.status_code == 200, acted.text
        requests += 1
        observation = acted.json()["observation"]
        assert observation["status"] == "finished" or observation["legal_actions"]
    decisions = len([entry for entry in client.get(
        f"/v1/tables/{table['id']}/replay", headers=me).json()["log"] if entry["seat"] == 0])
    assert requests == decisions + 1  # the create, then one action per decision


def test_a_join_is_answered_at_the_seats_turn_and_not_before(
    client: TestClient, mint_token: Callable[..., str], auth: Auth,
) -> None:
    seats = agents(mint_token, auth, "fd")
    table = client.post("/v1/tables", headers=organiser_auth(client), json={
        "game": GAME, "mode": "family", "seats": 2, "seed": 3, "join": False}).json()
    path = f"/v1/tables/{table['id']}"
    thread, out = in_background(lambda: client.post(
        f"{path}/join", headers=seats[0], params={"wait_s": 20}))
    time.sleep(0.3)
    assert not out, "answered while the table still waited for a player"
    second = client.post(f"{path}/join", headers=seats[1])
    assert second.status_code == 200, second.text
    mine = observe(client, table["id"], seats[1])
    if 1 in mine["to_act"]:  # seat 1 opens: seat 0 stays held until the turn passes
        time.sleep(0.3)
        assert not out, "answered seat 0 before its turn"
        while 0 not in mine["to_act"] and mine["status"] != "finished":
            mine = client.post(f"{path}/actions", headers=seats[1], json={
                "version": mine["version"], "action": mine["legal_actions"][-1]["id"]},
            ).json()["observation"]
    thread.join(15)
    [joined] = out
    assert joined.status_code == 200, joined.text
    first = joined.json()
    assert first["your_seat"] == 0
    assert first["status"] == "open"  # the table as the join left it; the observation is newer
    assert first["observation"]["status"] == "playing"
    assert first["observation"]["legal_actions"] and 0 in first["observation"]["to_act"]
    assert first["observation"] == observe(client, table["id"], seats[0])


def test_without_wait_no_observation_and_a_spectator_never_gets_one(
    client: TestClient, mint_token: Callable[..., str], auth: Auth,
) -> None:
    seats = agents(mint_token, auth, "nw")
    created = client.post("/v1/tables", headers=seats[0], json={
        "game": GAME, "mode": "family", "seats": 2})
    assert created.status_code == 201 and created.json()["observation"] is None
    # The organiser opens a table without sitting: nothing to observe for it, so no wait.
    started = time.monotonic()
    unseated = client.post("/v1/tables", headers=organiser_auth(client), params={"wait_s": 20},
                           json={"game": GAME, "mode": "family", "seats": 2, "join": False})
    assert unseated.status_code == 201 and unseated.json()["observation"] is None
    assert time.monotonic() - started < 5
    joined = client.post(f"/v1/tables/{created.json()['id']}/join", headers=seats[1])
    assert joined.status_code == 200 and joined.json()["observation"] is None


def test_a_wait_out_of_bounds_is_refused_before_anything_is_written(
    client: TestClient, mint_token: Callable[..., str], auth: Auth,
) -> None:
    seats = agents(mint_token, auth, "ob")
    refused = client.post("/v1/tables", headers=seats[0], params={"wait_s": 61}, json={
        "game": GAME, "mode": "family", "seats": 2})
    assert refused.status_code == 422
    assert refused.headers["content-type"] == "application/problem+json"
    assert refused.json()["code"] == "request/invalid"
    listed = client.get("/v1/tables", headers=seats[0]).json()["tables"]
    assert not [table for table in listed if table["created_by"] == "ob0"]
    table = client.post("/v1/tables", headers=seats[0], json={
        "game": GAME, "mode": "family", "seats": 2}).json()
    refused = client.post(f"/v1/tables/{table['id']}/join", headers=seats[1],
                          params={"wait_s": -1})
    assert refused.status_code == 422 and refused.json()["code"] == "request/invalid"
    assert client.get(f"/v1/tables/{table['id']}", headers=seats[1]).json()["status"] == "open"
