"""Held waits on a Redis Cluster: woken by shard-channel publishes on each primary.

A shard channel lives on the primary of its slot, so the worker's listener keeps
one pub/sub connection per primary and subscribes each key's channel on the node
serving its slot (:mod:`gateway.store.waits`). Here, on the session's local
cluster (whose nodes refuse ``CONFIG``, as managed services do): a watch on keys of
every primary wakes at once on a publish on any of them; over HTTP a held
observation and a long-poll are answered a fraction of a second after the move
that concerns them, and a revocation cuts a held observation as promptly; and many
concurrent held waits, woken at once, leave each node's connections within the
worker's bound.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from redis.asyncio.cluster import RedisCluster

from agents_club_cli.local_cluster import LocalCluster
from gateway.app import create_app
from gateway.services.waiters import Waiters
from gateway.store.connection import (
    BoundedCluster,
    Keys,
    RedisClient,
    close_client,
    connect,
    round_trip,
)
from tests.conftest import drop_namespace

from .conftest import make_settings
from .tables_helpers import agents, in_background, seated_table

Headers = dict[str, str]
PROMPTLY_S = 0.5
"""Well under any wait's own time."""


@pytest.fixture()
def cluster_url(redis_cluster: LocalCluster) -> str:
    return redis_cluster.url


@pytest.fixture()
def namespace(cluster_url: str) -> Iterator[str]:
    name = f"test-{uuid.uuid4().hex[:12]}"
    yield name
    drop_namespace(cluster_url, name)


@pytest.fixture()
def cluster_app(cluster_url: str, namespace: str, tmp_path: Path, signing_key_pem: str) -> FastAPI:
    return create_app(make_settings(redis_url=cluster_url, redis_namespace=namespace,
                                    data_dir=tmp_path / "data", signing_key_pem=signing_key_pem,
                                    redis_max_connections=4))


@pytest.fixture()
def cluster_client(cluster_app: FastAPI) -> Iterator[TestClient]:
    with TestClient(cluster_app) as client:
        yield client


def one_key_per_primary(client: RedisClient, keys: Keys) -> dict[str, str]:
    """A table-events key on each primary (``host:port`` -> key)."""
    found: dict[str, str] = {}
    for index in range(200):
        key = keys.table(f"tbl_{index}", "events")
        assert isinstance(client, RedisCluster)
        node = client.get_node_from_key(key)
        assert node is not None
        found.setdefault(node.name, key)
    return found


def test_a_watch_wakes_on_a_publish_on_every_primary(cluster_url: str, namespace: str) -> None:
    async def scenario() -> None:
        client = connect(cluster_url)
        waiters = Waiters(client)
        try:
            await waiters.listener.start()
            keys = Keys.for_url(namespace, cluster_url)
            per_primary = one_key_per_primary(client, keys)
            assert len(per_primary) == 3
            give_up = time.monotonic() + 10
            while not waiters.listener.connected:
                assert time.monotonic() < give_up, waiters.listener.links
                await asyncio.sleep(0.02)
            assert set(waiters.listener.links) == set(per_primary)  # one link per primary
            for key in per_primary.values():
                async with waiters.watch(key) as watch:
                    assert not await watch.changed(0.05)
                    await round_trip(client, ("SPUBLISH", key, "1"), key=key)
                    started = time.monotonic()
                    assert await watch.changed(5)
                    assert time.monotonic() - started < PROMPTLY_S
        finally:
            await waiters.listener.aclose()
            await close_client(client)

    asyncio.run(scenario())


def waiting_seat(client: TestClient, table_id: str) -> int:
    to_act: list[int] = client.get(f"/v1/tables/{table_id}/observation").json()["to_act"]
    return 1 - to_act[0]


