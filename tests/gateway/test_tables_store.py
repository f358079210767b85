"""The table store against a real Redis: compare-and-set, events, idempotency, claims."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from agents_club_cli.embedded_redis import EmbeddedRedis
from gateway.security import revoked_key
from gateway.store.auth import AuthStore
from gateway.store.connection import Keys, close_client, connect
from gateway.store.tables import IdempotencyRecord, TableSnapshot, TableStore

pytestmark = pytest.mark.redis_cluster


def run(factory: Callable[[TableStore], Coroutine[Any, Any, None]], url: str, ns: str) -> None:
    """Run one async scenario with a fresh client (each test owns its event loop)."""

    async def scenario() -> None:
        client = connect(url)
        try:
            await factory(TableStore(client, Keys.for_url(ns, url)))
        finally:
            await close_client(client)

    asyncio.run(scenario())


def test_create_then_commit_bumps_version_and_numbers_events(redis_url: str, redis_namespace: str) -> None:
    async def scenario(store: TableStore) -> None:
        created = await store.commit(
            "t1", expected_version=-1, record={"id": "t1"}, state="{}",
            events=[(None, {"kind": "created"})],
        )
        assert created.applied and created.version == 0 and created.last_seq == 1
        moved = await store.commit(
            "t1", expected_version=0, state='{"n": 1}',
            events=[((0,), {"kind": "secret"}), (None, {"kind": "public"})],
            log=[{"seat": 0, "action": "x"}], deadline=123.5,
        )
        assert moved.applied and moved.version == 1 and moved.last_seq == 3
        snapshot = await store.load("t1")
        assert snapshot is not None
        assert (snapshot.version, snapshot.seq, snapshot.deadline) == (1, 3, 123.5)
        assert snapshot.state == '{"n": 1}' and json.loads(snapshot.record_json) == {"id": "t1"}
        events = await store.events_after("t1", 1)
        assert [(e.seq, e.audience, e.body["kind"]) for e in events] == [
            (2, (0,), "secret"), (3, None, "public"),
        ]
        assert events[0].visible_to(0) and not events[0].visible_to(1)
        assert not events[0].visible_to(None) and events[1].visible_to(None)
        assert await store.action_log("t1") == [{"seat": 0, "action": "x"}]
        cleared = await store.commit("t1", expected_version=1, deadline=None)
        assert cleared.applied
        after = await store.load("t1")
        assert after is not None and after.deadline is None and after.seq == 3

    run(scenario, redis_url, redis_namespace)


def test_stale_version_and_double_create_are_refused(redis_url: str, redis_namespace: str) -> None:
    async def scenario(store: TableStore) -> None:
        assert (await store.commit("t1", expected_version=-1, record={}, state="{}")).applied
        again = await store.commit("t1", expected_version=-1, record={}, state="{}")
        assert not again.applied and again.version == 0
        stale = await store.commit("t1", expected_version=5, state="{}")
        assert not stale.applied and stale.version == 0 and stale.replayed is None
        assert await store.load("missing") is None

    run(scenario, redis_url, redis_namespace)


def test_idempotency_key_used_meanwhile_returns_the_stored_record(redis_url: str, redis_namespace: str) -> None:
    async def scenario(store: TableStore) -> None:
        await store.commit("t1", expected_version=-1, record={}, state="{}")
        first = IdempotencyRecord("fp", 1, "buy 3 of a", (1, 2))  # an id may hold spaces
        done = await store.commit(
            "t1", expected_version=0, state="{}", idempotency_scope="a:k", idempotency=first
        )
        assert done.applied
        # A concurrent request with the same key that read version 0 too.
        racing = await store.commit(
            "t1", expected_version=0, state="{}", idempotency_scope="a:k",
            idempotency=IdempotencyRecord("fp", 99),
        )
        assert not racing.applied and racing.replayed == first
        assert (await store.load_for_action("t1", "a:k"))[1] == first
        assert (await store.load_for_action("t1", "a:other"))[1] is None

    run(scenario, redis_url, redis_namespace)


def test_events_after_reads_what_came_after_an_id(redis_url: str, redis_namespace: str) -> None:
    async def scenario(store: TableStore) -> None:
        await store.commit("t1", expected_version=-1, record={}, state="{}")
        assert await store.events_after("t1", 0) == []  # never waits
        await store.commit("t1", expected_version=0, events=[(None, {"kind": "woke"})])
        assert [e.body["kind"] for e in await store.events_after("t1", 0)] == ["woke"]
        assert await store.events_after("t1", 1) == []

    run(scenario, redis_url, redis_namespace)


def test_the_events_and_the_table_are_read_in_one_round_trip(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario(store: TableStore) -> None:
        await store.commit("t1", expected_version=-1, record={}, state='{"n": 0}')
        await store.commit("t1", expected_version=0, state='{"n": 1}',
                           events=[(None, {"kind": "woke"})])
        revoked, events, table = await store.events_then_table("t1", 0)
        assert not revoked  # not asked
        assert [e.body["kind"] for e in events] == ["woke"]
        assert table is not None and table.version == 1 and table.state == '{"n": 1}'
        assert table.seq == 1
        _, quiet, unchanged = await store.events_then_table("t1", 1)
        assert quiet == [] and unchanged == table
        assert await store.events_then_table("nope", 0) == (False, [], None)

    run(scenario, redis_url, redis_namespace)


def test_a_table_read_can_carry_the_revocation_check(redis_url: str, redis_namespace: str) -> None:
    async def scenario(store: TableStore) -> None:
        await store.commit("t1", expected_version=-1, record={}, state="{}")
        mark = revoked_key(store.keys, "jti-1")
        snapshot, _seen, revoked = await store.load_for_action("t1", None, mark)
        assert snapshot is not None and not revoked
        await AuthStore(store.redis, store.keys).revoke(
            "jti-1", expires_at=int(time.time()) + 60, agent_id="agent-1")
        assert (await store.load_for_action("t1", None, mark))[2] is True
        assert (await store.load_for_action("missing", None, mark)) == (None, None, True)
        assert (await store.load_for_action("t1", None))[2] is False
        _snapshot, seen, revoked = await store.load_for_action("t1", "a:k", mark)
        assert seen is None and revoked

    run(scenario, redis_url, redis_namespace)


def test_a_due_entry_is_claimed_by_one_worker_and_released_only_by_its_lease(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario(store: TableStore) -> None:
        # A commit indexes a table's clock, as every change with a deadline does.
        await store.commit("t1", expected_version=-1, record={}, state="{}", index_clock=10.0)
        await store.commit("t2", expected_version=-1, record={}, state="{}", index_clock=50.0)
        claims = await asyncio.gather(*(store.claim("clock", 20.0, 30.0 + i) for i in range(5)))
        assert sorted(member for claim in claims for member in claim) == ["t1"]
        winner_lease = 30.0 + next(i for i, c in enumerate(claims) if c)
        # Someone re-scheduled it meanwhile: the release must not undo that.
        await store.commit("t1", expected_version=0, index_clock=40.0)
        assert not await store.release("clock", "t1", winner_lease, None)
        assert await store.claim("clock", 45.0, 100.0) == ["t1"]
        assert await store.release("clock", "t1", 100.0, None)
        assert await store.claim("clock", 1000.0, 1100.0) == ["t2"]

    run(scenario, redis_url, redis_namespace)


def test_a_flushed_script_cache_is_reloaded_and_the_index_goes_with_the_commit(
    tmp_path: Path, redis_namespace: str
) -> None:
    # A private server: flushing the shared one's script cache would disturb other runs.
    with EmbeddedRedis(tmp_path / "redis", persistent=False) as private:
        _flushed_cache_scenario(private.url, redis_namespace)


def _flushed_cache_scenario(redis_url: str, redis_namespace: str) -> None:
    async def scenario(store: TableStore) -> None:
        await store.commit("t1", expected_version=-1, record={}, state="{}", index_clock=42.0)
        assert await store.claim("clock", 50.0, 60.0) == ["t1"]
        await store.redis.script_flush()
        moved = await store.commit("t1", expected_version=0, state="{}", index_bots=7.0)
        assert moved.applied and moved.version == 1
        assert await store.claim("bots", 8.0, 9.0) == ["t1"]
        snapshot, seen, revoked = await store.load_for_action("t1", "agent:key")
        assert snapshot is not None and snapshot.version == 1 and seen is None and not revoked

    run(scenario, redis_url, redis_namespace)


def test_the_turn_stream_has_an_entry_only_when_who_acts_may_change(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario(store: TableStore) -> None:
        await store.commit("t1", expected_version=-1, record={}, state="{}",
                           events=[(None, {"kind": "created"})])  # who acts: not known
        await store.commit("t1", expected_version=0, state="{}", to_act=[2, 0],
                           events=[(None, {"kind": "a"}), ((1,), {"kind": "b"})])
        await store.commit("t1", expected_version=1, state="{}", to_act=[2, 0],
                           events=[(None, {"kind": "same seats"})])  # no entry
        await store.commit("t1", expected_version=2, state="{}", to_act=[2, 0])  # no event either
        await store.commit("t1", expected_version=3, state="{}", to_act=[1])  # no event, a turn
        await store.commit("t1", expected_version=4, state="{}", to_act=[],
                           events=[(None, {"kind": "over"})])
        start = await store.load("t1")
        assert start is not None
        first = TableSnapshot(table_id="t1", record_json="{}", state="{}", version=-1, seq=0,
                              deadline=None)
        _, turns, table, recent = await store.turns_then_table("t1", first)
        assert [(t.seq, t.version, t.to_act) for t in turns] == [
            (1, 0, None), (3, 1, (2, 0)), (4, 4, (1,)), (5, 5, ())]
        assert table == start and recent is None
        assert await store.turns_then_table("t1", start) == (False, [], start, None)  # none after
        # The history rides on the same round trip, read just after the table.
        *_, recent = await store.turns_then_table("t1", start, history=(8, 2))
        assert recent == await store.recent_history("t1", log_entries=8, events=2)
        assert [event.body["kind"] for event in recent.events] == ["same seats", "over"]

    run(scenario, redis_url, redis_namespace)
