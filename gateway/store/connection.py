"""The Redis client and the key builder every store module shares.

Keys live under a namespace (``ac`` by default; tests use one per test) and
keys that belong to one table share a hash tag, so a Redis Cluster keeps a
table on one slot: ``<ns>:t:{<table_id>}:state``.

:func:`round_trip`, the path of every table read, commit and held wait, sends
several commands in one write on a connection of redis-py's pool and reads
their raw replies.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.typing import EncodableT

__all__ = [
    "Keys",
    "RedisClient",
    "connect",
    "decoded",
    "decoded_members",
    "decoded_scores",
    "round_trip",
    "stream_entries",
]

RedisClient = aioredis.Redis
"""The asyncio client type, for annotations outside the store (which must not import redis)."""


class Keys:
    """Builds every Redis key of one namespace."""

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace

    def table(self, table_id: str, part: str) -> str:
        """A key of one table (``state``, ``events``, ``seen:<key>``, ...)."""
        return f"{self.namespace}:t:{{{table_id}}}:{part}"

    def global_(self, *parts: str) -> str:
        """A key outside any table (``tables:open``, ``clock``, ``agent:<id>`` ...)."""
        return ":".join((self.namespace, *parts))


def connect(url: str) -> aioredis.Redis:
    """An asyncio Redis client for ``url`` (responses as bytes; callers decode)."""
    # socket_timeout=None: redis-py 6+ defaults to 5 s, which breaks every blocking XREAD
    # (long-poll waits up to long_poll_max_wait_s, SSE blocks 15 s between keep-alives).
    return aioredis.Redis.from_url(url, health_check_interval=30, socket_timeout=None)


# Reply helpers. redis-py types a reply as what any client configuration could
# answer (``bytes | str``, RESP2 lists or RESP3 maps). The client of ``connect``
# answers without decoding (RESP3, redis-py 8's default), so replies are bytes; these
# narrow them once.


def decoded(raw: bytes | str) -> str:
    """A reply's bytes as text (a str, from a decoding client, passes through)."""
    return raw.decode() if isinstance(raw, bytes) else raw


async def round_trip(client: RedisClient, *commands: Sequence[EncodableT]) -> list[Any]:
    """Send ``commands`` in one write and read their raw replies: one round trip.

    A non-transactional pipeline without its response callbacks, for the
    requests every turn of every table makes (table reads, the commit, the
    held wait), on a connection of the client's own pool. Replies are as the
    connection's protocol sends them (RESP3 from :func:`connect`'s client):
    ``HGETALL`` a dict, ``XREAD`` a map (see :func:`stream_entries`).

    An error reply (say ``NOSCRIPT``) comes back as the exception redis-py
    raises for it (``NoScriptError``), in its place, and the other replies
    are still read. An error of the connection kind (``NOAUTH``, a dropped
    connection) is retried once on a fresh connection, as redis-py's client
    retries: a commit that had applied before its connection broke then
    meets its own new version (a stale version) or its idempotency record
    (the stored answer), never a double write. redis-py disconnects a
    connection whose read was interrupted (a cancelled blocked ``XREAD``),
    so no late reply reaches the next caller.
    """
    if not commands:
        return []
    pool = client.connection_pool
    for attempt in range(2):
        connection = await pool.get_connection()  # type: ignore[no-untyped-call]  # unannotated in redis-py
        try:
            await connection.send_packed_command(connection.pack_commands(commands))
            replies: list[Any] = []
            for _command in commands:
                try:
                    replies.append(await connection.read_response())
                except ResponseError as error:  # that reply was read whole: the rest follow
                    replies.append(error)
            return replies
        except (RedisConnectionError, RedisTimeoutError):
            if attempt:
                raise
        finally:
            await pool.release(connection)
    raise AssertionError("unreachable: the second attempt returns or raises")


def _member(raw: object) -> str:
    if isinstance(raw, bytes | str):
        return decoded(raw)
    raise TypeError(f"expected a sorted-set member, got {type(raw).__name__}")


def decoded_members(reply: Iterable[object]) -> list[str]:
    """The members of a sorted-set range read without scores, as text, in order."""
    return [_member(raw) for raw in reply]


def decoded_scores(reply: Iterable[object]) -> dict[str, float]:
    """A sorted-set range read ``withscores=True``: each member as text -> its score, in order."""
    scores: dict[str, float] = {}
    for row in reply:
        if not isinstance(row, tuple | list):
            raise TypeError(f"expected a (member, score) pair, got {type(row).__name__}")
        member, score = row
        scores[_member(member)] = float(score)
    return scores


def stream_entries(reply: object) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """The entries of an ``XREAD`` reply, stream after stream, oldest first.

    redis-py's client answers ``[[stream, [(entry_id, {field: value}), ...]], ...]``.
    A raw reply (:func:`round_trip`) is RESP3's map ``{stream: [[entry_id,
    [field, value, ...]], ...]}``, each entry's fields a flat list. Either
    is nothing (None) when no entry came before the block ran out.
    """
    if reply is None:
        return []
    if isinstance(reply, dict):
        streams = list(reply.items())
    elif isinstance(reply, list):
        streams = reply
    else:
        raise TypeError(f"expected an XREAD reply, got {type(reply).__name__}")
    entries: list[tuple[bytes, dict[bytes, bytes]]] = []
    for _stream, stream in streams:
        for entry_id, fields in stream:
            if isinstance(fields, list):
                fields = dict(zip(fields[::2], fields[1::2], strict=True))
            entries.append((entry_id, fields))
    return entries
