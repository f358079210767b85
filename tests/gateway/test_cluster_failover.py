"""A primary dies mid-game: with replica waiting on, no acknowledged action is lost.

A cluster of its own (this test kills one of its nodes), node timeout 0.5 s, so
the dead primary's replica is promoted on its own within a few seconds. Two
agents play a table, retrying each action with its ``Idempotency-Key`` until
it is answered; the primary serving the table's slot is SIGKILLed midway.
Afterwards every action an agent was told was applied is in the table's log,
once. Until the dead node is back (as the new primary's replica) ``WAIT 1``
cannot be met: those actions are answered 503, and their retries with the same
key are answered from the idempotency record, not applied again. Then the
worker's change listener has followed the failover (a link to the promoted
primary, none to the dead node) and a held observation wakes as promptly as
before.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from redis.crc import key_slot

from agents_club_cli.local_cluster import LocalCluster, cluster_tools_missing
from gateway.app import create_app
from gateway.store.connection import Keys, close_client, connect
from gateway.store.tables import TableStore
from tests.conftest import CLUSTER_OFF, CLUSTER_TESTS
from tests.gateway.conftest import make_settings
from tests.gateway.tables_helpers import GAME, organiser_auth

ACTIONS_BEFORE = 6
ACTIONS_AFTER = 3


def _act(client: TestClient, table_id: str, seat: dict[str, str], key: str,
         version: int, action: str) -> dict[str, Any] | None:
    """Send one action until it is answered (an outage answer is retried with the same
    key); the answer when applied, ``None`` when refused (a stale version)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        answer = client.post(f"/v1/tables/{table_id}/actions",
                             headers={**seat, "Idempotency-Key": key},
                             json={"version": version, "action": action})
        if answer.status_code == 200:
            body: dict[str, Any] = answer.json()
            return body
        if answer.status_code == 409:
            return None
        assert answer.status_code == 503, answer.text
        time.sleep(0.2)
    raise AssertionError("the action was never answered")


