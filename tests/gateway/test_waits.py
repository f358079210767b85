"""Held waits share one change listener per worker, and a worker's pool is bounded.

Against the real Redis (and one with ``CONFIG`` renamed away, as managed services
do): each writer of a watched key publishes its change (the commit script, the
assignment writer, revocation), a watch wakes on a publish of any key it watches,
hundreds of watches take no connection of their own, the listener subscribes
again after its connection is killed and wakes its waiters so they read again,
the pool makes callers wait for a free connection instead of failing, and idle
connections are closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
import uuid
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis

from engine.registry import get_game
from gateway.services.loaded_table import LoadedTable
from gateway.services.records import TableRecord
from gateway.services.waiters import Waiters, Watch, Written
from gateway.store.auth import AuthStore
from gateway.store.connection import Keys, close_client, connect
from gateway.store.tables import RecentHistory, TableSnapshot, TableStore
from gateway.store.tournaments import TournamentStore
from gateway.store.waits import stop_tasks

pytestmark = pytest.mark.managed_redis


def run(scenario: Callable[[aioredis.Redis, str, str], Awaitable[None]], redis_url: str,
        namespace: str, *, max_connections: int = 8) -> None:
    """Run ``scenario(client, namespace, client_name)`` on a bounded client of its own."""
    name = f"waits-test:{uuid.uuid4().hex[:10]}"

    async def main() -> None:
        client = connect(redis_url, max_connections=max_connections, pool_timeout_s=5,
                         client_name=name)
        assert isinstance(client, aioredis.Redis)  # these scenarios run on one Redis
        try:
            await scenario(client, namespace, name)
        finally:
            await close_client(client)

    asyncio.run(main())


async def connections_named(client: aioredis.Redis, name: str) -> list[dict[str, str]]:
    """The ``CLIENT LIST`` rows of connections called ``name`` (the one asking included)."""
    rows = await client.client_list()
    return [row for row in rows if row.get("name") == name]


def test_a_watch_wakes_on_a_publish_of_any_key_it_watches(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario(client: aioredis.Redis, ns: str, _name: str) -> None:
        waiters = Waiters(client)
        await waiters.listener.start()
        try:
            assignments, revoked = f"{ns}:assignments:agent-7", f"{ns}:revoked:jti-1"
            async with waiters.watch(assignments, revoked, None) as watch:
                assert not await watch.changed(0.2)  # nothing published
                await client.publish(assignments, "assigned")
                started = time.monotonic()
                assert await watch.changed(5)
                assert time.monotonic() - started < 1
                assert not await watch.changed(0.1)  # told once
                await client.publish(revoked, "revoked")
                assert await watch.changed(5)
                await client.publish(f"{ns}:assignments:someone-else", "assigned")
                assert not await watch.changed(0.3)  # another key wakes nobody here
            assert waiters.waiting == 0
        finally:
            await waiters.listener.aclose()

    run(scenario, redis_url, redis_namespace)


def test_every_writer_of_a_watched_key_publishes_its_change(
    redis_url: str, redis_namespace: str
) -> None:
    """The commit script (events, and turns when who acts changed), the assignment writer
    and revocation: a writer that forgot to publish would leave its waiters asleep."""
    async def scenario(client: aioredis.Redis, ns: str, _name: str) -> None:
        keys = Keys(ns)
        tables, auth = TableStore(client, keys), AuthStore(client, keys)
        tournaments = TournamentStore(client, keys)
        waiters = Waiters(client)
        await waiters.listener.start()
        try:
            table_id = "t-publish"
            events, turns = tables.events_key(table_id), tables.turns_key(table_id)
            async with waiters.watch(events) as on_events, waiters.watch(turns) as on_turns:
                await tables.commit(table_id, expected_version=-1, state="{}", to_act=[0],
                                    events=[(None, {"kind": "k", "text": "t"})])
                assert await on_events.changed(5) and await on_turns.changed(5)
                await tables.commit(table_id, expected_version=0, state="{}", to_act=[0],
                                    events=[(None, {"kind": "k", "text": "t"})])
                assert await on_events.changed(5)
                assert not await on_turns.changed(0.3)  # who acts did not change
            stream = tournaments.assignments_key("agent-9")
            async with waiters.watch(stream) as watch:
                await tournaments.announce("agent-9", {"table_id": table_id})
                assert await watch.changed(5)
            async with waiters.watch(f"{ns}:revoked:jti-9") as watch:
                await auth.revoke("jti-9", expires_at=int(time.time()) + 60, agent_id="a-9")
                assert await watch.changed(5)
        finally:
            await waiters.listener.aclose()

    run(scenario, redis_url, redis_namespace)


def test_a_publish_between_the_first_read_and_the_wait_is_not_missed(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario(client: aioredis.Redis, ns: str, _name: str) -> None:
        waiters = Waiters(client)
        await waiters.listener.start()
        try:
            stream = f"{ns}:t:{{t1}}:events"
            async with waiters.watch(stream) as watch:
                await client.publish(stream, "1")  # after the watch began, before waiting
                assert await watch.changed(5)
        finally:
            await waiters.listener.aclose()

    run(scenario, redis_url, redis_namespace)


def test_hundreds_of_watches_hold_no_connection_each(redis_url: str, redis_namespace: str) -> None:
    async def scenario(client: aioredis.Redis, ns: str, name: str) -> None:
        waiters = Waiters(client)
        await waiters.listener.start()
        woken: list[int] = []

        async def wait_on(index: int) -> None:
            async with waiters.watch(f"{ns}:stream:{index % 50}", f"{ns}:revoked:{index}") as watch:
                if await watch.changed(10):
                    woken.append(index)

        try:
            tasks = [asyncio.create_task(wait_on(index)) for index in range(400)]
            for _ in range(100):
                if waiters.waiting == 400:
                    break
                await asyncio.sleep(0.05)
            assert waiters.waiting == 400
            for _ in range(100):  # each watch starts once its channels are confirmed
                if len(await client.pubsub_channels(f"{ns}:*")) == 450:
                    break
                await asyncio.sleep(0.05)
            assert len(await connections_named(client, name)) <= 8
            await client.publish(f"{ns}:stream:3", "1")  # wakes the 8 waiters of stream 3
            await client.publish(f"{ns}:revoked:10", "revoked")  # and the one of this mark
            await asyncio.sleep(0.5)
            assert sorted(woken) == sorted({*range(3, 400, 50), 10})
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            assert waiters.waiting == 0
        finally:
            await waiters.listener.aclose()

    run(scenario, redis_url, redis_namespace)


def test_the_listener_subscribes_again_after_its_connection_is_killed(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario(client: aioredis.Redis, ns: str, name: str) -> None:
        waiters = Waiters(client)
        await waiters.listener.start()
        try:
            stream = f"{ns}:stream"
            async with waiters.watch(stream) as watch:
                subscribed = [row for row in await connections_named(client, name)
                              if int(row.get("sub", 0)) > 0]
                assert len(subscribed) == 1  # the one listener
                assert await client.client_kill_filter(_id=subscribed[0]["id"]) == 1
                # The waiter is woken when its subscription is confirmed again (it may
                # have missed a publish meanwhile, so it must read again).
                assert await watch.changed(10)
                await client.publish(stream, "1")
                assert await watch.changed(5)
        finally:
            await waiters.listener.aclose()

    run(scenario, redis_url, redis_namespace)


def test_the_pool_makes_callers_wait_for_a_connection_instead_of_failing(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario(client: aioredis.Redis, ns: str, name: str) -> None:
        started = time.monotonic()
        # Six blocking reads of 0.3 s on two connections: three rounds, no error.
        replies = await asyncio.gather(*(client.blpop([f"{ns}:empty:{i}"], timeout=0.3)
                                         for i in range(6)))
        assert replies == [None] * 6
        assert time.monotonic() - started >= 0.85
        assert len(await connections_named(client, name)) <= 2

    run(scenario, redis_url, redis_namespace, max_connections=2)


def test_a_watch_after_every_channel_lingered_out_still_hears_its_publish(
    redis_url: str, redis_namespace: str
) -> None:
    """With no channel held, redis-py health-checks before the next SUBSCRIBE and reads
    that reply itself; the listener's reader must not be reading at the same time (the
    link held no channel once the sweep dropped the last one, and then died)."""
    async def scenario(client: aioredis.Redis, ns: str, _name: str) -> None:
        waiters = Waiters(client, health_check_interval_s=0.01)  # a check due nearly always
        waiters.listener.linger_s = 0.05
        await waiters.listener.start()
        try:
            for round_ in range(20):
                key = f"{ns}:assignments:agent-{round_}"
                async with waiters.watch(key, None, None) as watch:
                    await client.publish(key, "assigned")
                    assert await watch.changed(5), f"round {round_}: the publish went unheard"
                while waiters.listener.held_channels:  # lingered out and swept
                    await asyncio.sleep(0.05)
                await asyncio.sleep(0.03)  # past the health-check interval, holding nothing
            assert waiters.listener.connected and waiters.listener.reconnects == 0
        finally:
            await waiters.listener.aclose()

    run(scenario, redis_url, redis_namespace)


def test_a_task_stopped_while_it_stops_another_still_ends() -> None:
    """A link cancelled while it waits for its sender to end (it was closing a failed
    connection) must end: the wait for the sender may not swallow the link's own
    cancellation, or the worker's shutdown waits for the link for ever."""
    async def scenario() -> None:
        inner_started = asyncio.Event()

        async def stubborn_inner() -> None:
            inner_started.set()
            try:
                await asyncio.sleep(3600)
            finally:
                await asyncio.sleep(0.2)  # ending takes a while (a connection closing)

        async def outer() -> None:
            inner = asyncio.create_task(stubborn_inner())
            await inner_started.wait()
            try:
                raise OSError("the link's connection failed")
            except OSError:
                pass
            finally:
                await stop_tasks(inner)  # cancelled meanwhile (below)
            await asyncio.sleep(3600)  # a swallowed cancellation would run on to here

        task = asyncio.create_task(outer())
        await asyncio.sleep(0.05)  # outer now waits for inner to end
        task.cancel()
        done, _ = await asyncio.wait([task], timeout=5)
        assert done and task.cancelled(), "the cancellation was swallowed"

    asyncio.run(scenario())


