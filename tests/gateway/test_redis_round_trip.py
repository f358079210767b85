"""The lean round trip the hot table paths use: replies in order, errors in place, no desync."""

from __future__ import annotations

import asyncio

from redis.exceptions import ResponseError

from gateway.store.connection import connect, round_trip, stream_entries


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
