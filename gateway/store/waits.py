"""The Redis side of held waits: one reader per worker, told of writes by keyspace notifications.

A held observation, a long-poll or an SSE stream used to sit in its own
blocking ``XREAD`` on its own connection, so Redis connections grew with
waiting agents. Now each worker has one :class:`KeyspaceReader`: a single
pub/sub connection subscribed to the keyspace channel
(``__keyspace@<db>__:<key>``) of every key one of its waiters watches. A write
to a watched key (an ``XADD`` to a table's stream, the ``SET`` that revokes a
token) arrives as a message, and the reader hands the key to ``on_change``
(:class:`gateway.services.waiters.Waiters` wakes the local waiters of that
key, which then read Redis again as usual). A wait is thus "read, wait for a
change, read": what a waiter is told always comes from a read, never from a
notification, so a lost or extra notification can delay an answer (until the
waiter's own time runs out) but never make it wrong or leak anything.

Why keyspace notifications rather than the alternatives:

* one ``XREAD BLOCK`` over many streams has to be interrupted (``CLIENT
  UNBLOCK``) each time a waiter brings a new stream, and on a Redis Cluster it
  is refused as soon as its streams sit in different slots (``CROSSSLOT``):
  it cannot multiplex tables at all there;
* explicit ``PUBLISH``/``SPUBLISH`` after each write would work too, but every
  writer of every stream (the commit script, and the tournaments' per-agent
  assignment streams) would have to remember to publish; a forgotten publish
  is a wait that never wakes. Keyspace notifications come from Redis itself
  for any key, so :meth:`KeyspaceReader.hold` waits on any stream (or string)
  key whoever writes it.

The price is a server setting: ``notify-keyspace-events`` must include ``K``
(keyspace channels), ``t`` (stream commands) and ``$`` (string commands, for
revocation marks). :meth:`KeyspaceReader.start` adds them to what is set
(``CONFIG SET``); where ``CONFIG`` is refused (some managed services) the
operator sets them, and until then :attr:`KeyspaceReader.notified` is False and
waiters fall back to reading again every second or so. Redis publishes a
notification only to subscribers of that channel: the cost for keys nobody
watches is a lookup per write.

No notification is lost unseen: a waiter's first read comes after Redis
confirmed the subscription (:meth:`hold` returns that confirmation), and every
confirmation, including the re-subscriptions after a reconnect, is handed to
``on_change`` as a change, so whoever waited across a gap reads again. After a
reconnect the flags are checked again (a restarted Redis forgets a ``CONFIG
SET``) and every waiter is woken once more.

A Redis that stops answering without closing the connection (stalled, or a
half-open connection after a network fault) is noticed by the reader's own
``PING`` every :data:`PING_INTERVAL_S`: when nothing came for two intervals the
reader connects again, backing off (:data:`RECONNECT_DELAY_S`), and its new
connection's handshake is bounded by the client's socket timeout.

Redis Cluster (issue 16): keyspace notifications are node-local (a node
publishes them only to its own subscribers), so the design extends as one
reader per primary node: each key is held on the node that serves its slot
(``keyslot(key)`` and the cluster's slot map), and a topology change
(``MOVED``, a failover) re-subscribes the affected keys on their new node,
whose confirmations wake their waiters to read again. Connections then grow
with workers times nodes, never with waiters. Sharded pub/sub (``SSUBSCRIBE``
with a publish in the commit script) would be the fallback where keyspace
notifications are not allowed. That per-node reader is not built yet: on a
cluster client :meth:`KeyspaceReader.start` opens no connection and leaves
:attr:`KeyspaceReader.notified` False, so held waits there read again every
second (:data:`gateway.services.waiters.UNNOTIFIED_POLL_S`), as where
``CONFIG`` is refused: a wake comes up to a second late, never wrong.

Subscriptions are reference-counted per key and linger (:data:`LINGER_S`)
after their last waiter leaves, so a bot that observes once per turn does not
subscribe and unsubscribe every turn; unused ones are dropped in batches.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from gateway.store.connection import RedisClient

__all__ = ["LINGER_S", "NOTIFY_FLAGS", "PING_INTERVAL_S", "KeyspaceReader", "enable_notifications"]

log = logging.getLogger(__name__)

NOTIFY_FLAGS = "Kt$"
"""The ``notify-keyspace-events`` flags waits need: keyspace channels, stream and string writes."""

LINGER_S = 30.0
"""How long a key stays subscribed after its last waiter left."""

PING_INTERVAL_S = 5.0
"""How often the reader pings Redis on its pub/sub connection (the gateway passes
``AGENTS_CLUB_REDIS_SOCKET_TIMEOUT_S``)."""

RECONNECT_DELAY_S = (0.1, 0.5, 1.0, 2.0, 5.0)
"""Back-off between attempts to re-open the reader's connection."""