def test_stop_tasks_cancels_again_a_task_that_lost_a_cancellation_and_leaves_a_stubborn_one(
) -> None:
    """A task that swallowed one cancellation (as a library's own timeout may) ends at
    the next; one that never ends is returned once the grace period is over."""
    async def scenario() -> None:
        released = asyncio.Event()

        async def swallows_once() -> None:
            with contextlib.suppress(asyncio.CancelledError):  # lost, as a racing timeout loses it
                await asyncio.sleep(3600)
            await asyncio.sleep(3600)

        async def stubborn() -> None:
            while not released.is_set():
                with contextlib.suppress(asyncio.CancelledError):
                    await released.wait()

        lost = asyncio.create_task(swallows_once())
        kept = asyncio.create_task(stubborn())
        await asyncio.sleep(0)
        left = await stop_tasks(lost, kept, grace_s=0.5)
        assert lost.cancelled() and left == {kept}
        released.set()  # the test's own clean-up
        await kept

    asyncio.run(scenario())


def test_stop_tasks_retrieves_the_error_of_a_task_that_ends_after_the_grace_period() -> None:
    """A task that outlives the grace period and then fails (as a socket's subscription
    task does at its next check of the session's end) is not reported by asyncio as
    "Task exception was never retrieved"."""
    reported: list[dict[str, Any]] = []

    async def scenario() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _loop, context: reported.append(context))
        released = asyncio.Event()

        async def late_failure() -> None:
            while not released.is_set():
                with contextlib.suppress(asyncio.CancelledError):
                    await released.wait()
            raise LookupError("ended after the grace period")

        task = asyncio.create_task(late_failure())
        await asyncio.sleep(0)
        assert await stop_tasks(task, grace_s=0.2) == {task}
        released.set()
        await asyncio.wait([task])
        await asyncio.sleep(0)  # the done callbacks run
        del task
        gc.collect()  # an unretrieved exception is reported when its task is collected

    asyncio.run(scenario())
    gc.collect()
    assert not [context for context in reported if "never retrieved" in context.get("message", "")]