def test_held_observations_and_a_long_poll_wake_promptly_after_a_move(
    cluster_client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    client = cluster_client
    seats = agents(mint_token, auth, "cw")
    table_id = seated_table(client, seats, seed=11)
    waiting = waiting_seat(client, table_id)
    actor = seats[1 - waiting]
    path = f"/v1/tables/{table_id}/observation"
    last_id = client.get(f"/v1/tables/{table_id}/events").json()["last_id"]
    held = [  # a spectator's observation and a long-poll: any move answers them
        in_background(lambda: (client.get(path, params={"wait": 20}), time.monotonic())),
        in_background(lambda: (client.get(f"/v1/tables/{table_id}/events",
                                          params={"after": last_id, "wait": 20}),
                               time.monotonic())),
    ]
    seat_wait = in_background(lambda: (client.get(path, headers=seats[waiting],
                                                  params={"wait": 20}), time.monotonic()))
    time.sleep(0.5)
    assert all(thread.is_alive() for thread, _ in [*held, seat_wait])  # nothing happened yet
    now = client.get(path, headers=actor).json()
    moved_at: list[float] = []
    for _ in range(200):  # the actor plays until the turn passes to the waiting seat
        applied = client.post(f"/v1/tables/{table_id}/actions", headers=actor, json={
            "version": now["version"], "action": now["legal_actions"][-1]["id"]})
        assert applied.status_code == 200, applied.text
        moved_at.append(time.monotonic())
        now = applied.json()["observation"]
        if waiting in now["to_act"] or now["status"] == "finished":
            break
    for thread, answered in held:
        thread.join(timeout=20)
        response, at = answered[0]
        assert response.status_code == 200, response.text
        assert at - moved_at[0] < PROMPTLY_S  # the first move answered it
    thread, answered = seat_wait
    thread.join(timeout=20)
    response, at = answered[0]
    assert response.status_code == 200 and waiting in response.json()["to_act"]
    assert at - moved_at[-1] < PROMPTLY_S  # the move that handed the turn over answered it


def test_a_revocation_cuts_a_held_observation_promptly(
    cluster_client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    client = cluster_client
    seats = agents(mint_token, auth, "cr")
    table_id = seated_table(client, seats, seed=12)
    waiting = waiting_seat(client, table_id)
    observer, answered = in_background(lambda: (client.get(
        f"/v1/tables/{table_id}/observation", headers=seats[waiting], params={"wait": 20}),
        time.monotonic()))
    time.sleep(0.5)
    assert observer.is_alive()
    assert client.post("/v1/auth/revoke", headers=seats[waiting], json={}).status_code == 200
    revoked_at = time.monotonic()
    observer.join(timeout=20)
    response, at = answered[0]
    assert response.status_code == 401 and response.json()["code"] == "auth/revoked"
    assert at - revoked_at < PROMPTLY_S


def test_many_waits_and_their_reads_stay_within_each_node_s_bound(
    cluster_url: str, namespace: str
) -> None:
    """300 held waits, all woken at once and each reading Redis (a round trip and a
    command): no node sees more than the worker's ``max_connections`` (4: two turns of
    the gate, the listener's link, a spare)."""
    name = f"bound-test:{uuid.uuid4().hex[:8]}"

    async def per_node(lister: RedisClient) -> dict[str, int]:
        assert isinstance(lister, RedisCluster)
        counts: dict[str, int] = {}
        for node in lister.get_nodes():
            rows = await lister.client_list(target_nodes=node)
            counts[node.name] = sum(1 for row in rows if row.get("name") == name)
        return counts

    async def scenario() -> None:
        client = connect(cluster_url, max_connections=4, pool_timeout_s=10, client_name=name)
        lister = connect(cluster_url)
        waiters = Waiters(client)
        keys = Keys.for_url(namespace, cluster_url)
        streams = [keys.table(f"tbl_{index}", "events") for index in range(60)]
        most: dict[str, int] = {}
        woken = 0

        async def wait_then_read(index: int) -> None:
            nonlocal woken
            stream = streams[index % len(streams)]
            async with waiters.watch(stream) as watch:
                if await watch.changed(20):
                    woken += 1
                    await round_trip(client, ("XRANGE", stream, "-", "+"), key=stream)
                    await client.get(keys.table(f"tbl_{index % len(streams)}", "table"))

        try:
            assert isinstance(client, BoundedCluster)
            await waiters.listener.start()
            tasks = [asyncio.create_task(wait_then_read(index)) for index in range(300)]
            give_up = time.monotonic() + 20
            while waiters.waiting < 300 or not waiters.listener.connected:
                assert time.monotonic() < give_up
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)  # every watch confirmed
            for stream in streams:
                await round_trip(lister, ("SPUBLISH", stream, "1"), key=stream)
            while not all(task.done() for task in tasks):
                for node, count in (await per_node(lister)).items():
                    most[node] = max(most.get(node, 0), count)
                await asyncio.sleep(0.01)
            await asyncio.gather(*tasks)
            assert woken == 300
            assert most and max(most.values()) <= 4, most  # per node, whatever the waiters
        finally:
            await waiters.listener.aclose()
            await close_client(lister)
            await close_client(client)

    asyncio.run(scenario())
