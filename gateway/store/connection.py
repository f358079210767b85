"""The Redis client and the key builder every store module shares.

Keys live under a namespace (``ac`` by default; tests use one per test) and
keys that belong to one table share a hash tag, so a Redis Cluster keeps a
table on one slot: ``<ns>:t:{<table_id>}:state`` on a single Redis.

On a Redis Cluster (:func:`is_cluster_url`) the keys are laid out by slot
buckets (see docs/operations.md, "Redis Cluster"): each table belongs to one
of :data:`CLUSTER_BUCKETS` buckets chosen from its id (:meth:`Keys.bucket_of`),
and the hash tag of its keys is the bucket's, ``<ns>:t:{b07}:<table_id>:state``.
The global indexes (clock, house bots, public and open listings) are split
into one key per bucket (``<ns>:{b07}:clock``), so the commit script writes
the table and its index entries on one slot, and every worker scans every
bucket. A token's revocation mark is copied into every bucket
(:meth:`Keys.near_table`), so the commit script checks it on the table's slot.

A gateway worker's client (:func:`connect` with ``max_connections``) is
bounded, and a caller waits for its turn (up to ``pool_timeout_s``) rather than
failing: redis-py's ``BlockingConnectionPool`` on one Redis, a
:class:`BoundedCluster` on a cluster. Held waits take no connection while they
wait, so the bound does not depend on how many agents wait. Idle connections are
Redis's to close (its ``timeout`` directive, docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import zlib
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterPipeline, RedisCluster
from redis.asyncio.connection import BlockingConnectionPool
from redis.exceptions import (
    ClusterDownError,
    MovedError,
    RedisClusterException,
    RedisError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.typing import EncodableT

__all__ = [
    "CLUSTER_BUCKETS",
    "CLUSTER_SPARE_CONNECTIONS",
    "BoundedCluster",
    "Keys",
    "RedisClient",
    "RequestGate",
    "close_client",
    "connect",
    "decoded",
    "decoded_scores",
    "is_cluster_url",
    "round_trip",
    "stream_entries",
]

RedisClient = aioredis.Redis | RedisCluster
"""The asyncio client types (one Redis, or a Redis Cluster), for annotations outside the
store (which must not import redis)."""

CLUSTER_BUCKETS = 64
"""How many slot buckets tables and global indexes are spread over on a Redis Cluster.
Fixed: a table's bucket is part of its keys' names, so changing it strands every
table. 64 buckets spread evenly enough over up to ~16 primaries; every sweep and
listing reads each bucket once (pipelined per node)."""

CLUSTER_SPARE_CONNECTIONS = 2
"""Of a bounded cluster client's ``max_connections`` per node, the ones its requests
leave free: one for a pub/sub connection to a primary, and one for
redis-py's own layout discovery (``CLUSTER SLOTS``) and a connection being
recycled after a layout change."""

def is_cluster_url(url: str) -> bool:
    """True when ``url`` names a Redis Cluster (``redis+cluster://`` or ``rediss+cluster://``)."""
    return url.split("://", 1)[0].lower() in ("redis+cluster", "rediss+cluster")


class Keys:
    """Builds every Redis key of one namespace; ``cluster``: the slot-bucket layout of a
    Redis Cluster (see the module's docstring), else one Redis' layout."""

    def __init__(self, namespace: str, *, cluster: bool = False) -> None:
        self.namespace = namespace
        self.cluster = cluster

    @classmethod
    def for_url(cls, namespace: str, url: str) -> Keys:
        """The keys of ``namespace`` on the Redis ``url`` names (a cluster's layout for a
        ``redis+cluster://`` URL)."""
        return cls(namespace, cluster=is_cluster_url(url))

    def bucket_of(self, table_id: str) -> int:
        """The bucket of ``table_id`` (0 on one Redis: a single bucket)."""
        if not self.cluster:
            return 0
        return zlib.crc32(table_id.encode()) % CLUSTER_BUCKETS

    def buckets(self) -> range:
        """Every bucket, the ones a sweep or a listing reads."""
        return range(CLUSTER_BUCKETS if self.cluster else 1)

    def table(self, table_id: str, part: str) -> str:
        """A key of one table (``state``, ``events``, ``seen:<key>``, ...)."""
        if self.cluster:
            return f"{self.namespace}:t:{{b{self.bucket_of(table_id):02d}}}:{table_id}:{part}"
        return f"{self.namespace}:t:{{{table_id}}}:{part}"

    def global_(self, *parts: str) -> str:
        """A key outside any table (``creates:<agent>:<key>``, ``agent:<id>`` ...): one
        key, on whatever slot its name hashes to."""
        return ":".join((self.namespace, *parts))

    def indexed(self, bucket: int, *parts: str) -> str:
        """A bucket's share of a global index (``clock``, ``bots``, ``tables:open``...):
        on one Redis the one global key, on a cluster ``<ns>:{b07}:<parts>``, on the
        slot of that bucket's tables."""
        if not self.cluster:
            return self.global_(*parts)
        return ":".join((self.namespace, f"{{b{bucket:02d}}}", *parts))

    def near_table(self, table_id: str, key: str) -> str:
        """``key`` (a global key of this namespace, such as a revocation mark) as copied
        into ``table_id``'s bucket; ``key`` itself on one Redis."""
        return self.near_bucket(self.bucket_of(table_id), key)

    def near_bucket(self, bucket: int, key: str) -> str:
        """``key``'s copy in ``bucket`` (see :meth:`near_table`)."""
        return self.indexed(bucket, key.removeprefix(self.namespace + ":"))

    def bucket_copies(self, key: str) -> list[str]:
        """``key``'s copies in every bucket (none on one Redis: ``key`` itself serves)."""
        if not self.cluster:
            return []
        return [self.near_bucket(bucket, key) for bucket in self.buckets()]


def connect(
    url: str, *, cluster: bool = False, max_connections: int | None = None,
    pool_timeout_s: float = 10.0, client_name: str | None = None,
    socket_timeout_s: float | None = None,
) -> RedisClient:
    """An asyncio client for ``url`` (responses as bytes; callers decode): a
    ``RedisCluster`` when the URL names a cluster (:func:`is_cluster_url`) or ``cluster``.

    With ``max_connections`` (a gateway worker's client) it is bounded as the module's
    docstring tells; without it, redis-py's own pools. ``socket_timeout_s`` bounds
    connecting and every reply (``AGENTS_CLUB_REDIS_SOCKET_TIMEOUT_S`` says why); None
    (tools, tests, benches): no bound.
    """
    # An explicit None: redis-py 6+ would otherwise default to 5 s for the tools too.
    options: dict[str, Any] = {"socket_timeout": socket_timeout_s,
                               "socket_connect_timeout": socket_timeout_s,
                               "client_name": client_name}  # None: redis-py's default
    if cluster or is_cluster_url(url):
        scheme, rest = url.split("://", 1)
        plain = ("rediss" if scheme.lower().startswith("rediss") else "redis") + "://" + rest
        if max_connections is None:
            return RedisCluster.from_url(plain, **options)
        per_node = max(max_connections, CLUSTER_SPARE_CONNECTIONS + 1)
        return BoundedCluster.from_url(
            plain, max_connections=per_node,
            gate=RequestGate(per_node - CLUSTER_SPARE_CONNECTIONS, timeout=pool_timeout_s),
            **options)
    if max_connections is None:
        return aioredis.Redis.from_url(url, health_check_interval=30, **options)
    pool = BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=pool_timeout_s,
        health_check_interval=30, **options)
    return aioredis.Redis.from_pool(pool)  # the client owns it: aclose closes it