async def enable_notifications(redis: aioredis.Redis) -> bool:
    """Add :data:`NOTIFY_FLAGS` to the server's ``notify-keyspace-events``, keeping what
    is set; True when they are on (already, or now), False when ``CONFIG`` is refused."""
    try:
        reply = await redis.config_get("notify-keyspace-events")
        current = "".join(
            value.decode() if isinstance(value, bytes) else str(value)
            for name, value in reply.items()
            if (name.decode() if isinstance(name, bytes) else name) == "notify-keyspace-events"
        )
        # 'A' stands for every class of command ("g$lshzxetd"), so it includes t and $.
        have = set(current.replace("A", "g$lshzxetd"))
        if set(NOTIFY_FLAGS) <= have:
            return True
        await redis.config_set("notify-keyspace-events", "".join(sorted(have | set(NOTIFY_FLAGS))))
    except ResponseError as refused:
        log.warning("keyspace notifications are off and CONFIG SET was refused (%s): held "
                    "waits read again every second; set notify-keyspace-events to include %s",
                    refused, NOTIFY_FLAGS)
        return False
    return True


class _Subscription:
    """One key's subscription: how many waiters hold it, and whether Redis confirmed it."""

    __slots__ = ("holders", "idle_since", "ready")

    def __init__(self) -> None:
        self.holders = 0
        self.idle_since = 0.0
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()