def _answered(send: Callable[[], Any]) -> dict[str, Any]:
    """``send()`` again (a retry, safe: create and join are idempotent) until it is not
    an outage answer; its body."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        answer = send()
        if answer.status_code != 503:
            assert answer.status_code in (200, 201), answer.text
            body: dict[str, Any] = answer.json()
            return body
        time.sleep(0.2)
    raise AssertionError("never answered")


def _seated_table(client: TestClient, seats: list[dict[str, str]]) -> str:
    """A started two-seat table (as ``tables_helpers.seated_table``), every request
    retried through outage answers: a replica slow to acknowledge on a loaded machine."""
    organiser = {**organiser_auth(client), "Idempotency-Key": "failover-table"}
    table = _answered(lambda: client.post("/v1/tables", headers=organiser, json={
        "game": GAME, "mode": "family", "seats": 2, "seed": 11, "join": False}))
    for seat in seats:
        join = functools.partial(client.post, f"/v1/tables/{table['id']}/join", headers=seat)
        _answered(join)
    return str(table["id"])


def _observe(client: TestClient, table_id: str, seat: dict[str, str]) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        answer = client.get(f"/v1/tables/{table_id}/observation", headers=seat)
        if answer.status_code == 200:
            body: dict[str, Any] = answer.json()
            return body
        assert answer.status_code == 503, answer.text
        time.sleep(0.2)
    raise AssertionError("the table was never readable again")


def _held_waits_follow_the_failover(client: TestClient, reader: Any, table_id: str,
                                    seats: list[dict[str, str]], promoted: str, dead: str) -> None:
    """The worker's change listener has a link to the promoted primary (the layout read
    again when the dead node's link failed), and a held observation of the table wakes
    as promptly as before the failover."""
    give_up = time.monotonic() + 30
    while not (reader.links.get(promoted) and dead not in reader.links):
        assert time.monotonic() < give_up, (reader.links, promoted, dead)
        time.sleep(0.1)
    path = f"/v1/tables/{table_id}/observation"
    before = client.get(path).json()
    answered: list[tuple[int, float]] = []
    spectator = threading.Thread(target=lambda: answered.append(
        (client.get(path, params={"wait": 20}).json()["version"], time.monotonic())))
    spectator.start()
    time.sleep(0.3)
    for seat in seats:
        observation = _observe(client, table_id, seat)
        if observation["legal_actions"]:
            break
    action = observation["legal_actions"][0]["id"]
    assert _act(client, table_id, seat, f"{table_id}-after-failover", observation["version"],
                action) is not None
    moved_at = time.monotonic()
    spectator.join(timeout=25)
    version, at = answered[0]
    assert version > before["version"]
    assert at - moved_at < 0.5  # woken by the promoted primary's notification, not a re-read


@pytest.mark.skipif(not CLUSTER_TESTS, reason=CLUSTER_OFF)
def test_acknowledged_actions_survive_the_primary_s_death(
    redis_namespace: str, signing_key_pem: str, tmp_path: Path
) -> None:
    missing = cluster_tools_missing()
    if missing is not None:
        pytest.skip(f"NO REDIS CLUSTER FAILOVER TEST: {missing}")
    with (
        tempfile.TemporaryDirectory(prefix="agents-club-failover-") as directory,
        LocalCluster(Path(directory), node_timeout_ms=500) as cluster,
    ):
        settings = make_settings(
            redis_url=cluster.url, redis_namespace=redis_namespace, data_dir=tmp_path / "data",
            signing_key_pem=signing_key_pem, redis_replica_wait=1,
            redis_replica_wait_timeout_ms=1000)
        app = create_app(settings)
        acknowledged: list[tuple[int, str]] = []  # (version it made, action id)
        with TestClient(app) as client:
            seats = [{"Authorization": "Bearer " + app.state.tokens.issue(
                agent_id=f"fo{i}", name=f"fo{i}", scopes={f"game:{GAME}"}, kind="agent").token}
                for i in range(2)]
            table_id = _seated_table(client, seats)
            keys = Keys(redis_namespace, cluster=True)
            slot = key_slot(keys.table(table_id, "table").encode())
            killed = restarted = False
            dead = 0
            for _ in range(200):
                if len(acknowledged) >= ACTIONS_BEFORE + ACTIONS_AFTER:
                    break
                if len(acknowledged) == ACTIONS_BEFORE and not killed:
                    dead = cluster.primary_of(slot)
                    cluster.kill(dead)
                    killed = True
                for seat in seats:
                    observation = _observe(client, table_id, seat)
                    if observation["legal_actions"]:
                        break
                else:
                    raise AssertionError("nobody may act")
                if observation.get("status") == "finished":
                    break
                version = observation["version"]
                action = observation["legal_actions"][0]["id"]
                answer = _act(client, table_id, seat, f"{table_id}-{version}", version, action)
                if answer is not None:
                    acknowledged.append((version + 1, action))
                if killed and not restarted and len(acknowledged) > ACTIONS_BEFORE:
                    # The replica was promoted and took the action; the dead node comes
                    # back as its replica, so WAIT 1 can be met again.
                    cluster.start_node(dead)
                    restarted = True
            assert killed and len(acknowledged) > ACTIONS_BEFORE
            _held_waits_follow_the_failover(client, app.state.waiters.listener, table_id, seats,
                                            f"127.0.0.1:{cluster.primary_of(slot)}", f"127.0.0.1:{dead}")

        async def log() -> list[dict[str, Any]]:
            client = connect(cluster.url)
            try:
                return await TableStore(client, keys).action_log(table_id)
            finally:
                await close_client(client)

        entries = asyncio.run(log())
        gc.collect()  # a connection left open (to the killed node, say) warns here, not later
    logged = [(entry["version"], entry["action"]) for entry in entries if entry.get("by") != "system"]
    for told in acknowledged:
        assert logged.count(told) == 1, (told, logged)
    versions = [entry["version"] for entry in entries]
    assert len(versions) == len(set(versions))  # nothing applied twice
