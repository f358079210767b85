"""Long-poll events in process: waiting, audiences, cursors."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from .tables_helpers import agents, follow_stream, organiser_auth, seated_table

SEED = 4
"""The deal these tests play."""


def test_long_poll_waits_for_the_next_event_and_returns_at_once(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    seats = agents(mint_token, auth, "a")
    table_id = seated_table(client, seats, seed=SEED)
    now = client.get(f"/v1/tables/{table_id}/observation", headers=seats[0]).json()
    actor = now["to_act"][0]
    mine = client.get(f"/v1/tables/{table_id}/observation", headers=seats[actor]).json()
    empty_started = time.monotonic()
    empty = client.get(f"/v1/tables/{table_id}/events",
                       params={"after": mine["last_event_id"], "wait": 0.3}).json()
    assert empty["events"] == [] and empty["last_id"] == mine["last_event_id"]
    assert time.monotonic() - empty_started >= 0.25

    result: dict[str, Any] = {}

    def wait_for_it() -> None:
        started = time.monotonic()
        result["page"] = client.get(f"/v1/tables/{table_id}/events", headers=seats[actor],
                                    params={"after": mine["last_event_id"], "wait": 10}).json()
        result["took"] = time.monotonic() - started

    waiter = threading.Thread(target=wait_for_it)
    waiter.start()
    time.sleep(0.3)
    acted = client.post(f"/v1/tables/{table_id}/actions", headers=seats[actor], json={
        "version": mine["version"], "action": mine["legal_actions"][0]["id"]})
    assert acted.status_code == 200
    waiter.join(15)
    page = result["page"]
    assert 0.2 < result["took"] < 5
    assert [e["id"] for e in page["events"]] == [e["id"] for e in acted.json()["events"]]
    assert page["last_id"] == page["events"][-1]["id"]


def test_each_reader_gets_only_its_audience_and_spectators_public_events(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    seats = agents(mint_token, auth, "a")
    table_id = seated_table(client, seats, seed=SEED)
    for _ in range(40):  # a few moves so private events (dealt and drawn cards) exist
        now = client.get(f"/v1/tables/{table_id}/observation", headers=seats[0]).json()
        if now["status"] != "playing":
            break
        actor = now["to_act"][0]
        mine = client.get(f"/v1/tables/{table_id}/observation", headers=seats[actor]).json()
        client.post(f"/v1/tables/{table_id}/actions", headers=seats[actor], json={
            "version": mine["version"], "action": mine["legal_actions"][0]["id"]})
    pages = {
        reader: client.get(f"/v1/tables/{table_id}/events", headers=headers).json()
        for reader, headers in (("seat0", seats[0]), ("seat1", seats[1]), ("spectator", {}))
    }
    ids = {reader: [e["id"] for e in page["events"]] for reader, page in pages.items()}
    assert all(page["last_id"] == pages["spectator"]["last_id"] for page in pages.values())
    assert not any(e["private"] for e in pages["spectator"]["events"])
    assert set(ids["spectator"]) < set(ids["seat0"]) | set(ids["seat1"])
    for reader in ("seat0", "seat1"):
        assert ids[reader] == sorted(ids[reader])
        assert set(ids["spectator"]) <= set(ids[reader])
    private0 = set(ids["seat0"]) - set(ids["spectator"])
    private1 = set(ids["seat1"]) - set(ids["spectator"])
    assert private0 or private1
    assert not private0 & private1
    # Paging with ``after`` gives the same sequence, split anywhere.
    middle = ids["seat0"][len(ids["seat0"]) // 2]
    tail = client.get(f"/v1/tables/{table_id}/events", headers=seats[0],
                      params={"after": middle}).json()
    assert [e["id"] for e in tail["events"]] == [i for i in ids["seat0"] if i > middle]
    bad = client.get(f"/v1/tables/{table_id}/events", params={"after": -1})
    assert bad.status_code == 422 and bad.json()["code"] == "request/invalid"
    missing = client.get("/v1/tables/none/events")
    assert missing.status_code == 404 and missing.json()["code"] == "table/not_found"


def test_long_poll_on_a_finished_table_answers_at_once(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    organiser = auth(mint_token(agent_id="org", name="org", kind="organiser"))
    table = client.post("/v1/tables", headers=organiser, json={
        "game": "hab-und-gut", "mode": "standard", "seats": 3, "seed": 2, "join": False,
        "house_bots": [{"seat": s} for s in range(3)]}).json()
    page: dict[str, Any] = {}
    for _ in range(100):
        page = client.get(f"/v1/tables/{table['id']}/events", params={"after": 0, "wait": 0}).json()
        if page["status"] == "finished":
            break
        time.sleep(0.05)
    assert page["status"] == "finished"
    last_id = 0
    while True:  # page through everything (a page holds at most 500 events)
        chunk = client.get(f"/v1/tables/{table['id']}/events", params={"after": last_id}).json()
        if not chunk["events"]:
            break
        last_id = chunk["last_id"]
    started = time.monotonic()
    done = client.get(f"/v1/tables/{table['id']}/events",
                      params={"after": last_id, "wait": 20}).json()
    assert time.monotonic() - started < 2
    assert done == {"events": [], "last_id": last_id, "status": "finished"}


def test_a_stream_follows_its_reader_out_of_a_public_table_it_left(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    # Alice streams a public open table from her seat, leaves, and Carol takes the
    # seat: from then on Alice's stream is a spectator's, never Carol's private events.
    bob, alice, carol, dave = agents(mint_token, auth, "s", count=4)
    table_id = client.post("/v1/tables", headers=organiser_auth(client), json={
        "game": "market-fortune", "mode": "family", "seats": 4, "seed": SEED, "join": False,
        "house_bots": [{"seat": 3}]}).json()["id"]
    assert client.post(f"/v1/tables/{table_id}/join", headers=bob).json()["your_seat"] == 0
    assert client.post(f"/v1/tables/{table_id}/join", headers=alice).json()["your_seat"] == 1
    reader, frames, _ = follow_stream(client, table_id, alice)
    assert client.post(f"/v1/tables/{table_id}/leave", headers=alice).status_code == 200
    assert client.post(f"/v1/tables/{table_id}/join", headers=carol).json()["your_seat"] == 1
    assert client.post(f"/v1/tables/{table_id}/join", headers=dave).json()["status"] == "playing"
    seats = {0: bob, 1: carol, 2: dave}
    for _ in range(3000):
        now = client.get(f"/v1/tables/{table_id}/observation", headers=bob).json()
        if now["status"] == "finished":
            break
        mine = [client.get(f"/v1/tables/{table_id}/observation", headers=seats[seat]).json()
                for seat in now["to_act"] if seat in seats]
        for observation in mine[:1]:
            client.post(f"/v1/tables/{table_id}/actions", headers=seats[observation["seat"]],
                        json={"version": observation["version"],
                              "action": observation["legal_actions"][0]["id"]})
        if not mine:
            time.sleep(0.01)  # the house bot's turn
    else:
        raise AssertionError("the table did not finish")
    reader.join(timeout=15)
    assert not reader.is_alive()
    carols = client.get(f"/v1/tables/{table_id}/events", headers=carol).json()["events"]
    assert any(event["private"] for event in carols)  # there was something to leak
    told = [line for line in frames if line.startswith("data:") and '"private": true' in line]
    assert told == []
