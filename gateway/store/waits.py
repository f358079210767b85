"""The Redis side of held waits: one reader per worker, told of writes by keyspace notifications.

A held observation, a long-poll or an SSE stream used to sit in its own
blocking ``XREAD`` on its own connection, so Redis connections grew with
waiting agents. Now each worker has one :class:`KeyspaceReader`, subscribed to
the keyspace channel (``__keyspace@<db>__:<key>``) of every key one of its
waiters watches. A write to a watched key (an ``XADD`` to a table's stream,
the ``SET`` that revokes a token) arrives as a message, and the reader hands
the key to ``on_change`` (:class:`gateway.services.waiters.Waiters` wakes the
local waiters of that key, which then read Redis again as usual). A wait is
thus "read, wait for a change, read": what a waiter is told always comes from
a read, never from a notification, so a lost or extra notification can delay
an answer (until the waiter's own time runs out) but never make it wrong or
leak anything.

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
revocation marks). The reader adds them to what is set (``CONFIG SET``, on
every node of a cluster); where ``CONFIG`` is refused (some managed services)
the operator sets them, and until then :attr:`KeyspaceReader.notified` is
False and waiters fall back to reading again every second or so. Redis
publishes a notification only to subscribers of that channel: the cost for
keys nobody watches is a lookup per write.

No notification is lost unseen: a waiter's first read comes after Redis
confirmed the subscription (:meth:`KeyspaceReader.hold` returns that
confirmation), and every confirmation, including the re-subscriptions after a
reconnect or after a key's slot moved to another node, is handed to
``on_change`` as a change, so whoever waited across a gap reads again. After a
reconnect the flags are checked again (a restarted Redis forgets a ``CONFIG
SET``) and every waiter of that connection is woken once more.

A Redis that stops answering without closing the connection (stalled, or a
half-open connection after a network fault) is noticed by the reader's own
``PING`` every :data:`PING_INTERVAL_S` on each connection: when nothing came
for two intervals, or the connection's first subscription is still unconfirmed
after two intervals (its ``SUBSCRIBE`` was lost while the ``PING``s are
answered), the reader connects again, backing off (:data:`RECONNECT_DELAY_S`),
and its new connection's handshake is bounded by the client's socket timeout.

**Redis Cluster.** Keyspace notifications are node-local: a node publishes
them only to its own subscribers, for the keys of its own slots. So the reader
keeps one pub/sub connection per primary (a :class:`_Link`, opened with
redis-py's ``RedisCluster.pubsub(node=...)`` on a connection of that node's
pool), and subscribes each key on the primary serving its slot
(``get_node_from_key``). The primaries are learnt from the cluster client
(``get_primaries()``) at the start and again whenever a link's connection
fails (a killed node, a failover: the layout is read again from the cluster,
the dead primary's link is closed, the promoted replica gets one) and every
:data:`TOPOLOGY_CHECK_S` from the client's own slot map (which every ``MOVED``
a request meets refreshes), so a key whose slot moved is subscribed on its new
node, and that confirmation wakes its waiters to read again. Connections then
grow with workers times primaries, never with waiters.

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
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.exceptions import RedisClusterException, RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from gateway.store.connection import RedisClient

__all__ = [
    "LINGER_S",
    "NOTIFY_FLAGS",
    "PING_INTERVAL_S",
    "TOPOLOGY_CHECK_S",
    "KeyspaceReader",
    "enable_notifications",
]

log = logging.getLogger(__name__)

NOTIFY_FLAGS = "Kt$"
"""The ``notify-keyspace-events`` flags waits need: keyspace channels, stream and string writes."""

LINGER_S = 30.0
"""How long a key stays subscribed after its last waiter left."""

PING_INTERVAL_S = 5.0
"""How often the reader pings Redis on each pub/sub connection (the gateway passes
``AGENTS_CLUB_REDIS_SOCKET_TIMEOUT_S``)."""

RECONNECT_DELAY_S = (0.1, 0.5, 1.0, 2.0, 5.0)
"""Back-off between attempts to re-open a link's connection."""

TOPOLOGY_CHECK_S = 2.0
"""On a cluster, how often the held keys are checked against the client's slot map."""

SINGLE = ""
"""The name of the one link on a single Redis."""


