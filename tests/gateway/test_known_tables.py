"""Actions computed on a worker's memory of a table (``gateway.services.known_tables``).

Two apps on one Redis namespace stand for two gateway workers, each with its
own memory. An action that names the version its worker remembers is sent
as the commit alone; the commit script applies it only if the table's
version and revision are still the remembered ones, the token is not
revoked and the idempotency key is unused. Each test checks one way the
memory can be wrong and that Redis, not the memory, decides.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from fastapi import FastAPI
from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.config import Settings
from gateway.services.runtime import table_context
from gateway.store.tables import TableStore
from tests.gateway.tables_helpers import agents, seated_table
from tests.gateway.test_observation_wait import in_background

Headers = dict[str, str]


class Reads:
    """Counts the calls of one of the app's table-store reads (a spy: every call goes through):
    ``load_for_action`` (an action's read first) or ``load_checked`` (an observation's)."""

    def __init__(self, app: FastAPI, read: str = "load_for_action") -> None:
        self.count = 0
        store: TableStore = table_context(app).store
        real = getattr(store, read)

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return await real(*args, **kwargs)

        setattr(store, read, counted)


@pytest.fixture()
def second(settings: Settings) -> Iterator[tuple[FastAPI, TestClient]]:
    """A second worker: its own app (and memory) on the same Redis namespace."""
    app = create_app(settings)
    with TestClient(app) as client:
        yield app, client


@pytest.fixture()
def raw_redis(settings: Settings) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(settings.redis_url or "")
    yield client
    client.close()


def _table_key(settings: Settings, table_id: str, part: str) -> str:
    return f"{settings.redis_namespace}:t:{{{table_id}}}:{part}"


def _to_act(client: TestClient, table_id: str, seats: list[Headers]) -> tuple[Headers, dict[str, Any]]:
    """The headers of the seat to act and its observation (read through ``client``)."""
    for headers in seats:
        observation = client.get(f"/v1/tables/{table_id}/observation", headers=headers).json()
        if observation["legal_actions"]:
            return headers, observation
    raise AssertionError("nobody is to act")


def _act(client: TestClient, table_id: str, headers: Headers, observation: dict[str, Any],
         key: str | None = None) -> Any:
    extra = {"Idempotency-Key": key} if key else {}
    return client.post(f"/v1/tables/{table_id}/actions", headers={**headers, **extra}, json={
        "version": observation["version"], "action": observation["legal_actions"][0]["id"]})


def _seated(client: TestClient, mint_token: Callable[..., str],
            auth: Callable[[str], Headers], seed: int) -> tuple[str, list[Headers]]:
    seats = agents(mint_token, auth, f"known{seed}-")
    return seated_table(client, seats, seed=seed), seats


def test_an_action_on_a_remembered_table_reads_nothing_first(
    app: FastAPI, client: TestClient, mint_token: Callable[..., str],
    auth: Callable[[str], Headers],
) -> None:
    table_id, seats = _seated(client, mint_token, auth, seed=3)
    headers, observation = _to_act(client, table_id, seats)  # this worker now knows the table
    reads = Reads(app)
    answer = _act(client, table_id, headers, observation)
    assert answer.status_code == 200 and answer.json()["version"] == observation["version"] + 1
    assert reads.count == 0
    # The answer's observation is remembered as the table: acting on from it reads nothing.
    following = answer.json()["observation"]
    if following["legal_actions"]:
        again = _act(client, table_id, headers, following)
        assert again.status_code == 200 and reads.count == 0
    table = client.get(f"/v1/tables/{table_id}").json()
    assert table["version"] == table_context(app).known_tables.get(table_id).version  # type: ignore[union-attr]


def test_a_table_that_moved_on_elsewhere_is_read_and_the_action_refused_as_stale(
    app: FastAPI, client: TestClient, second: tuple[FastAPI, TestClient],
    mint_token: Callable[..., str], auth: Callable[[str], Headers], settings: Settings,
    raw_redis: redis.Redis,
) -> None:
    table_id, seats = _seated(client, mint_token, auth, seed=5)
    headers, observation = _to_act(client, table_id, seats)
    _, other = second
    assert _act(other, table_id, headers, observation).status_code == 200  # via the other worker
    events_before = raw_redis.xlen(_table_key(settings, table_id, "events"))
    clock_before = raw_redis.zscore(f"{settings.redis_namespace}:clock", table_id)
    reads = Reads(app)
    stale = _act(client, table_id, headers, observation)  # this worker still remembers the old one
    assert stale.status_code == 409
    assert stale.json()["code"] == "table/stale_version"
    assert stale.json()["current_version"] == observation["version"] + 1
    assert reads.count == 1  # the refused commit sent it down the ordinary path
    # The refused commit wrote nothing: no event, no clock move.
    assert raw_redis.xlen(_table_key(settings, table_id, "events")) == events_before
    assert raw_redis.zscore(f"{settings.redis_namespace}:clock", table_id) == clock_before


def test_a_rewritten_table_at_the_same_version_is_not_taken_for_the_remembered_one(
    app: FastAPI, client: TestClient, mint_token: Callable[..., str],
    auth: Callable[[str], Headers], settings: Settings, raw_redis: redis.Redis,
) -> None:
    """A Redis that lost its last writes can deal a version number again with other content;
    the revision tells the two apart, so nothing is computed on a state Redis never had."""
    table_id, seats = _seated(client, mint_token, auth, seed=7)
    headers, observation = _to_act(client, table_id, seats)
    key = _table_key(settings, table_id, "table")
    raw_redis.hset(key, "rev", "another-write")  # same version, another write
    reads = Reads(app)
    answer = _act(client, table_id, headers, observation)
    assert answer.status_code == 200
    assert reads.count == 1  # the commit refused the memory; the table was read and acted on
    assert raw_redis.hget(key, "rev") not in (None, b"another-write")


def test_a_revoked_token_is_refused_before_anything_is_written(
    app: FastAPI, client: TestClient, mint_token: Callable[..., str],
    auth: Callable[[str], Headers], settings: Settings, raw_redis: redis.Redis,
) -> None:
    table_id, seats = _seated(client, mint_token, auth, seed=9)
    headers, observation = _to_act(client, table_id, seats)
    assert client.post("/v1/auth/revoke", headers=headers, json={}).status_code == 200
    version_before = raw_redis.hget(_table_key(settings, table_id, "table"), "version")
    refused = _act(client, table_id, headers, observation, key="after-revoke")
    assert refused.status_code == 401 and refused.json()["code"] == "auth/revoked"
    assert raw_redis.hget(_table_key(settings, table_id, "table"), "version") == version_before
    assert not list(raw_redis.scan_iter(_table_key(settings, table_id, "seen:*after-revoke")))


def test_a_retry_on_the_other_worker_gets_the_first_answer_and_applies_once(
    app: FastAPI, client: TestClient, second: tuple[FastAPI, TestClient],
    mint_token: Callable[..., str], auth: Callable[[str], Headers], settings: Settings,
    raw_redis: redis.Redis,
) -> None:
    table_id, seats = _seated(client, mint_token, auth, seed=13)
    headers, observation = _to_act(client, table_id, seats)
    _, other = second
    _to_act(other, table_id, seats)  # the other worker remembers the same table
    first = _act(client, table_id, headers, observation, key="retry-me")
    retry = _act(other, table_id, headers, observation, key="retry-me")
    assert first.status_code == retry.status_code == 200
    assert retry.content == first.content
    log = [json.loads(entry) for entry in
           raw_redis.lrange(_table_key(settings, table_id, "log"), 0, -1)]
    assert [entry["version"] for entry in log].count(observation["version"] + 1) == 1


def _waiter(client: TestClient, table_id: str, seats: list[Headers]) -> Headers:
    acting, _ = _to_act(client, table_id, seats)
    return next(headers for headers in seats if headers is not acting)


def test_a_held_observation_from_memory_skips_its_first_read_and_wakes_on_its_turn(
    app: FastAPI, client: TestClient, second: tuple[FastAPI, TestClient],
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    table_id, seats = _seated(client, mint_token, auth, seed=17)
    waiter = _waiter(client, table_id, seats)  # this worker now remembers the table
    reads = Reads(app, "load_checked")
    thread, out = in_background(lambda: client.get(
        f"/v1/tables/{table_id}/observation", headers=waiter, params={"wait": 10}))
    time.sleep(0.3)
    assert thread.is_alive()  # not its turn: held
    _, other = second
    acting, observation = _to_act(other, table_id, seats)
    while True:  # the other seat plays its turn through the other worker
        answer = _act(other, table_id, acting, observation).json()
        observation = answer["observation"]
        if not observation["legal_actions"] or answer["status"] == "finished":
            break
    thread.join(10)
    held = out["answer"].json()
    assert held["legal_actions"] or held["status"] == "finished"
    assert held == client.get(f"/v1/tables/{table_id}/observation", headers=waiter).json()
    assert reads.count == 1  # only the plain observation just above read first


def test_a_memory_out_of_date_ends_the_wait_at_once(
    app: FastAPI, client: TestClient, second: tuple[FastAPI, TestClient],
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    table_id, seats = _seated(client, mint_token, auth, seed=19)
    waiter = _waiter(client, table_id, seats)
    _, other = second
    acting, observation = _to_act(other, table_id, seats)
    while True:  # the turn passes to the waiter, unseen by this worker
        answer = _act(other, table_id, acting, observation).json()
        observation = answer["observation"]
        if not observation["legal_actions"] or answer["status"] == "finished":
            break
    reads = Reads(app, "load_checked")
    started = time.monotonic()
    held = client.get(f"/v1/tables/{table_id}/observation", headers=waiter, params={"wait": 10})
    assert time.monotonic() - started < 2
    assert reads.count == 0  # it started from the out-of-date memory, not from a read
    assert held.json()["legal_actions"] or held.json()["status"] == "finished"
    assert held.json() == client.get(
        f"/v1/tables/{table_id}/observation", headers=waiter).json()


def test_a_revoked_token_waiting_from_memory_is_refused_and_told_nothing(
    app: FastAPI, client: TestClient, mint_token: Callable[..., str],
    auth: Callable[[str], Headers],
) -> None:
    table_id, seats = _seated(client, mint_token, auth, seed=21)
    waiter = _waiter(client, table_id, seats)
    assert client.post("/v1/auth/revoke", headers=waiter, json={}).status_code == 200
    reads = Reads(app, "load_checked")
    held = client.get(f"/v1/tables/{table_id}/observation", headers=waiter, params={"wait": 0.3})
    assert held.status_code == 401 and held.json()["code"] == "auth/revoked"
    assert reads.count == 0  # refused by the wait's own revocation question
    assert not {"view", "legal_actions", "to_act", "version"} & set(held.json())


def _play_turn(client: TestClient, table_id: str, headers: Headers,
               observation: dict[str, Any]) -> dict[str, Any]:
    """Act from ``observation`` until the seat is no longer to act; the last answer."""
    while True:
        answer = _act(client, table_id, headers, observation)
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        observation = body["observation"]
        if not observation["legal_actions"] or body["status"] == "finished":
            return body


def _plays_turn_there(client: TestClient, table_id: str, headers: Headers) -> dict[str, Any]:
    """The seat of ``headers`` observes through ``client`` and plays its whole turn there."""
    observed = client.get(f"/v1/tables/{table_id}/observation", headers=headers).json()
    return _play_turn(client, table_id, headers, observed)


def _after_own_turn(client: TestClient, second: tuple[FastAPI, TestClient],
                    mint_token: Callable[..., str], auth: Callable[[str], Headers],
                    seed: int) -> tuple[str, Headers, Headers]:
    """A seat that held a wait through ``client``'s worker (which so hears its table's turn
    stream and its token's revocation mark), then played its turn there: the table, that
    seat's headers and the other seat's."""
    table_id, seats = _seated(client, mint_token, auth, seed=seed)
    waiter = _waiter(client, table_id, seats)
    other = next(headers for headers in seats if headers is not waiter)
    thread, out = in_background(lambda: client.get(
        f"/v1/tables/{table_id}/observation", headers=waiter, params={"wait": 10}))
    time.sleep(0.3)
    _, elsewhere = second
    _plays_turn_there(elsewhere, table_id, other)
    thread.join(10)
    held = out["answer"].json()
    assert held["legal_actions"], held
    assert _play_turn(client, table_id, waiter, held)["status"] == "playing"
    return table_id, waiter, other


def test_a_held_wait_after_its_own_action_reads_nothing_until_its_turn(
    app: FastAPI, client: TestClient, second: tuple[FastAPI, TestClient],
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    table_id, waiter, other = _after_own_turn(client, second, mint_token, auth, seed=23)
    reads = Reads(app, "turns_then_table")
    thread, out = in_background(lambda: client.get(
        f"/v1/tables/{table_id}/observation", headers=waiter, params={"wait": 10}))
    time.sleep(0.5)
    assert thread.is_alive() and reads.count == 0  # held, and nothing read yet
    _, elsewhere = second
    _plays_turn_there(elsewhere, table_id, other)
    thread.join(10)
    held = out["answer"].json()
    assert held["legal_actions"]
    assert reads.count == 1  # the read after the wake, which answered
    assert held == client.get(f"/v1/tables/{table_id}/observation", headers=waiter).json()


def test_a_turn_heard_before_the_wait_began_is_read_and_answered_at_once(
    app: FastAPI, client: TestClient, second: tuple[FastAPI, TestClient],
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    table_id, waiter, other = _after_own_turn(client, second, mint_token, auth, seed=29)
    _, elsewhere = second
    _plays_turn_there(elsewhere, table_id, other)
    time.sleep(0.3)  # this worker heard of it, with nobody waiting: only the mark moved
    reads = Reads(app, "turns_then_table")
    started = time.monotonic()
    held = client.get(f"/v1/tables/{table_id}/observation", headers=waiter, params={"wait": 10})
    assert time.monotonic() - started < 2
    assert held.json()["legal_actions"]
    assert reads.count == 1  # the first read the moved mark called for


def test_a_token_revoked_after_its_own_action_is_refused_at_once_and_told_nothing(
    app: FastAPI, client: TestClient, second: tuple[FastAPI, TestClient],
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    table_id, waiter, _ = _after_own_turn(client, second, mint_token, auth, seed=31)
    _, elsewhere = second
    assert elsewhere.post("/v1/auth/revoke", headers=waiter, json={}).status_code == 200
    time.sleep(0.3)  # this worker heard the revocation mark written
    started = time.monotonic()
    held = client.get(f"/v1/tables/{table_id}/observation", headers=waiter, params={"wait": 10})
    assert time.monotonic() - started < 2
    assert held.status_code == 401 and held.json()["code"] == "auth/revoked"
    assert not {"view", "legal_actions", "to_act", "version"} & set(held.json())


def test_the_other_seat_reading_the_write_leaves_the_writer_its_quiet_wait(
    app: FastAPI, client: TestClient, second: tuple[FastAPI, TestClient],
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    table_id, waiter, other = _after_own_turn(client, second, mint_token, auth, seed=37)
    _, elsewhere = second
    # The other seat plays its turn, then waits here; the waiter's turn wakes that wait,
    # whose read of the waiter's write is the newest thing this worker read of the table.
    _plays_turn_there(elsewhere, table_id, other)
    mine = client.get(f"/v1/tables/{table_id}/observation", headers=waiter).json()
    thread, out = in_background(lambda: client.get(
        f"/v1/tables/{table_id}/observation", headers=other, params={"wait": 10}))
    time.sleep(0.3)
    _play_turn(client, table_id, waiter, mine)
    thread.join(10)
    assert out["answer"].json()["legal_actions"]
    reads = Reads(app, "turns_then_table")
    held, answer = in_background(lambda: client.get(
        f"/v1/tables/{table_id}/observation", headers=waiter, params={"wait": 10}))
    time.sleep(0.5)
    assert held.is_alive() and reads.count == 0  # waiting from its own write still
    _plays_turn_there(elsewhere, table_id, other)
    held.join(10)
    assert answer["answer"].json()["legal_actions"] and reads.count == 1
