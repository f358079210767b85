"""Every Lua script and every one-round-trip read of the store, run on a real Redis Cluster.

A cluster refuses a script whose keys hash to more than one slot (``CROSSSLOT``)
and a round trip sent to the wrong primary answers ``MOVED``: so each path
passing here touches one slot. The first test shows the cluster does refuse a
script that spans slots, so the others could fail.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ClusterCrossSlotError

from agents_club_cli.local_cluster import LocalCluster
from gateway.security import IssuedToken, revoked_key
from gateway.store.active_tables import ActiveTableStore
from gateway.store.admission import AdmissionStore
from gateway.store.auth import AuthStore
from gateway.store.connection import (
    CLUSTER_BUCKETS,
    Keys,
    RedisClient,
    close_client,
    connect,
    round_trip,
)
from gateway.store.tables import IdempotencyRecord, ReplicasBehind, TableStore
from gateway.store.tournaments import TournamentStore
from tests.conftest import drop_namespace

Scenario = Callable[[RedisClient, Keys], Coroutine[Any, Any, None]]


def run(url: str, namespace: str, scenario: Scenario) -> None:
    async def main() -> None:
        client = connect(url)
        try:
            await scenario(client, Keys.for_url(namespace, url))
        finally:
            await close_client(client)

    asyncio.run(main())


@pytest.fixture()
def cluster_url(redis_cluster: LocalCluster) -> str:
    return redis_cluster.url


@pytest.fixture()
def redis_namespace(cluster_url: str) -> Iterator[str]:
    """A fresh namespace on the cluster, its keys deleted afterwards (these tests use
    the cluster only)."""
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    yield namespace
    drop_namespace(cluster_url, namespace)


def test_the_cluster_refuses_a_script_across_slots(cluster_url: str, redis_namespace: str) -> None:
    async def scenario(client: RedisClient, keys: Keys) -> None:
        assert keys.cluster and isinstance(client, RedisCluster)
        first, second = keys.global_("a"), keys.global_("b")
        assert client.keyslot(first) != client.keyslot(second)
        reply, = await round_trip(client, ("EVAL", "return 1", 2, first, second), key=first)
        assert isinstance(reply, ClusterCrossSlotError)  # the server's CROSSSLOT reply

    run(cluster_url, redis_namespace, scenario)


def test_every_table_script_and_read_stays_on_the_table_s_slot(
    cluster_url: str, redis_namespace: str
) -> None:
    async def scenario(client: RedisClient, keys: Keys) -> None:
        store = TableStore(client, keys)
        auth = AuthStore(client, keys)
        mark = revoked_key(keys, "jti-c")
        table_ids = [f"tbl_{i}" for i in range(40)]
        assert len({keys.bucket_of(t) for t in table_ids}) > 10  # spread over buckets
        for i, table_id in enumerate(table_ids):
            created = await store.commit(
                table_id, expected_version=-1, record={"n": i}, state="{}",
                events=[(None, {"type": "created"})], log=[{"a": 1}],
                idempotency_scope="agent:k", idempotency=IdempotencyRecord("f", 1),
                index_clock=10.0 + i, index_bots=20.0 + i, to_act=[0],
                deadline=100.0)
            assert created.applied
            await store.index_public(table_id, 1000.0 + i, open_=True)
        # Reads that carry the revocation check, one round trip each.
        snapshot, seen, revoked = await store.load_for_action("tbl_3", "agent:k", mark)
        assert snapshot is not None and seen is not None and not revoked
        assert (await store.checked_events_after("tbl_3", 0, mark))[1]
        assert snapshot.version == 0
        assert (await store.events_then_table("tbl_3", 0, mark))[1]
        assert (await store.turns_then_table("tbl_3", snapshot, mark)).table is not None
        assert (await store.turns_then_table("tbl_3", snapshot, mark, history=(5, 5))).recent
        assert (await store.recent_history("tbl_3", log_entries=5, events=5))[1]
        # Sweeps and listings over every bucket.
        claimed = await store.claim("clock", 100.0, 200.0, limit=CLUSTER_BUCKETS * 2)
        assert sorted(claimed) == sorted(table_ids)
        assert await store.release("clock", "tbl_3", 200.0, None)
        assert sorted(await store.claim("bots", 100.0, 200.0, limit=CLUSTER_BUCKETS * 2)) == sorted(
            table_ids)
        assert await store.release("bots", "tbl_3", 200.0, 300.0)
        newest = await store.public_table_ids(limit=5, open_only=True)
        assert newest == [f"tbl_{i}" for i in range(39, 34, -1)]
        assert await store.public_table_ids(offset=38, limit=5) == ["tbl_1", "tbl_0"]
        assert await store.listed_before(1002.5, 10) == ["tbl_0", "tbl_1", "tbl_2"]
        await store.unindex_open("tbl_39")
        assert (await store.public_table_ids(limit=1, open_only=True)) == ["tbl_38"]
        assert await store.prune_unwritten(["tbl_0", "tbl_1", "tbl_17"], 2000.0) == 3
        assert await store.listed_before(1002.5, 10) == ["tbl_2"]
        assert await store.claim_create("agent:key", "tbl_0", "fp") is None
        assert await store.claim_create("agent:key", "tbl_9", "fp") == ("tbl_0", "fp")
        # A revoked token is seen revoked by the read of any table, on whichever slot.
        await auth.revoke("jti-c", expires_at=int(time.time()) + 60, agent_id="agent")
        for table_id in table_ids:
            assert (await store.load_for_action(table_id, None, mark))[2] is True

    run(cluster_url, redis_namespace, scenario)


def test_every_tournament_script_and_read_stays_on_one_slot(
    cluster_url: str, redis_namespace: str
) -> None:
    async def scenario(client: RedisClient, keys: Keys) -> None:
        store = TournamentStore(client, keys)
        ids = [f"tn_{i}" for i in range(6)]
        for i, tournament_id in enumerate(ids):
            plans = [(0, '{"p": 0}', f"{tournament_id}_t0"), (1, '{"p": 1}', f"{tournament_id}_t1")]
            assert await store.create(tournament_id, {"n": i}, b"\x01\x02", 10.0 + i,
                                      listed=i % 2 == 0, plans=plans)
            assert not await store.create(tournament_id, {"n": i}, b"\x01", 10.0 + i,
                                          listed=True, plans=plans)
        tournament_id = ids[3]
        meta = await store.meta(tournament_id)
        assert meta is not None and meta.record == {"n": 3} and meta.status == "running"
        assert await store.index_of_table(tournament_id, "tn_3_t1") == 1
        assert await store.add_round(tournament_id, 1, [(2, '{"p": 2}', "tn_3_t2")])
        assert not await store.add_round(tournament_id, 1, [(2, '{"p": 2}', "tn_3_t2")])
        assert sorted(await store.plans(tournament_id)) == [0, 1, 2]
        await store.note_created(tournament_id, 0, 50.0)
        assert await store.created(tournament_id) == {0: 50.0}
        assert await store.record_result(tournament_id, 1, '{"r": 1}')
        assert await store.record_result(tournament_id, 0, '{"r": 0}')
        assert not await store.record_result(tournament_id, 1, '{"r": 9}')
        assert await store.results(tournament_id) == ['{"r": 1}', '{"r": 0}']
        await store.count_refused(tournament_id, "agent_a")
        assert await store.refused(tournament_id) == {"agent_a": 1}
        assert await store.list_ids(listed_only=False, offset=0, limit=10) == ids[::-1]
        assert await store.list_ids(listed_only=True, offset=0, limit=10) == ["tn_4", "tn_2", "tn_0"]
        assert sorted(await store.claim_active(100.0, 200.0)) == ids
        assert await store.release_active(tournament_id, 200.0, 150.0)
        await store.poke(tournament_id, 120.0)
        assert await store.claim_active(130.0, 300.0) == [tournament_id]
        assert await store.end(tournament_id, "finished", 140.0)
        assert not await store.end(tournament_id, "cancelled", 141.0)
        await store.cache_report(tournament_id, '{"report": 1}')
        ended = await store.meta(tournament_id)
        assert ended is not None and ended.status == "finished" and ended.report == '{"report": 1}'
        # An agent's assignments and a game's ladder live on their own slots.
        await store.announce("agent_a", {"table": "tn_3_t0"})
        assignments = await store.assignments_after("agent_a", "0")
        assert [a.body for a in assignments] == [{"table": "tn_3_t0"}]
        assert await store.record_ladder("market-fortune", "tbl_1", '{"l": 1}')
        assert not await store.record_ladder("market-fortune", "tbl_1", '{"l": 2}')
        assert await store.ladder("market-fortune") == ['{"l": 1}']
        await store.add_ladder_pending("market-fortune", "tbl_2", 5.0)
        assert await store.claim_ladder_pending(10.0, 20.0) == [("market-fortune", "tbl_2")]
        assert await store.release_ladder_pending("market-fortune", "tbl_2", 20.0, None)

    run(cluster_url, redis_namespace, scenario)


def test_every_agent_admission_and_cap_script_stays_on_one_slot(
    cluster_url: str, redis_namespace: str
) -> None:
    async def scenario(client: RedisClient, keys: Keys) -> None:
        auth = AuthStore(client, keys)
        record, secret = await auth.create_agent(name="Slotty")
        issued = IssuedToken("t", "jti-1", int(time.time()) + 600)
        assert await auth.exchange_secret(record.agent_id, secret, lambda _: issued) is not None
        assert await auth.note_issued(record.agent_id, IssuedToken("t", "jti-2", issued.expires_at),
                                      asked_with="jti-1")
        await auth.revoke("jti-1", expires_at=issued.expires_at, agent_id=record.agent_id)
        assert not await auth.note_issued(
            record.agent_id, IssuedToken("t", "jti-3", issued.expires_at), asked_with="jti-1")
        assert (await auth.add_scopes(record.agent_id, "game:x")).scopes == {"game:x"}
        assert (await auth.rotate_secret(record.agent_id)).revoked_tokens == 2
        assert await auth.is_revoked("jti-2")
        # The rotation's marks reach the tables' buckets too.
        tables = TableStore(client, keys)
        await tables.commit("tbl_r", expected_version=-1, record={}, state="{}")
        assert (await tables.load_for_action("tbl_r", None, revoked_key(keys, "jti-2")))[2]
        admission = AdmissionStore(client, keys)
        await admission.save_challenge("chl_1", "{}", expires_at=time.time() + 60, keep_s=60)
        assert (await admission.claim_challenge("chl_1")).status == "ok"
        assert (await admission.hit("token", "agent", limit=2, window_s=60)).allowed
        cap = ActiveTableStore(client, keys)
        assert await cap.reserve("agent", "tbl_1", 1, 1.0)
        assert not await cap.reserve("agent", "tbl_2", 1, 2.0)

    run(cluster_url, redis_namespace, scenario)


def test_a_commit_waits_for_a_replica_when_asked(
    cluster_url: str, redis_url: str, redis_namespace: str
) -> None:
    """On the cluster a replica acknowledges; a Redis without replicas cannot, and the
    commit (applied on the primary) is not acknowledged: the caller gets an outage."""
    async def on_cluster(client: RedisClient, keys: Keys) -> None:
        store = TableStore(client, keys, replica_wait=(1, 2000))
        for i in range(10):
            assert (await store.commit(f"tbl_w{i}", expected_version=-1, record={},
                                       state="{}")).applied

    async def alone(client: RedisClient, keys: Keys) -> None:
        store = TableStore(client, keys, replica_wait=(1, 50))
        with pytest.raises(ReplicasBehind):
            await store.commit("tbl_w", expected_version=-1, record={}, state="{}")
        assert await store.load("tbl_w") is not None  # written, only not acknowledged

    run(cluster_url, redis_namespace, on_cluster)
    if "+cluster" not in redis_url:
        run(redis_url, redis_namespace, alone)


def test_a_round_trip_sent_to_the_wrong_primary_follows_the_moved_reply(
    cluster_url: str, redis_namespace: str
) -> None:
    """A slot that moved answers ``MOVED``: the round trip learns the layout and is sent again."""

    async def scenario(client: RedisClient, keys: Keys) -> None:
        assert isinstance(client, RedisCluster)
        key = keys.global_("moved")
        await client.initialize()
        slot = client.keyslot(key)
        owner = client.get_node_from_key(key)
        assert owner is not None
        other = next(node for node in client.get_primaries() if node.name != owner.name)
        # The client's layout as it stands after a reshard it has not heard of yet.
        client.nodes_manager.slots_cache[slot] = [other]

        written, read = await round_trip(client, ("SET", key, "here"), ("GET", key), key=key)

        assert (written, read) == (b"OK", b"here")
        now = client.get_node_from_key(key)
        assert now is not None and now.name == owner.name

    run(cluster_url, redis_namespace, scenario)
