"""The lean round trip the hot table paths use: replies in order, errors in place, no desync."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio.connection import Connection
from redis.exceptions import ResponseError

from gateway.store.connection import connect, pack_commands, round_trip, stream_entries


def test_replies_come_in_order_with_an_error_reply_in_its_place(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario() -> None:
        client = connect(redis_url)
        key = f"{redis_namespace}:rt"
        try:
            replies = await round_trip(
                client, ("SET", key, "text"), ("INCR", key), ("GET", key), ("EXISTS", key))
            assert replies[0] in (True, b"OK")
            assert isinstance(replies[1], ResponseError)  # not an integer: an error reply
            assert replies[2:] == [b"text", 1]
            # The connection went back to the pool in step: the next exchange is right.
            for _ in range(3):
                assert await round_trip(client, ("GET", key), ("STRLEN", key)) == [b"text", 4]
        finally:
            await client.delete(key)
            await client.aclose()

    asyncio.run(scenario())


def test_a_cancelled_blocked_read_leaves_no_reply_behind_for_the_next_caller(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario() -> None:
        client = connect(redis_url)
        stream, key = f"{redis_namespace}:rt-stream", f"{redis_namespace}:rt-key"
        try:
            await client.set(key, "kept")
            blocked = asyncio.create_task(round_trip(
                client, ("XREAD", "COUNT", 10, "BLOCK", 5000, "STREAMS", stream, "0-0"),
                ("GET", key)))
            await asyncio.sleep(0.1)
            blocked.cancel()  # a client that went away mid-wait
            await asyncio.gather(blocked, return_exceptions=True)
            await client.xadd(stream, {"n": "1"}, id="1-0")
            # Had the cancelled connection gone back to the pool unread, these would
            # get its late replies instead of their own.
            for _ in range(5):
                read, got = await round_trip(
                    client, ("XREAD", "COUNT", 10, "STREAMS", stream, "0-0"), ("GET", key))
                assert [fields for _id, fields in stream_entries(read)] == [{b"n": b"1"}]
                assert got == b"kept"
        finally:
            await client.delete(stream, key)
            await client.aclose()

    asyncio.run(scenario())


def test_commands_are_packed_exactly_as_redis_py_packs_them() -> None:
    reference = Connection()
    commands = [
        ("EVALSHA", "0" * 40, 4, "k:{t}:table", "k:{t}:events", 17, -3, 0, 2.5, 1e-7,
         1796017676.5013623, "", "é ☃ text", b"\x00raw\r\nbytes", "x" * 7000),
        ("HMGET", "h", "record", "state"),
        ("SET", "k", 10**30),
    ]
    expected = b"".join(reference.pack_commands(commands))
    assert pack_commands(commands) == expected


def test_a_bool_or_none_is_refused_as_redis_py_refuses_it() -> None:
    for bad in (True, None, object()):
        with pytest.raises(TypeError):
            pack_commands([("SET", "k", bad)])  # type: ignore[list-item]


def test_a_connection_the_server_dropped_is_replaced_once_not_reported(
    redis_url: str, redis_namespace: str
) -> None:
    """As redis-py's own client does: a pooled connection that Redis closed (a restart,
    an idle timeout) costs a reconnect, not a failed request."""
    async def scenario() -> None:
        client, other = connect(redis_url), connect(redis_url)
        key = f"{redis_namespace}:rt-dropped"
        try:
            await client.set(key, "still here")
            connection_id, = await round_trip(client, ("CLIENT", "ID"))
            assert await other.client_kill_filter(_id=connection_id) == 1  # only ours
            assert await round_trip(client, ("GET", key)) == [b"still here"]
        finally:
            await other.delete(key)
            await client.aclose()
            await other.aclose()

    asyncio.run(scenario())