class KeyspaceReader:
    """This worker's one pub/sub connection, subscribed to the keys its waiters watch.

    ``on_change(key)`` is called (in the event loop, never concurrently) for each
    write to a held key, and for each (re-)confirmation of its subscription.
    Two tasks share the connection: the reader reads messages; the subscriber
    sends the (batched) ``SUBSCRIBE``/``UNSUBSCRIBE`` commands, so only one task
    writes and only one reads.
    """

    def __init__(
        self, redis: RedisClient, *, on_change: Callable[[str], None], sentinel: str,
        linger_s: float = LINGER_S, ping_interval_s: float = PING_INTERVAL_S,
    ) -> None:
        self.redis = redis
        self.single: aioredis.Redis | None = None if isinstance(redis, RedisCluster) else redis
        """The client the reader uses; None on a cluster (no reader there yet)."""
        self.on_change = on_change
        self.sentinel = sentinel
        """A channel always subscribed (a pub/sub connection reads only while subscribed)."""
        self.linger_s = linger_s
        self.ping_interval_s = ping_interval_s
        self._heard_at = 0.0  # when the current connection last brought anything (a PONG too)
        db = 0 if self.single is None else self.single.connection_pool.connection_kwargs.get("db", 0)
        self.prefix = f"__keyspace@{db}__:"
        self.notified = False
        """Whether Redis sends the notifications (False: waiters poll, see the module doc)."""
        self._subscriptions: dict[str, _Subscription] = {}
        self._to_send = asyncio.Event()
        self._sent: set[str] = set()  # keys whose SUBSCRIBE went on the current connection
        self._tasks: list[asyncio.Task[None]] = []
        self.reconnects = 0
        """How many times the connection was opened again (for tests and logs)."""
        self.connected = False
        """Whether the reader is subscribed on a connection now (False while it reconnects)."""
        self._connections = 0  # confirmed subscriptions of the sentinel so far
        self._config_check: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Turn notifications on (when allowed) and start reading. A Redis that does not
        answer now does not stop the worker: the reader asks again when it connects.
        On a Redis Cluster it does nothing: waiters poll (see the module doc)."""
        if self.single is None:
            self.notified = False
            return
        with contextlib.suppress(RedisError, OSError):
            self.notified = await enable_notifications(self.single)
        self._tasks = [asyncio.create_task(self._run(self.single), name="keyspace-reader")]

    async def aclose(self) -> None:
        """Stop reading and give the connection back to the pool."""
        if self._config_check is not None:
            self._tasks.append(self._config_check)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                await task
        self._tasks = []

    @property
    def held_keys(self) -> int:
        """How many keys are subscribed or lingering."""
        return len(self._subscriptions)

    def hold(self, key: str) -> asyncio.Future[None]:
        """Subscribe to writes of ``key`` (or keep its subscription); the future is done
        once Redis confirmed it, from when on no write of ``key`` goes unnoticed."""
        subscription = self._subscriptions.get(key)
        if subscription is None:
            subscription = self._subscriptions[key] = _Subscription()
            self._to_send.set()
        subscription.holders += 1
        return subscription.ready

    def release(self, key: str) -> None:
        """A waiter of ``key`` left; its subscription lingers, then goes."""
        subscription = self._subscriptions.get(key)
        if subscription is None:
            return
        subscription.holders -= 1
        if subscription.holders <= 0:
            subscription.idle_since = time.monotonic()

    # -- the two tasks -----------------------------------------------------------

    async def _run(self, redis: aioredis.Redis) -> None:
        """Open the connection, subscribe and read, again after every failure."""
        failures = 0
        while True:
            pubsub = redis.pubsub()
            tasks: list[asyncio.Task[None]] = []
            delay = RECONNECT_DELAY_S[min(failures, len(RECONNECT_DELAY_S) - 1)]
            try:
                await pubsub.subscribe(self.sentinel)  # connects: the sender must not race it
                self._heard_at = time.monotonic()
                self.connected = True
                failures = 0
                tasks = [asyncio.create_task(self._read(pubsub), name="keyspace-reader-read"),
                         asyncio.create_task(self._send(pubsub), name="keyspace-reader-send")]
                done, _pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    task.result()  # raises what ended it
            except (RedisError, OSError) as failure:
                failures += 1
                log.warning("keyspace reader lost its connection (%s); again in %.1f s",
                            failure, delay)
            finally:
                self.connected = False
                for task in tasks:
                    task.cancel()
                for task in tasks:
                    with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                        await task
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]  # unannotated in redis-py
                self._sent.clear()
                for subscription in self._subscriptions.values():
                    if subscription.ready.done():  # to be confirmed again on the next connection
                        subscription.ready = asyncio.get_running_loop().create_future()
            self.reconnects += 1
            await asyncio.sleep(delay)

    async def _read(self, pubsub: Any) -> None:
        while True:
            message = await pubsub.get_message(timeout=None)  # no socket timeout: see _send
            self._heard_at = time.monotonic()
            if message is not None:
                self._handle(message)

    async def _send(self, pubsub: Any) -> None:
        """Send what changed since the last batch: new keys, and keys that lingered out;
        and a ``PING`` every :attr:`ping_interval_s`.

        The read waits for messages without a timeout (a quiet connection is normal), so
        a Redis that stops answering (a stalled server, a half-open connection) would
        hold it for ever: when nothing, not even the last ``PONG``, came for two ping
        intervals, this raises and :meth:`_run` connects again (backing off).

        :raises redis.exceptions.TimeoutError: Redis went silent.
        """
        now = time.monotonic()
        next_sweep = now + self.linger_s
        next_ping = now + self.ping_interval_s
        self._to_send.set()  # a new connection: every held key is to subscribe
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, min(next_sweep, next_ping) - time.monotonic())):
                    await self._to_send.wait()
            self._to_send.clear()
            now = time.monotonic()
            if now >= next_ping:
                silent_s = now - self._heard_at
                if silent_s >= 2 * self.ping_interval_s:
                    raise RedisTimeoutError(f"Redis sent nothing for {silent_s:.1f} s, not "
                                            "even a PONG")
                await pubsub.ping()
                next_ping = now + self.ping_interval_s
            if now >= next_sweep:
                next_sweep = now + self.linger_s / 2
                gone = [key for key, subscription in self._subscriptions.items()
                        if subscription.holders <= 0 and now - subscription.idle_since >= self.linger_s]
                for key in gone:
                    del self._subscriptions[key]
                gone = [key for key in gone if key in self._sent]
                if gone:
                    self._sent.difference_update(gone)
                    await pubsub.unsubscribe(*(self.prefix + key for key in gone))
            new = [key for key in self._subscriptions if key not in self._sent]
            if new:
                self._sent.update(new)
                await pubsub.subscribe(*(self.prefix + key for key in new))

    async def _after_reconnect(self) -> None:
        """Turn notifications on again (a restarted Redis forgot them), then wake every
        waiter: a write made while they were off went unnoticed."""
        if self.single is None:
            return
        with contextlib.suppress(RedisError, OSError):
            self.notified = await enable_notifications(self.single)
        if self._connections:
            for key in list(self._subscriptions):
                self.on_change(key)
        self._connections += 1

    def _handle(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind not in ("message", "subscribe"):
            return
        channel = message["channel"]
        channel = channel.decode() if isinstance(channel, bytes) else str(channel)
        if channel == self.sentinel:
            if kind == "subscribe":  # (re)connected: Redis may have restarted without the flags
                self._config_check = asyncio.create_task(self._after_reconnect())
            return
        if not channel.startswith(self.prefix):
            return
        key = channel[len(self.prefix):]
        subscription = self._subscriptions.get(key)
        if subscription is None:
            return
        if kind == "subscribe" and not subscription.ready.done():
            subscription.ready.set_result(None)
        self.on_change(key)