_IN_GATE: contextvars.ContextVar[bool] = contextvars.ContextVar("agents_club_in_gate",
                                                                default=False)
"""Whether the running task already holds a :class:`RequestGate` turn (a pipeline that
redis-py retries command by command, a round trip that learns the layout again)."""


class RequestGate:
    """At most ``size`` Redis operations of a worker at a time on a cluster: each holds
    at most one connection per node while it runs, so no node's pool grows past
    ``size`` (plus :data:`CLUSTER_SPARE_CONNECTIONS`, see :class:`BoundedCluster`).

    redis-py's cluster pool refuses a command past its ``max_connections``
    (``MaxConnectionsError``) rather than queueing it; the gate queues instead, as
    ``BlockingConnectionPool`` does on one Redis. A turn is re-entrant within a task.
    """

    def __init__(self, size: int, *, timeout: float = 10.0) -> None:
        self.timeout = timeout
        self.turns = asyncio.Semaphore(size)

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Hold a turn for the block.

        :raises redis.exceptions.ConnectionError: no turn came free within ``timeout``.
        """
        if _IN_GATE.get():
            yield
            return
        try:
            async with asyncio.timeout(self.timeout):
                await self.turns.acquire()
        except TimeoutError as waited_too_long:
            raise RedisConnectionError("No connection available.") from waited_too_long
        entered = _IN_GATE.set(True)
        try:
            yield
        finally:
            _IN_GATE.reset(entered)
            self.turns.release()


class BoundedCluster(RedisCluster):
    """redis-py's ``RedisCluster`` whose commands, pipelines and round trips (:func:`round_trip`)
    take a turn of its :class:`RequestGate` (``gate``), so each node's connections
    stay within its ``max_connections``: the gate's size plus
    :data:`CLUSTER_SPARE_CONNECTIONS`. Through public methods only: ``execute_command``
    (every command method ends there) and ``pipeline``.
    """

    def __init__(self, *args: Any, gate: RequestGate, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gate = gate

    async def execute_command(self, *args: EncodableT, **kwargs: Any) -> Any:
        async with self.gate.turn():
            return await super().execute_command(*args, **kwargs)

    def pipeline(self, transaction: Any | None = None, shard_hint: Any | None = None) -> ClusterPipeline:
        if shard_hint:
            raise RedisClusterException("shard_hint is deprecated in cluster mode")
        # redis-py's own pipeline() builds the same way (its class is not typed concrete)
        return GatedPipeline(self, transaction)  # type: ignore[abstract]


class GatedPipeline(ClusterPipeline):
    """A ``ClusterPipeline`` that holds a turn of its client's gate while it executes: it
    holds no connection before (nothing of the gateway watches a key: a read-modify-write
    is a script)."""

    def __init__(self, client: BoundedCluster, transaction: Any | None = None) -> None:
        super().__init__(client, transaction)
        self.gate = client.gate

    async def execute(self, raise_on_error: bool = True, allow_redirections: bool = True) -> list[Any]:
        async with self.gate.turn():
            return await super().execute(raise_on_error, allow_redirections)


async def close_client(client: RedisClient) -> None:
    """Close every connection ``client`` holds: what its owner calls at the end, rather
    than ``client.aclose()``.

    redis-py's ``RedisCluster.aclose()`` closes only a client it counts as initialised,
    and a command that met a connection error (a killed node, a failover) leaves it
    counting itself uninitialised (redis/redis-py#3846): the other nodes' connections
    would stay open until the collector finds them (a ``ResourceWarning``).
    ``initialize()`` first makes the close real (one ``CLUSTER SLOTS``); if no node
    answers, it closes them all itself before it raises.
    """
    if isinstance(client, RedisCluster):
        with contextlib.suppress(RedisError, OSError):
            await client.initialize()
    await client.aclose()


# Reply helpers. redis-py types a reply as what any client configuration could
# answer (``bytes | str``, RESP2 lists or RESP3 maps). The client of ``connect``
# answers without decoding (RESP3, redis-py 8's default), so replies are bytes; these
# narrow them once.


def decoded(raw: bytes | str) -> str:
    """A reply's bytes as text (a str, from a decoding client, passes through)."""
    return raw.decode() if isinstance(raw, bytes) else raw


async def round_trip(
    client: RedisClient, *commands: Sequence[EncodableT], key: str | None = None
) -> list[Any]:
    """Send ``commands`` in one write and read their raw replies: one round trip.

    A non-transactional pipeline without its response callbacks, for the
    requests every turn of every table makes (table reads, the commit, the
    held wait), on a connection of the client's own pool. Replies are as the
    connection's protocol sends them (RESP3 from :func:`connect`'s client):
    ``HGETALL`` a dict, ``XREAD`` a map (see :func:`stream_entries`).

    On a Redis Cluster every command must touch ``key``'s slot (say a table's
    bucket): they go on one connection to the primary serving that slot, so
    a ``WAIT`` among them waits for the writes before it. A ``MOVED`` reply
    (a slot that moved, a replica promoted) refreshes the client's view of the
    cluster and the whole round trip is sent again, as a dropped connection is.

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
    if isinstance(client, RedisCluster):
        if key is None:
            raise ValueError("a round trip on a Redis Cluster needs the key naming its slot")
        turn = client.gate.turn() if isinstance(client, BoundedCluster) else contextlib.nullcontext()
        async with turn:
            return await _cluster_round_trip(client, commands, key)
    pool = client.connection_pool
    for attempt in range(2):
        connection = await pool.get_connection()  # type: ignore[no-untyped-call]  # unannotated in redis-py
        try:
            return await _exchange(connection, commands)
        except (RedisConnectionError, RedisTimeoutError):
            if attempt:
                raise
        finally:
            await pool.release(connection)
    raise AssertionError("unreachable: the second attempt returns or raises")


async def _exchange(connection: Any, commands: Sequence[Sequence[EncodableT]]) -> list[Any]:
    """Send ``commands`` on ``connection`` in one write and read every reply; an error
    reply (read whole, so the rest follow) stands in its place as redis-py's exception."""
    await connection.send_packed_command(connection.pack_commands(commands))
    replies: list[Any] = []
    for _command in commands:
        try:
            replies.append(await connection.read_response())
        except ResponseError as error:
            replies.append(error)
    return replies


_CLUSTER_ATTEMPTS = 8
"""Round trips a cluster command is sent in before giving up: a failover takes about
two node timeouts, and each failed attempt waits a little longer (see below)."""


async def _cluster_round_trip(
    client: RedisCluster, commands: Sequence[Sequence[EncodableT]], key: str
) -> list[Any]:
    """:func:`round_trip` on the primary serving ``key``'s slot (see there)."""
    for attempt in range(_CLUSTER_ATTEMPTS):
        last = attempt == _CLUSTER_ATTEMPTS - 1
        await client.initialize()
        node = client.get_node_from_key(key)
        if node is None:
            raise RedisConnectionError(f"no node serves the slot of {key!r}")
        connection = node.acquire_connection()
        try:
            replies = await _exchange(connection, commands)
            moved = any(isinstance(reply, MovedError | ClusterDownError | TryAgainError)
                        for reply in replies)
            if not moved or last:
                return replies
        except (RedisConnectionError, RedisTimeoutError, OSError):
            await connection.disconnect()
            if last:
                raise
        except AttributeError:
            # During a failover another request's layout refresh disconnects the old
            # nodes' connections, this one included, between its connect and its send
            # (redis-py then finds no writer): a lost connection like any other.
            if connection.is_connected or last:
                raise
        finally:
            node.release(connection)
        # The slot moved or its node is gone: learn the cluster's layout again (a
        # replica may have been promoted meanwhile) and resend.
        await asyncio.sleep(0.1 * (attempt + 1))
        await client.nodes_manager.initialize()
    raise AssertionError("unreachable: the last attempt returns or raises")


def decoded_scores(reply: Iterable[Any]) -> dict[str, float]:
    """A sorted-set range read ``withscores=True``: each member as text -> its score, in order."""
    return {decoded(member): float(score) for member, score in reply}


def stream_entries(reply: Any) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """The entries of an ``XREAD`` reply, stream after stream, oldest first.

    redis-py's client answers ``[[stream, [(entry_id, {field: value}), ...]], ...]``.
    A raw reply (:func:`round_trip`) is RESP3's map ``{stream: [[entry_id,
    [field, value, ...]], ...]}``, each entry's fields a flat list. Either
    is nothing (None) when no entry came before the block ran out.
    """
    if reply is None:
        return []
    streams = list(reply.items()) if isinstance(reply, dict) else reply
    entries: list[tuple[bytes, dict[bytes, bytes]]] = []
    for _stream, stream in streams:
        for entry_id, fields in stream:
            if isinstance(fields, list):
                fields = dict(zip(fields[::2], fields[1::2], strict=True))
            entries.append((entry_id, fields))
    return entries