async def enable_notifications(redis: RedisClient, node: ClusterNode | None = None) -> bool:
    """Add :data:`NOTIFY_FLAGS` to the server's ``notify-keyspace-events`` (``node``'s,
    on a cluster), keeping what is set; True when they are on (already, or now),
    False when ``CONFIG`` is refused."""
    async def config_get() -> Any:
        if isinstance(redis, RedisCluster):
            return await redis.config_get("notify-keyspace-events", target_nodes=node)
        return await redis.config_get("notify-keyspace-events")

    try:
        reply = await config_get()
        current = "".join(
            value.decode() if isinstance(value, bytes) else str(value)
            for name, value in reply.items()
            if (name.decode() if isinstance(name, bytes) else name) == "notify-keyspace-events"
        )
        # 'A' stands for every class of command ("g$lshzxetd"), so it includes t and $.
        have = set(current.replace("A", "g$lshzxetd"))
        if set(NOTIFY_FLAGS) <= have:
            return True
        flags = "".join(sorted(have | set(NOTIFY_FLAGS)))
        if isinstance(redis, RedisCluster):
            await redis.config_set("notify-keyspace-events", flags, target_nodes=node)
        else:
            await redis.config_set("notify-keyspace-events", flags)
    except ResponseError as refused:
        log.warning("keyspace notifications are off and CONFIG SET was refused (%s): held "
                    "waits read again every second; set notify-keyspace-events to include %s",
                    refused, NOTIFY_FLAGS)
        return False
    return True


class _Subscription:
    """One key's subscription: how many waiters hold it, whether Redis confirmed it, and
    its mark (see :meth:`KeyspaceReader.mark`): a serial, new whenever writes could have
    gone unheard since, and the changes handed to ``on_change`` under that serial."""

    __slots__ = ("changes", "holders", "idle_since", "ready", "serial")

    def __init__(self, serial: int) -> None:
        self.holders = 0
        self.idle_since = 0.0
        self.serial = serial
        self.changes = 0
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()


class _Link:
    """One pub/sub connection of the reader: to the one Redis, or to one primary.

    Two tasks share its connection: the reader reads messages; the sender sends
    the (batched) ``SUBSCRIBE``/``UNSUBSCRIBE`` commands, so only one task writes
    and only one reads. ``to_subscribe`` and ``to_unsubscribe`` are what the sender
    sends next; ``sent`` what went on the current connection.
    """

    def __init__(self, name: str, node: ClusterNode | None) -> None:
        self.name = name
        self.node = node
        self.to_subscribe: set[str] = set()
        self.to_unsubscribe: set[str] = set()
        self.sent: set[str] = set()
        self.wake = asyncio.Event()
        self.notified = False
        self.up = False
        """Whether the connection is open and its sentinel subscription confirmed."""
        self.connections = 0
        """Confirmed subscriptions of the sentinel so far (one per connection opened)."""
        self.heard_at = 0.0
        """When the current connection last brought anything (a ``PONG`` too)."""
        self.task: asyncio.Task[None] | None = None

    def served(self) -> set[str]:
        """The keys this link serves (subscribed, or to be)."""
        return (self.sent | self.to_subscribe) - self.to_unsubscribe

    def add(self, key: str) -> None:
        self.to_unsubscribe.discard(key)
        if key not in self.sent:
            self.to_subscribe.add(key)
        self.wake.set()

    def drop(self, key: str) -> None:
        self.to_subscribe.discard(key)
        if key in self.sent:
            self.to_unsubscribe.add(key)
            self.wake.set()