def _written(version: int) -> Written:
    """A table as a commit of this worker wrote it (only its version matters to a watch)."""
    game = get_game("market-fortune")
    record = TableRecord(
        id="tbl_w", game="market-fortune", mode="family", seats=2, variants=[], config={},
        private=False, turn_timeout_s=None, created_by="agent", created_at=0.0,
        seated=[None, None], seed=1)
    snapshot = TableSnapshot(table_id="tbl_w", record_json=record.model_dump_json(), state=None,
                             version=version, seq=version, deadline=None)
    return Written(LoadedTable(snapshot=snapshot, record=record, game=game, state=None),
                   RecentHistory(log=[], events=[]))


def test_a_wake_with_no_news_leaves_nothing_held_while_the_wait_goes_on() -> None:
    """A commit of this worker wakes every watch of its table with the table it wrote,
    the writer's own watch too. To the writer that is no news (it knows the version), so
    it waits on, and the table and history it was handed are dropped, not held through
    the wait (a socket's seat waits a whole turn there). News still hands them over."""
    async def scenario() -> None:
        watch = Watch()
        watch.know(5)
        own = _written(5)
        watch.wake(5, own)
        assert not await watch.changed(0.05), "its own write woke it"
        assert watch.written is None, "the wait held the table its own write delivered"
        released = weakref.ref(own.table)
        del own
        gc.collect()
        assert released() is None, "something else held on to the delivered table"

        news = _written(6)
        watch.wake(6, news)
        assert await watch.changed(0.05)
        assert watch.written is news

    asyncio.run(scenario())
