"""The cap on unfinished tables per agent (``max_active_tables_per_agent``), on a real Redis.

* creates beyond the cap are refused with ``table/too_many`` (409) naming the limit
  and the tables that count; other agents and the organiser are not affected;
* a table stops counting when it finishes by actions, by turn clocks, by house bots,
  or when its last agent leaves before the start (the table then closes);
* a create that is refused for another reason reserves nothing, and members whose
  removal was lost (a worker died) are pruned instead of locking the agent out;
* concurrent creates at the cap, spread over two app instances: exactly the
  allowed number succeed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import pytest
import redis
from fastapi import FastAPI
from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.config import Settings

LIMIT = 3
GAME = "market-fortune"
SHORT = {"game": GAME, "mode": "family", "seats": 2, "options": {"turn_limit_per_seat": 1}}
"""A game the default action ends in four turns."""

Headers = dict[str, str]


@pytest.fixture()
def settings(settings: Settings) -> Settings:
    """A small cap, and clocks swept often enough for short turn timeouts."""
    return settings.model_copy(update={
        "max_active_tables_per_agent": LIMIT, "sweeper_interval_s": 0.02,
    })


@pytest.fixture()
def agent(mint_token: Callable[..., str], auth: Callable[[str], Headers]) -> Callable[[str], Headers]:
    """``agent(id)`` -> auth headers of an agent admitted to Market Fortune."""
    return lambda agent_id: auth(mint_token(agent_id=agent_id, name=agent_id, games=(GAME,)))


def create(client: TestClient, headers: Headers, **fields: Any) -> Any:
    """POST a short table; the raw response."""
    return client.post("/v1/tables", headers=headers, json={**SHORT, **fields})


def created(client: TestClient, headers: Headers, **fields: Any) -> dict[str, Any]:
    """Create a short table that must be accepted; its body."""
    response = create(client, headers, **fields)
    assert response.status_code == 201, response.text
    table: dict[str, Any] = response.json()
    return table


def assert_too_many(response: Any) -> dict[str, Any]:
    """The response is the cap's problem document."""
    assert response.status_code == 409, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["code"] == "table/too_many" and body["limit"] == LIMIT
    assert f"the limit is {LIMIT}" in body["detail"]
    return body