class KeyspaceReader:
    """This worker's pub/sub connections (one, or one per cluster primary), subscribed
    to the keys its waiters watch.

    ``on_change(key)`` is called (in the event loop, never concurrently) for each
    write to a held key, and for each (re-)confirmation of its subscription.
    """

    def __init__(
        self, redis: RedisClient, *, on_change: Callable[[str], None], sentinel: str,
        linger_s: float = LINGER_S, topology_check_s: float = TOPOLOGY_CHECK_S,
        ping_interval_s: float = PING_INTERVAL_S,
    ) -> None:
        self.redis = redis
        self.cluster: RedisCluster | None = redis if isinstance(redis, RedisCluster) else None
        self.on_change = on_change
        self.sentinel = sentinel
        """A channel always subscribed (a pub/sub connection reads only while subscribed)."""
        self.linger_s = linger_s
        self.topology_check_s = topology_check_s
        self.ping_interval_s = ping_interval_s
        db = redis.connection_pool.connection_kwargs.get("db", 0) if isinstance(
            redis, aioredis.Redis) else 0
        self.prefix = f"__keyspace@{db}__:"
        self._subscriptions: dict[str, _Subscription] = {}
        self._links: dict[str, _Link] = {}
        self._owner: dict[str, str] = {}  # key -> the name of the link serving it
        self._tasks: list[asyncio.Task[None]] = []
        self._checks: set[asyncio.Task[None]] = set()  # flag checks after a (re)connect
        self._failed = asyncio.Event()  # a link lost its connection: learn the layout again
        self._serials = 0  # the last serial given to a subscription
        self.reconnects = 0
        """How many times a connection was opened again (for tests and logs)."""

    @property
    def notified(self) -> bool:
        """Whether the Redis of every link sends the notifications (False: waiters re-read
        every second, the safety net where ``CONFIG`` is refused and while a link to a
        newly found primary is being opened; see the module doc)."""
        return bool(self._links) and all(link.notified for link in self._links.values())

    @property
    def connected(self) -> bool:
        """Whether every link is subscribed on a connection now (False while one
        reconnects)."""
        return bool(self._links) and all(link.up for link in self._links.values())

    @property
    def links(self) -> dict[str, bool]:
        """Each link's name (``host:port`` of a primary; ``""`` on one Redis) -> whether
        its connection is up."""
        return {name: link.up for name, link in self._links.items()}

    async def start(self) -> None:
        """Turn notifications on (when allowed) and start reading. A Redis that does not
        answer now does not stop the worker: the reader asks again when it connects."""
        if self.cluster is None:
            link = self._links[SINGLE] = _Link(SINGLE, None)
            with contextlib.suppress(RedisError, OSError):
                link.notified = await enable_notifications(self.redis)
            link.task = asyncio.create_task(self._run(link), name="keyspace-reader")
            self._tasks = [asyncio.create_task(self._sweep(), name="keyspace-reader-sweep")]
            return
        enabled: dict[str, bool] = {}
        with contextlib.suppress(RedisError, RedisClusterException, OSError):
            await self.cluster.initialize()
            # Replicas too: a replica promoted by a failover then sends at once.
            for node in self.cluster.get_nodes():
                with contextlib.suppress(RedisError, OSError):
                    enabled[node.name] = await enable_notifications(self.cluster, node)
        with contextlib.suppress(RedisError, RedisClusterException, OSError):
            await self._follow_topology(refresh=False)
        for name, link in self._links.items():
            link.notified = enabled.get(name, False)
        self._tasks = [asyncio.create_task(self._sweep(), name="keyspace-reader-sweep"),
                       asyncio.create_task(self._watch_topology(), name="keyspace-reader-topology")]

    async def aclose(self) -> None:
        """Stop reading and give the connections back."""
        tasks = [*self._tasks, *self._checks,
                 *(link.task for link in self._links.values() if link.task is not None)]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                await task
        self._tasks = []
        self._links.clear()

    @property
    def held_keys(self) -> int:
        """How many keys are subscribed or lingering."""
        return len(self._subscriptions)

    def hold(self, key: str) -> asyncio.Future[None]:
        """Subscribe to writes of ``key`` (or keep its subscription); the future is done
        once Redis confirmed it, from when on no write of ``key`` goes unnoticed."""
        subscription = self._subscriptions.get(key)
        if subscription is None:
            subscription = self._subscriptions[key] = _Subscription(self._next_serial())
            self._route(key)
        subscription.holders += 1
        return subscription.ready

    def mark(self, key: str) -> tuple[int, int] | None:
        """Where ``key`` stands: its subscription's serial and the changes handed to
        ``on_change`` since it was given. The serial is new whenever a write could have
        gone unheard (a new subscription, a reconnect, the key moved to another node);
        ``None`` while one could now (not subscribed or not confirmed, notifications off).

        So a caller that marks a key *before* it sends a command, and later finds the
        same serial and its changes grown only by the writes of that command, knows that
        any other write Redis ran after the command is still to be handed to
        ``on_change``: a watch that starts now hears of it (notifications of one
        connection come in the order Redis ran the writes)."""
        subscription = self._subscriptions.get(key)
        if subscription is None or not subscription.ready.done() or not self.notified:
            return None
        return subscription.serial, subscription.changes

    def _next_serial(self) -> int:
        self._serials += 1
        return self._serials

    def release(self, key: str) -> None:
        """A waiter of ``key`` left; its subscription lingers, then goes."""
        subscription = self._subscriptions.get(key)
        if subscription is None:
            return
        subscription.holders -= 1
        if subscription.holders <= 0:
            subscription.idle_since = time.monotonic()

    # -- where each key is subscribed ---------------------------------------------

    def _node_of(self, key: str) -> str | None:
        """The name of the link that should serve ``key`` (None: not known now)."""
        if self.cluster is None:
            return SINGLE
        try:
            node = self.cluster.get_node_from_key(key)
        except (RedisError, RedisClusterException):  # no slot map yet, or the slot unserved
            return None
        return None if node is None else node.name

    def _route(self, key: str) -> None:
        """Have ``key`` subscribed on the link of the node serving it (and only there)."""
        name = self._node_of(key)
        current = self._owner.get(key)
        if current == name and name is not None:
            return
        if current is not None and current in self._links:
            self._links[current].drop(key)
        subscription = self._subscriptions.get(key)
        if current is not None and subscription is not None:  # moving: writes may go unheard
            subscription.serial = self._next_serial()
        if name is None or name not in self._links:
            self._owner.pop(key, None)
            self._failed.set()  # unknown node: learn the layout
            return
        self._owner[key] = name
        self._links[name].add(key)

    async def _follow_topology(self, *, refresh: bool) -> None:
        """Have one link per primary and every held key on its primary's link;
        ``refresh``: read the layout from the cluster first."""
        assert self.cluster is not None
        if refresh:
            await self.cluster.nodes_manager.initialize()
        primaries = {node.name: node for node in self.cluster.get_primaries()}
        for name in [name for name in self._links if name not in primaries]:
            gone = self._links.pop(name)
            if gone.task is not None:
                gone.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                    await gone.task
        for name, node in primaries.items():
            link = self._links.get(name)
            if link is None:
                link = self._links[name] = _Link(name, node)
                link.task = asyncio.create_task(self._run(link), name=f"keyspace-reader-{name}")
            else:
                link.node = node  # the client's current object for that node
        for key in list(self._subscriptions):
            self._route(key)

    async def _watch_topology(self) -> None:
        """Follow the cluster's primaries: at once (with a fresh layout) after a link
        failed, else every ``topology_check_s`` from the client's slot map."""
        failures = 0
        while True:
            failed = False
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.topology_check_s):
                    await self._failed.wait()
                    failed = True
            self._failed.clear()
            try:
                # Refresh too while a link is down or none exists (the cluster did not
                # answer at the start): the client's own layout may be stale or empty.
                await self._follow_topology(refresh=failed or not self.connected)
                failures = 0
            except (RedisError, RedisClusterException, OSError) as failure:
                failures += 1
                log.warning("keyspace reader could not learn the cluster's layout (%s)", failure)
                await asyncio.sleep(RECONNECT_DELAY_S[min(failures, len(RECONNECT_DELAY_S) - 1)])
                self._failed.set()

    # -- each link's tasks --------------------------------------------------------

    def _pubsub(self, link: _Link) -> Any:
        if self.cluster is not None:
            # A node the client no longer knows (a dead primary, dropped at the last
            # layout refresh) would make redis-py's ClusterPubSub raise half-built, and
            # its __del__ then fails on the missing connection: ask first.
            node = self.cluster.get_node(node_name=link.name)
            if node is None:
                raise RedisClusterException(f"{link.name} left the cluster")
            link.node = node
            return self.cluster.pubsub(node=node)
        assert isinstance(self.redis, aioredis.Redis)
        return self.redis.pubsub()

    async def _run(self, link: _Link) -> None:
        """Open the link's connection, subscribe and read, again after every failure."""
        failures = 0
        while True:
            tasks: list[asyncio.Task[None]] = []
            delay = RECONNECT_DELAY_S[min(failures, len(RECONNECT_DELAY_S) - 1)]
            pubsub = None
            try:
                pubsub = self._pubsub(link)
                await pubsub.subscribe(self.sentinel)  # connects: the sender must not race it
                link.heard_at = time.monotonic()
                failures = 0
                tasks = [asyncio.create_task(self._read(link, pubsub), name="keyspace-reader-read"),
                         asyncio.create_task(self._send(link, pubsub), name="keyspace-reader-send")]
                done, _pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    task.result()  # raises what ended it
            except (RedisError, RedisClusterException, OSError) as failure:
                failures += 1
                log.warning("keyspace reader lost its connection%s (%s); again in %.1f s",
                            f" to {link.name}" if link.name else "", failure, delay)
                if self.cluster is not None:
                    self._failed.set()
            finally:
                link.up = False
                for task in tasks:
                    task.cancel()
                for task in tasks:
                    with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                        await task
                if pubsub is not None:
                    with contextlib.suppress(RedisError, OSError):
                        await pubsub.aclose()
                # Everything is to be subscribed (and confirmed) again on the next connection.
                link.to_subscribe = link.served()
                link.to_unsubscribe.clear()
                link.sent.clear()
                for key in link.to_subscribe:
                    subscription = self._subscriptions.get(key)
                    if subscription is not None:
                        subscription.serial = self._next_serial()  # writes went unheard
                        if subscription.ready.done():
                            subscription.ready = asyncio.get_running_loop().create_future()
            self.reconnects += 1
            await asyncio.sleep(delay)

    async def _read(self, link: _Link, pubsub: Any) -> None:
        while True:
            message = await pubsub.get_message(timeout=None)  # no socket timeout: see _send
            link.heard_at = time.monotonic()
            if message is not None:
                self._handle(link, message)

    async def _send(self, link: _Link, pubsub: Any) -> None:
        """Send what changed since the last batch: new keys, and keys that went; and a
        ``PING`` every :attr:`ping_interval_s`.

        The read waits for messages without a timeout (a quiet connection is normal), so
        a Redis that stops answering (a stalled server, a half-open connection) would
        hold it for ever: when nothing, not even the last ``PONG``, came for two ping
        intervals, this raises and :meth:`_run` connects again (backing off). The same
        when the sentinel's subscription is still unconfirmed after two ping intervals
        on a connection that answers: its ``SUBSCRIBE`` was lost (a Redis that dropped
        what it was sent while it stalled), and the link would never be up.

        :raises redis.exceptions.TimeoutError: Redis went silent, or never confirmed.
        """
        link.wake.set()  # a new connection: every key of the link is to subscribe
        opened = time.monotonic()
        next_ping = opened + self.ping_interval_s
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, next_ping - time.monotonic())):
                    await link.wake.wait()
            link.wake.clear()
            now = time.monotonic()
            if now >= next_ping:
                silent_s = now - link.heard_at
                if silent_s >= 2 * self.ping_interval_s:
                    raise RedisTimeoutError(f"Redis sent nothing for {silent_s:.1f} s, not "
                                            "even a PONG")
                if not link.up and now - opened >= 2 * self.ping_interval_s:
                    raise RedisTimeoutError(f"Redis did not confirm the subscription in "
                                            f"{now - opened:.1f} s")
                await pubsub.ping()
                next_ping = now + self.ping_interval_s
            gone, link.to_unsubscribe = link.to_unsubscribe, set()
            if gone:
                link.sent.difference_update(gone)
                await pubsub.unsubscribe(*(self.prefix + key for key in gone))
            new, link.to_subscribe = link.to_subscribe, set()
            if new:
                link.sent.update(new)
                await pubsub.subscribe(*(self.prefix + key for key in new))

    async def _sweep(self) -> None:
        """Drop, in batches, the keys that lingered out."""
        while True:
            await asyncio.sleep(self.linger_s / 2)
            now = time.monotonic()
            gone = [key for key, subscription in self._subscriptions.items()
                    if subscription.holders <= 0 and now - subscription.idle_since >= self.linger_s]
            for key in gone:
                del self._subscriptions[key]
                name = self._owner.pop(key, None)
                if name is not None and name in self._links:
                    self._links[name].drop(key)

    async def _after_connect(self, link: _Link) -> None:
        """Turn notifications on again (a restarted Redis forgot them), then wake every
        waiter of the link: a write made while they were off went unnoticed."""
        with contextlib.suppress(RedisError, OSError):
            link.notified = await enable_notifications(self.redis, link.node)
        if link.connections:
            for key in link.served():
                subscription = self._subscriptions.get(key)
                if subscription is not None:
                    self._changed(key, subscription)
        link.connections += 1

    def _changed(self, key: str, subscription: _Subscription) -> None:
        subscription.changes += 1
        self.on_change(key)

    def _handle(self, link: _Link, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind not in ("message", "subscribe"):
            return
        channel = message["channel"]
        channel = channel.decode() if isinstance(channel, bytes) else str(channel)
        if channel == self.sentinel:
            if kind == "subscribe":  # (re)connected: Redis may have restarted without the flags
                link.up = True
                check = asyncio.create_task(self._after_connect(link))
                self._checks.add(check)
                check.add_done_callback(self._checks.discard)
            return
        if not channel.startswith(self.prefix):
            return
        key = channel[len(self.prefix):]
        subscription = self._subscriptions.get(key)
        if subscription is None:
            return
        if kind == "subscribe" and not subscription.ready.done():
            subscription.ready.set_result(None)
        self._changed(key, subscription)
