"""The Redis client and the key builder every store module shares.

Keys live under a namespace (``ac`` by default; tests use one per test) and
keys that belong to one table share a hash tag, so a Redis Cluster keeps a
table on one slot: ``<ns>:t:{<table_id>}:state``.

:func:`round_trip`, the path of every table read, commit and held wait, sends
several commands in one write on a connection of redis-py's pool and reads
their raw replies.

A gateway worker's client (:func:`connect` with ``max_connections``) is
bounded: a :class:`BoundedPool` of at most that many connections,
shared by every request, background loop and the worker's one keyspace
reader (:mod:`gateway.store.waits`); a caller waits for a free connection (up
to ``pool_timeout_s``) rather than failing, and connections left idle longer
than ``AGENTS_CLUB_REDIS_IDLE_TIMEOUT_S`` are closed. Held waits take no connection at all while
they wait, so the pool's size does not depend on how many agents wait.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.typing import EncodableT

__all__ = [
    "BoundedPool",
    "Keys",
    "RedisClient",
    "connect",
    "decoded",
    "decoded_members",
    "decoded_scores",
    "round_trip",
    "run_idle_closer",
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


def connect(
    url: str, *, max_connections: int | None = None, pool_timeout_s: float = 10.0,
    client_name: str | None = None,
) -> aioredis.Redis:
    """An asyncio Redis client for ``url`` (responses as bytes; callers decode).

    With ``max_connections`` (a gateway worker's client) it holds at most that
    many connections (a :class:`BoundedPool`: a caller waits up to
    ``pool_timeout_s`` for a free one), each named ``client_name`` in ``CLIENT
    LIST``; :func:`round_trip` goes through that pool too. Without it, redis-py's
    own unbounded pool (tools, tests and benches).
    """
    if max_connections is not None:
        pool = BoundedPool.from_url(
            url, max_connections=max_connections, timeout=pool_timeout_s,
            health_check_interval=30, socket_timeout=None, client_name=client_name)
        return aioredis.Redis.from_pool(pool)  # the client owns it: aclose closes it
    # socket_timeout=None: redis-py 6+ defaults to 5 s, which breaks every blocking XREAD
    # (long-poll waits up to long_poll_max_wait_s, SSE blocks 15 s between keep-alives).
    return aioredis.Redis.from_url(url, health_check_interval=30, socket_timeout=None)


class BoundedPool(ConnectionPool):
    """redis-py's pool, holding at most ``max_connections``: a caller waits (up to
    ``timeout`` seconds) for a free one rather than failing, and the connections left
    idle too long are closed.

    The wait is a semaphore in front of redis-py's plain pool rather than its
    ``BlockingConnectionPool``, whose ``release`` holds a pool-wide condition
    lock across awaits: under load the releases and the waiting callers then
    queue on that lock, and each round trip held its connection longer.
    Connections are handed out last-released first, so under a steady load
    the same few stay busy and the rest sit idle: :meth:`close_idle` closes
    those (a closed one stays in the pool and connects again when it is next
    handed out), so a burst does not leave its connections open for good.
    """

    def __init__(self, *args: Any, timeout: float = 10.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timeout = timeout
        self.slots = asyncio.Semaphore(self.max_connections)
        """One per connection that may be handed out."""
        self.handed_out: weakref.WeakSet[AbstractConnection] = weakref.WeakSet()
        self.released_at: weakref.WeakKeyDictionary[AbstractConnection, float] = (
            weakref.WeakKeyDictionary())
        """When each idle connection came back (none for the ones in use)."""

    async def get_connection(self, command_name: Any = None, *keys: Any, **options: Any) -> Any:
        """A connection, waiting up to ``timeout`` for a free one.

        :raises redis.exceptions.ConnectionError: none came free in time.
        """
        try:
            async with asyncio.timeout(self.timeout):
                await self.slots.acquire()
        except TimeoutError as waited_too_long:
            raise RedisConnectionError("No connection available.") from waited_too_long
        try:
            connection = await super().get_connection()  # type: ignore[no-untyped-call]
        except BaseException:
            self.slots.release()
            raise
        self.handed_out.add(connection)
        self.released_at.pop(connection, None)
        return connection

    async def release(self, connection: AbstractConnection) -> None:
        """Take ``connection`` back, note when, and free its slot."""
        try:
            await super().release(connection)
        finally:
            if connection in self.handed_out:
                self.handed_out.discard(connection)
                self.slots.release()
        self.released_at[connection] = time.monotonic()

    async def close_idle(self, idle_s: float) -> int:
        """Close the connections idle for ``idle_s`` or longer; how many it closed.

        The check and the close happen without yielding to the event loop in
        between (``disconnect(nowait=True)`` closes before its first await), so a
        connection handed out meanwhile is never the one closed.
        """
        now = time.monotonic()
        closed = 0
        for connection, since in list(self.released_at.items()):
            if now - since < idle_s or self.released_at.get(connection) != since:
                continue
            del self.released_at[connection]
            if connection.is_connected:
                closed += 1
                await connection.disconnect(nowait=True)
        return closed


async def run_idle_closer(client: RedisClient, idle_s: float) -> None:
    """Close ``client``'s idle connections (:meth:`BoundedPool.close_idle`) for ever,
    checking a few times per ``idle_s``; nothing to do for another kind of pool."""
    pool = client.connection_pool
    if not isinstance(pool, BoundedPool):
        return
    while True:
        await asyncio.sleep(max(0.05, idle_s / 4))
        await pool.close_idle(idle_s)


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
