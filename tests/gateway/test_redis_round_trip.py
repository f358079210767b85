"""The round trip the hot table paths use: replies in order, errors in place, no desync."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from redis.exceptions import AuthenticationError, NoScriptError, ResponseError

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


def test_an_error_reply_keeps_redis_py_s_exception_class_and_the_rest_are_read(
    redis_url: str, redis_namespace: str
) -> None:
    """The commit checks ``isinstance(reply, NoScriptError)`` to reload its script."""
    async def scenario() -> None:
        client = connect(redis_url)
        key = f"{redis_namespace}:rt-noscript"
        try:
            replies = await round_trip(
                client, ("EVALSHA", "0" * 40, 0), ("SET", key, "v"), ("HGET", key, "f"),
                ("GET", key))
            assert isinstance(replies[0], NoScriptError)
            assert replies[1] == b"OK"
            assert isinstance(replies[2], ResponseError) and "WRONGTYPE" in str(replies[2])
            assert replies[3] == b"v"
        finally:
            await client.delete(key)
            await client.aclose()

    asyncio.run(scenario())


def test_replies_have_the_shapes_redis_py_s_own_connection_reads(
    redis_url: str, redis_namespace: str
) -> None:
    """RESP3 maps, sets, doubles, nils and nested errors, raw (no response callbacks)."""
    async def scenario() -> None:
        client = connect(redis_url)
        stream, hash_, set_, zset = (f"{redis_namespace}:rt-{name}" for name in "xhsz")
        try:
            await client.xadd(stream, {"a": "1", "b": "2"}, id="1-0")
            await client.hset(hash_, mapping={"f": "v"})
            await client.sadd(set_, "m")
            await client.zadd(zset, {"m": 2.5})
            commands = [
                ("XREAD", "COUNT", 10, "STREAMS", stream, "0-0"), ("HGETALL", hash_),
                ("SMEMBERS", set_), ("ZRANGE", zset, 0, -1, "WITHSCORES"),
                ("ZSCORE", zset, "m"), ("GET", f"{redis_namespace}:rt-none"),
                ("HMGET", hash_, "f", "g"), ("EVAL", "return {1, redis.error_reply('E x')}", 0),
            ]
            replies = await round_trip(client, *commands)
            assert replies[0] == {stream.encode(): [[b"1-0", [b"a", b"1", b"b", b"2"]]]}
            assert replies[1] == {b"f": b"v"} and replies[4] == 2.5 and replies[5] is None
            assert replies[2] == [b"m"] and replies[3] == [[b"m", 2.5]]
            assert replies[6] == [b"v", None]
            assert isinstance(replies[7][1], ResponseError)
        finally:
            await client.delete(stream, hash_, set_, zset)
            await client.aclose()

    asyncio.run(scenario())


def test_a_connection_killed_mid_read_is_retried_on_a_fresh_one(
    redis_url: str, redis_namespace: str
) -> None:
    """The read that breaks (not an idle connection found closed) costs a reconnect too."""
    async def scenario() -> None:
        client, other = connect(redis_url), connect(redis_url)
        key = f"{redis_namespace}:rt-blpop"
        try:
            connection_id, = await round_trip(client, ("CLIENT", "ID"))
            blocked = asyncio.create_task(round_trip(client, ("BLPOP", key, 5), ("CLIENT", "ID")))
            await asyncio.sleep(0.1)  # the BLPOP is waiting on the connection of CLIENT ID
            assert await other.client_kill_filter(_id=connection_id) == 1
            await asyncio.sleep(0.1)  # the retry is waiting in its own BLPOP
            await other.rpush(key, "pushed")
            (_key, value), new_id = await asyncio.wait_for(blocked, 5)
            assert value == b"pushed" and new_id != connection_id
        finally:
            await other.delete(key)
            await client.aclose()
            await other.aclose()

    asyncio.run(scenario())


def test_concurrent_round_trips_each_get_their_own_replies(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario() -> None:
        client = connect(redis_url)
        keys = [f"{redis_namespace}:rt-many-{n}" for n in range(40)]
        try:
            await round_trip(client, *(("SET", key, n) for n, key in enumerate(keys)))
            replies = await asyncio.gather(*(  # within redis-py's pool of 100
                round_trip(client, ("GET", key), ("STRLEN", key)) for key in keys * 2))
            assert replies == [[b"%d" % n, len(str(n))] for n in range(40)] * 2
        finally:
            await client.delete(*keys)
            await client.aclose()

    asyncio.run(scenario())


def test_the_url_s_database_and_client_name_hold_on_round_trips(
    redis_url: str, redis_namespace: str
) -> None:
    """The handshake redis-py makes (SELECT, CLIENT SETNAME) is the round trip's too:
    a key written by round_trip is the one redis-py's own commands read."""
    async def scenario() -> None:
        base = redis_url.rsplit("/", 1)[0]
        client = connect(f"{base}/5?client_name=rt-probe")
        key = f"{redis_namespace}:rt-db"
        try:
            assert await round_trip(client, ("SET", key, "in 5"), ("CLIENT", "GETNAME")) == [
                b"OK", b"rt-probe"]
            assert await client.get(key) == b"in 5"
            info, = await round_trip(client, ("CLIENT", "INFO"))
            assert b" db=5 " in info and b" resp=3" in info
        finally:
            await round_trip(client, ("DEL", key))
            await client.aclose()
        wrong = connect(f"{base}/99")  # a database that does not exist: redis-py's error
        try:
            with pytest.raises(ResponseError, match="DB index is out of range"):
                await round_trip(wrong, ("PING",))
        finally:
            await wrong.aclose()

    asyncio.run(scenario())


def test_the_connection_of_a_cancelled_read_is_never_handed_to_the_next_caller(
    redis_url: str, redis_namespace: str
) -> None:
    """The next caller comes straight after the cancellation, before any late reply
    could arrive: on the cancelled connection, its commands would wait behind the
    blocked XREAD and then read the XREAD's nil as their own first reply."""
    async def scenario() -> None:
        client = connect(redis_url)
        stream, key = f"{redis_namespace}:rt-cancel-stream", f"{redis_namespace}:rt-cancel-key"
        try:
            await round_trip(client, ("SET", key, "kept"))
            blocked = asyncio.create_task(round_trip(
                client, ("XREAD", "COUNT", 10, "BLOCK", 2000, "STREAMS", stream, "0-0")))
            await asyncio.sleep(0.1)
            blocked.cancel()
            await asyncio.gather(blocked, return_exceptions=True)
            replies = await asyncio.wait_for(
                round_trip(client, ("XADD", stream, "1-0", "n", "1"), ("GET", key)), 1)
            assert replies == [b"1-0", b"kept"]
        finally:
            await client.delete(stream, key)
            await client.aclose()

    asyncio.run(scenario())


def test_credentials_from_the_url_are_sent_as_redis_py_sends_them(redis_url: str) -> None:
    """A user Redis does not know is refused on a round trip as by redis-py's own
    commands: the same exception, the same words (the machine's Redis is not
    reconfigured for a real password; a refusal shows the AUTH went out)."""
    async def scenario() -> None:
        host = redis_url.split("://", 1)[1].split("/", 1)[0].rsplit("@", 1)[-1]
        client = connect(f"redis://nobody-{uuid.uuid4().hex[:8]}:secret@{host}/0")
        try:
            with pytest.raises(AuthenticationError) as ours:
                await round_trip(client, ("PING",))
            with pytest.raises(AuthenticationError) as theirs:
                await client.ping()
            assert str(ours.value) == str(theirs.value)
        finally:
            await client.aclose()

    asyncio.run(scenario())