def wait_finished(client: TestClient, table_id: str, headers: Headers) -> dict[str, Any]:
    """Wait (up to 20 s) until the table is over; its observation."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        seen: dict[str, Any] = client.get(f"/v1/tables/{table_id}/observation",
                                          headers=headers, params={"wait": 1}).json()
        if seen["status"] == "finished":
            return seen
    raise AssertionError(f"table {table_id} did not finish")


def active_members(settings: Settings, agent_id: str) -> set[str]:
    """The table ids Redis counts against ``agent_id``."""
    reader = redis.Redis.from_url(settings.redis_url or "")
    try:
        key = f"{settings.redis_namespace}:tables:active:{agent_id}"
        members = cast("list[bytes]", reader.zrange(key, 0, -1))  # undecoded, no scores: bytes
        return {member.decode() for member in members}
    finally:
        reader.close()


def test_creates_beyond_the_cap_are_refused_and_name_the_limit(
    client: TestClient, agent: Callable[[str], Headers],
    mint_token: Callable[..., str], auth: Callable[[str], Headers], settings: Settings,
) -> None:
    alice = agent("alice")
    # Open, playing against a bot, and made only of house bots: all of them count.
    tables = [
        created(client, alice),
        created(client, alice, house_bots=[{"seat": 1}], turn_timeout_s=3600),
        created(client, alice, seats=3, join=False, private=True,
                house_bots=[{"seat": 0}, {"seat": 1}]),
    ]
    refused = assert_too_many(create(client, alice, house_bots=[{"seat": 0}, {"seat": 1}],
                                     join=False))
    assert sorted(refused["active_tables"]) == sorted(table["id"] for table in tables)
    assert active_members(settings, "alice") == {table["id"] for table in tables}
    # Another agent has its own count; the organiser has none.
    created(client, agent("bob"))
    organiser = auth(mint_token(agent_id="org", name="org", kind="organiser"))
    for _ in range(LIMIT + 2):
        created(client, organiser)
    assert active_members(settings, "org") == set()


def test_a_refused_create_reserves_nothing(client: TestClient, agent: Callable[[str], Headers],
                                            settings: Settings) -> None:
    alice = agent("alice")
    for _ in range(LIMIT + 2):
        bad = create(client, alice, mode="no-such-mode")
        assert bad.status_code == 422 and bad.json()["code"] == "table/invalid_config"
    assert active_members(settings, "alice") == set()
    for _ in range(LIMIT):
        created(client, alice)


def test_tables_finished_by_actions_clocks_and_bots_stop_counting(
    client: TestClient, agent: Callable[[str], Headers], settings: Settings,
) -> None:
    alice, bob = agent("alice"), agent("bob")
    by_bots = created(client, alice, seats=2, join=False,
                      house_bots=[{"seat": 0}, {"seat": 1}])
    by_clock = created(client, alice, turn_timeout_s=0.05)
    client.post(f"/v1/tables/{by_clock['id']}/join", headers=bob)
    by_actions = created(client, alice, turn_timeout_s=3600)
    client.post(f"/v1/tables/{by_actions['id']}/join", headers=bob)

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        observations = [client.get(f"/v1/tables/{by_actions['id']}/observation", headers=h).json()
                        for h in (alice, bob)]
        if observations[0]["status"] == "finished":
            break
        for headers, seen in zip((alice, bob), observations, strict=True):
            if seen["legal_actions"]:
                client.post(f"/v1/tables/{by_actions['id']}/actions", headers=headers, json={
                    "version": seen["version"], "action": seen["legal_actions"][0]["id"]})
    log = client.get(f"/v1/tables/{by_actions['id']}/replay").json()["log"]
    assert {entry["by"] for entry in log} == {"agent"}

    assert wait_finished(client, by_clock["id"], alice)["status"] == "finished"
    timeouts = client.get(f"/v1/tables/{by_clock['id']}/replay").json()["log"]
    assert {entry["by"] for entry in timeouts} == {"timeout"}
    wait_finished(client, by_bots["id"], alice)
    assert active_members(settings, "alice") == set()
    for _ in range(LIMIT):
        created(client, alice)
    assert_too_many(create(client, alice))


def test_the_last_agent_leaving_closes_the_table_and_frees_its_place(
    client: TestClient, agent: Callable[[str], Headers], settings: Settings,
) -> None:
    alice, bob = agent("alice"), agent("bob")
    shared = created(client, alice, seats=3)
    client.post(f"/v1/tables/{shared['id']}/join", headers=bob)
    for _ in range(LIMIT - 1):
        created(client, alice, seats=3, house_bots=[{"seat": 1}])
    assert_too_many(create(client, alice))
    # Alice leaves but Bob still sits: the table stays open and still counts for Alice.
    left = client.post(f"/v1/tables/{shared['id']}/leave", headers=alice).json()
    assert left["status"] == "open"
    assert_too_many(create(client, alice))
    # Bob, the last agent, leaves: the table closes and no longer counts.
    closed = client.post(f"/v1/tables/{shared['id']}/leave", headers=bob).json()
    assert closed["status"] == "finished" and closed["outcome"]["reason"] == "abandoned"
    assert closed["outcome"]["winners"] == []
    assert shared["id"] not in active_members(settings, "alice")
    still_open = client.get("/v1/tables", params={"status": "open"}).json()["tables"]
    assert shared["id"] not in {table["id"] for table in still_open}
    events = client.get(f"/v1/tables/{shared['id']}/events").json()["events"]
    assert events[-1]["kind"] == "table.finished"
    # A closed table cannot be filled again behind the cap's back.
    rejoined = client.post(f"/v1/tables/{shared['id']}/join", headers=alice)
    assert rejoined.status_code == 409 and rejoined.json()["code"] == "table/finished"
    replay = client.get(f"/v1/tables/{shared['id']}/replay")
    assert replay.status_code == 200 and replay.json()["log"] == []
    created(client, alice)
    assert_too_many(create(client, alice))


def test_lost_removals_are_pruned_at_the_cap(
    client: TestClient, agent: Callable[[str], Headers], settings: Settings,
) -> None:
    alice = agent("alice")
    finished = created(client, alice, seats=2, join=False, house_bots=[{"seat": 0}, {"seat": 1}])
    wait_finished(client, finished["id"], alice)
    writer = redis.Redis.from_url(settings.redis_url or "")
    key = f"{settings.redis_namespace}:tables:active:alice"
    try:
        # As if workers died: one after finishing a table before un-counting it, one
        # after reserving an id (a minute ago) before writing its table.
        writer.zadd(key, {finished["id"]: time.time(), "0123456789abcdef": time.time() - 120})
        # ... and one whose create is in flight right now: that one must keep counting.
        writer.zadd(key, {"fedcba9876543210": time.time()})
    finally:
        writer.close()
    assert len(active_members(settings, "alice")) == LIMIT
    for _ in range(LIMIT - 1):
        created(client, alice)
    assert active_members(settings, "alice") >= {"fedcba9876543210"}
    assert len(active_members(settings, "alice")) == LIMIT
    assert_too_many(create(client, alice))


@pytest.fixture()
def second_client(settings: Settings) -> Any:
    """Another app instance (another worker) on the same Redis namespace."""
    other: FastAPI = create_app(settings)
    with TestClient(other) as test_client:
        yield test_client


@pytest.mark.parametrize("already", [0, LIMIT - 1])
def test_concurrent_creates_at_the_cap_admit_exactly_the_limit(
    already: int, client: TestClient, second_client: TestClient,
    agent: Callable[[str], Headers], settings: Settings,
) -> None:
    alice = agent("alice")
    before = {created(client, alice)["id"] for _ in range(already)}
    attempts = 24
    start = threading.Barrier(attempts)

    def attempt(number: int) -> Any:
        worker = (client, second_client)[number % 2]
        start.wait()
        # A full game (no turn limit): the house bot cannot end it before Alice's
        # first turn, so no table finishes (and frees its place) while this races.
        return create(worker, alice, house_bots=[{"seat": 1}], turn_timeout_s=3600, options={})

    with ThreadPoolExecutor(max_workers=attempts) as pool:
        answers = list(pool.map(attempt, range(attempts)))
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses.count(201) == LIMIT - already, statuses
    assert statuses.count(409) == attempts - (LIMIT - already), statuses
    for answer in answers:
        if answer.status_code == 409:
            assert_too_many(answer)
    won = {answer.json()["id"] for answer in answers if answer.status_code == 201}
    assert active_members(settings, "alice") == before | won


def test_the_creator_closes_an_open_table_to_free_its_place(
    client: TestClient, agent: Callable[[str], Headers], settings: Settings,
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    alice, bob = agent("alice"), agent("bob")
    # Lobbies Alice opened without sitting at them: leaving is not open to her.
    lobbies = [created(client, alice, join=False, private=number == 0) for number in range(LIMIT)]
    assert_too_many(create(client, alice))
    lobby = lobbies[0]["id"]
    refused = client.post(f"/v1/tables/{lobby}/close", headers=bob)
    assert refused.status_code == 404  # private, and Bob is not at it
    client.post(f"/v1/tables/{lobby}/join", headers=bob)
    refused = client.post(f"/v1/tables/{lobby}/close", headers=bob)
    assert refused.status_code == 403 and refused.json()["code"] == "table/not_creator"
    closed = client.post(f"/v1/tables/{lobby}/close", headers=alice)
    assert closed.status_code == 200, closed.text
    assert closed.json()["status"] == "finished" and closed.json()["outcome"]["reason"] == "closed"
    assert lobby not in active_members(settings, "alice")
    seen = client.get(f"/v1/tables/{lobby}/observation", headers=bob).json()
    assert seen["status"] == "finished"  # Bob, seated, learns it ended
    gone = client.post(f"/v1/tables/{lobby}/leave", headers=bob)
    assert gone.status_code == 409 and gone.json()["code"] == "table/finished"
    again = client.post(f"/v1/tables/{lobby}/close", headers=alice)
    assert again.status_code == 409 and again.json()["code"] == "table/finished"
    # A table that started ends by play only; the organiser may close anyone's open table.
    client.post(f"/v1/tables/{lobbies[1]['id']}/join", headers=bob)
    client.post(f"/v1/tables/{lobbies[1]['id']}/join", headers=agent("carol"))
    started = client.post(f"/v1/tables/{lobbies[1]['id']}/close", headers=alice)
    assert started.status_code == 409 and started.json()["code"] == "table/started"
    organiser = auth(mint_token(agent_id="org", name="org", kind="organiser"))
    by_organiser = client.post(f"/v1/tables/{lobbies[2]['id']}/close", headers=organiser)
    assert by_organiser.status_code == 200 and by_organiser.json()["outcome"]["reason"] == "closed"
    assert active_members(settings, "alice") == {lobbies[1]["id"]}
    created(client, alice)
    created(client, alice)
    assert_too_many(create(client, alice))


def test_a_started_table_of_one_agent_and_house_bots_may_be_closed_by_it(
    client: TestClient, agent: Callable[[str], Headers], settings: Settings,
) -> None:
    # A developer who stops its bot mid-game need not wait for the clocks to end it.
    alice = agent("alice")
    table = created(client, alice, turn_timeout_s=600, house_bots=[{"seat": 1}],
                    options={"turn_limit_per_seat": 50})
    assert table["status"] == "playing"
    closed = client.post(f"/v1/tables/{table['id']}/close", headers=alice)
    assert closed.status_code == 200, closed.text
    body = closed.json()
    assert body["status"] == "finished" and body["outcome"]["reason"] == "closed"
    assert body["outcome"]["winners"] == []
    assert table["id"] not in active_members(settings, "alice")
    replay = client.get(f"/v1/tables/{table['id']}/replay", headers=alice)
    assert replay.status_code == 200
    assert replay.json()["events"][-1]["text"] == "alice closed the table during play."
    acting = client.post(f"/v1/tables/{table['id']}/actions", headers=alice,
                         json={"version": body["version"], "action": "dominate"})
    assert acting.status_code == 409 and acting.json()["code"] == "table/finished"
