"""Held waits share one keyspace reader per worker, and a worker's pool is bounded.

Against the real Redis: a watch wakes on a write of any key it watches (a
table's stream, any other stream such as an agent's assignments, a revocation
mark), hundreds of watches take no connection of their own, the reader
re-subscribes after its connection is killed and wakes its waiters so they
read again, the pool makes callers wait for a free connection instead of
failing, and idle connections are closed.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis

from gateway.services.waiters import Waiters
from gateway.store.connection import BoundedPool, close_client, connect


def run(scenario: Callable[[aioredis.Redis, str, str], Awaitable[None]], redis_url: str,
        namespace: str, *, max_connections: int = 8) -> None:
    """Run ``scenario(client, namespace, client_name)`` on a bounded client of its own."""
    name = f"waits-test:{uuid.uuid4().hex[:10]}"

    async def main() -> None:
        client = connect(redis_url, max_connections=max_connections, pool_timeout_s=5,
                         client_name=name)
        try:
            await scenario(client, namespace, name)
        finally:
            await close_client(client)

    asyncio.run(main())


async def connections_named(client: aioredis.Redis, name: str) -> list[dict[str, str]]:
    """The ``CLIENT LIST`` rows of connections called ``name`` (the one asking included)."""
    rows = await client.client_list()
    return [row for row in rows if row.get("name") == name]


def test_a_watch_wakes_on_a_write_of_any_key_it_watches(redis_url: str, redis_namespace: str) -> None:
    async def scenario(client: aioredis.Redis, ns: str, _name: str) -> None:
        waiters = Waiters(client, sentinel=f"{ns}:waits")
        await waiters.start()
        try:
            assignments, revoked = f"{ns}:assignments:agent-7", f"{ns}:revoked:jti-1"
            async with waiters.watch(assignments, revoked, None) as watch:
                assert not await watch.changed(0.2)  # nothing written
                await client.xadd(assignments, {"table": "t1"})
                started = time.monotonic()
                assert await watch.changed(5)
                assert time.monotonic() - started < 1
                assert not await watch.changed(0.1)  # told once
                await client.set(revoked, "1", ex=60)
                assert await watch.changed(5)
                await client.xadd(f"{ns}:assignments:someone-else", {"table": "t2"})
                assert not await watch.changed(0.3)  # another key wakes nobody here
            assert waiters.waiting == 0
        finally:
            await waiters.aclose()

    run(scenario, redis_url, redis_namespace)


def test_a_write_between_the_first_read_and_the_wait_is_not_missed(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario(client: aioredis.Redis, ns: str, _name: str) -> None:
        waiters = Waiters(client, sentinel=f"{ns}:waits")
        await waiters.start()
        try:
            stream = f"{ns}:t:{{t1}}:events"
            async with waiters.watch(stream) as watch:
                await client.xadd(stream, {"event": "{}"})  # after the watch began, before waiting
                assert await watch.changed(5)
        finally:
            await waiters.aclose()

    run(scenario, redis_url, redis_namespace)


def test_hundreds_of_watches_hold_no_connection_each(redis_url: str, redis_namespace: str) -> None:
    async def scenario(client: aioredis.Redis, ns: str, name: str) -> None:
        waiters = Waiters(client, sentinel=f"{ns}:waits")
        await waiters.start()
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
            assert len(await connections_named(client, name)) <= 8
            await client.xadd(f"{ns}:stream:3", {"x": "1"})  # wakes the 8 waiters of stream 3
            await client.set(f"{ns}:revoked:10", "1", ex=60)  # and the one of this mark
            await asyncio.sleep(0.5)
            assert sorted(woken) == sorted({*range(3, 400, 50), 10})
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            assert waiters.waiting == 0
        finally:
            await waiters.aclose()

    run(scenario, redis_url, redis_namespace)


def test_the_reader_subscribes_again_after_its_connection_is_killed(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario(client: aioredis.Redis, ns: str, name: str) -> None:
        waiters = Waiters(client, sentinel=f"{ns}:waits")
        await waiters.start()
        try:
            stream = f"{ns}:stream"
            async with waiters.watch(stream) as watch:
                subscribed = [row for row in await connections_named(client, name)
                              if int(row.get("sub", 0)) > 0]
                assert len(subscribed) == 1  # the one reader
                await client.execute_command("CLIENT", "KILL", "ID", subscribed[0]["id"])
                # The waiter is woken when its subscription is confirmed again (it may
                # have missed a write meanwhile, so it must read again).
                assert await watch.changed(10)
                await client.xadd(stream, {"x": "1"})
                assert await watch.changed(5)
        finally:
            await waiters.aclose()

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


def test_idle_connections_are_closed(redis_url: str, redis_namespace: str) -> None:
    async def scenario(client: aioredis.Redis, ns: str, name: str) -> None:
        pool = client.connection_pool
        assert isinstance(pool, BoundedPool)
        await asyncio.gather(*(client.blpop([f"{ns}:empty:{i}"], timeout=0.1) for i in range(5)))
        assert len(await connections_named(client, name)) == 5  # the burst's connections
        assert await pool.close_idle(60) == 0  # none idle that long
        await asyncio.sleep(0.3)
        closed = await pool.close_idle(0.2)
        assert closed >= 4  # all but the one that just listed the clients
        rows = await connections_named(client, name)  # reconnects one to ask
        assert len(rows) <= 2
        assert await client.ping()  # a closed connection opens again when needed

    run(scenario, redis_url, redis_namespace)


async def _until(condition: Callable[[], bool], timeout_s: float = 5.0) -> bool:
    give_up = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > give_up:
            return False
        await asyncio.sleep(0.01)
    return True


def test_marks_move_with_every_write_reconnect_and_new_subscription(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario(client: aioredis.Redis, ns: str, name: str) -> None:
        waiters = Waiters(client, sentinel=f"{ns}:waits")
        await waiters.start()
        try:
            stream, revoked = f"{ns}:t:{{t1}}:turns", f"{ns}:revoked:jti-2"
            assert waiters.marks(stream) is None  # nobody watches it: a write goes unheard
            async with waiters.watch(stream):
                marks = waiters.marks(stream, None)
                assert marks is not None and set(marks) == {stream}
                assert waiters.unchanged(marks, stream)
                assert not waiters.unchanged(marks, stream, revoked)  # not marked: unknown
                assert not waiters.unchanged(None, stream)
            # Lingering after its watch left, the subscription still hears every write.
            assert waiters.unchanged(marks, stream)
            await client.xadd(stream, {"to_act": "[1]"})
            assert await _until(lambda: not waiters.unchanged(marks, stream))
            # A mark that allows for the command's own write: that one write, heard or
            # not yet, changes nothing; a second one does.
            marks = waiters.marks(stream)
            assert marks is not None
            own = {stream: marks[stream].allowing(1)}
            await client.xadd(stream, {"to_act": "[0]"})
            assert waiters.unchanged(own, stream)  # (sent, maybe not heard yet)
            await asyncio.sleep(0.2)
            assert waiters.unchanged(own, stream) and not waiters.unchanged(marks, stream)
            await client.xadd(stream, {"to_act": "[1]"})
            assert await _until(lambda: not waiters.unchanged(own, stream))

            async with waiters.watch(stream):
                marks = waiters.marks(stream)
                subscribed = [row for row in await connections_named(client, name)
                              if int(row.get("sub", 0)) > 0]
                await client.execute_command("CLIENT", "KILL", "ID", subscribed[0]["id"])
                # While it reconnects nothing can be marked; confirmed again, the mark moved.
                assert await _until(lambda: waiters.marks(stream) is None)
                assert await _until(lambda: waiters.marks(stream) is not None, 10)
                assert not waiters.unchanged(marks, stream)
        finally:
            await waiters.aclose()

    run(scenario, redis_url, redis_namespace)


def test_a_new_subscription_never_takes_an_old_mark(redis_url: str, redis_namespace: str) -> None:
    async def scenario(client: aioredis.Redis, ns: str, _name: str) -> None:
        waiters = Waiters(client, sentinel=f"{ns}:waits")
        waiters.reader.linger_s = 0.2
        await waiters.start()
        try:
            stream = f"{ns}:t:{{t2}}:turns"
            async with waiters.watch(stream):
                marks = waiters.marks(stream)
            # Swept once it lingered out: a write now would go unheard...
            assert await _until(lambda: waiters.reader.held_keys == 0)
            await client.xadd(stream, {"to_act": "[0]"})
            async with waiters.watch(stream):  # ...so the new subscription is not the old one
                assert waiters.marks(stream) is not None
                assert not waiters.unchanged(marks, stream)
        finally:
            await waiters.aclose()

    run(scenario, redis_url, redis_namespace)
