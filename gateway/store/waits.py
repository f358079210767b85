"""The Redis side of held waits: each writer publishes what it changed, one listener hears it.

Every key a held wait watches has one writer, and each publishes a small message
on the channel named after that key, in the same script or round trip as the write:

* the commit script (:mod:`gateway.store.tables`): a table's event stream, and its
  turn stream when who acts changed (the message: the table's new version);
* the assignment writer (:meth:`gateway.store.tournaments.TournamentStore.announce`):
  an agent's assignment stream (``assigned``);
* revocation (:mod:`gateway.store.auth`): a token's revocation mark (``revoked``).

On a Redis Cluster the publish is :func:`publish_command`'s ``SPUBLISH``: a shard
channel lives on the primary of its slot (the key's), so a message never crosses
the cluster bus and the cost of a publish does not grow with the nodes. On one
Redis it is ``PUBLISH`` (the embedded Redis 6.2 has no shard channels).

Each worker has one :class:`ChangeListener`: one redis-py ``PubSub`` on one Redis,
one per primary on a cluster (a channel is ``SSUBSCRIBE``\\ d on the primary serving
its slot). Not redis-py's ``ClusterPubSub``: it reads its nodes' connections in
turn (``get_sharded_message`` waits on one, then the next), so a listener on it would
poll, or wait on one node while another's message sits unread; here each primary's
``PubSub`` is read by its own task. It hands each message's channel to ``on_change``,
with the version the message names (``None`` for any other message), and
:class:`gateway.services.waiters.Waiters` wakes the local waiters of that key: a
message is only a hint to read again (a lost or extra one can delay an answer, never
make it wrong).

No change goes unheard: a waiter's first read follows Redis's confirmation of its
subscription (:meth:`ChangeListener.hold`), and every confirmation is handed to
``on_change`` as a change too. A link whose connection fails (a killed connection,
a failover, a slot that moved: Redis then ends the shard channels it no longer
serves) opens a new ``PubSub`` and subscribes its channels again, so whoever
waited across the gap reads again. Idle connections are checked by redis-py's own
``health_check_interval`` (a ``PING`` when nothing was read for that long).

Subscriptions are counted per channel and linger (:data:`LINGER_S`) after their
last waiter left, so a bot that waits once per turn does not subscribe and
unsubscribe every turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.backoff import NoBackoff
from redis.exceptions import RedisClusterException, RedisError
from redis.retry import Retry

from gateway.store.connection import RedisClient, decoded

__all__ = [
    "LINGER_S",
    "RECONNECT_DELAY_S",
    "TOPOLOGY_CHECK_S",
    "ChangeListener",
    "publish_command",
    "stop_tasks",
]

log = logging.getLogger(__name__)

LINGER_S = 30.0
"""How long a channel stays subscribed after its last waiter left."""

RECONNECT_DELAY_S = (0.1, 0.5, 1.0, 2.0, 5.0)
"""Back-off between attempts to open a link again."""

TOPOLOGY_CHECK_S = 2.0
"""On a cluster, how often the held channels are checked against the client's slot map."""

SINGLE = ""
"""The name of the one link on a single Redis."""

STOP_GRACE_S = 5.0
"""How long :func:`stop_tasks` waits for cancelled tasks."""

ANCHOR = "agents-club:listener"
"""A channel every link subscribes first and never leaves, on which nothing is published.

redis-py's ``PubSub`` health-checks before a command only while it holds no channel,
and that check reads the reply itself: with the reader already waiting in
``get_message`` the two reads collide (``RuntimeError: read() called while another
coroutine is already waiting``). Holding one channel for the link's whole life keeps
the sender's commands write-only, whatever the waiters hold."""


def publish_command(redis: RedisClient) -> str:
    """The command that tells the listeners of a key's channel: ``SPUBLISH`` on a cluster
    (the channel on the key's own slot), ``PUBLISH`` on one Redis."""
    return "SPUBLISH" if isinstance(redis, RedisCluster) else "PUBLISH"


@dataclass
class _Channel:
    """One held channel: how many waiters hold it, and whether Redis confirmed it."""

    ready: asyncio.Future[None]
    holders: int = 0
    idle_since: float = 0.0
    link: str | None = None


@dataclass
class _Link:
    """One pub/sub connection: to the single Redis, or to one primary of a cluster."""

    name: str
    client: aioredis.Redis
    channels: set[str] = field(default_factory=set)
    """The channels this link should have subscribed."""
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when :attr:`channels` changed."""
    up: bool = False
    task: asyncio.Task[None] = field(init=False)


async def stop_tasks(*tasks: asyncio.Task[Any], grace_s: float = STOP_GRACE_S) -> set[asyncio.Task[Any]]:
    """Cancel ``tasks`` and wait until they ended, at most ``grace_s``; returns those still
    running then (the caller says so and leaves them).

    Cancelled again every tenth of a second while one runs: a cancellation can be lost
    when it races a library's own timeout, and the task then runs on. Waited with
    ``asyncio.wait``, not under ``suppress(CancelledError)``: a suppress also swallows
    the *waiting* task's own cancellation when it comes meanwhile, and that task then
    runs on too. What ended a task is retrieved whenever it ends, after the grace period
    too (it was logged where it happened), so asyncio never reports it as unretrieved.
    """
    for task in tasks:
        task.add_done_callback(_retrieve)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace_s
    pending = set(tasks)
    while pending and loop.time() < deadline:
        for task in pending:
            task.cancel()
        _done, pending = await asyncio.wait(pending, timeout=min(0.1, deadline - loop.time()))
    return pending


def _retrieve(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()


class ChangeListener:
    """This worker's pub/sub links; hands every changed channel to ``on_change``."""

    def __init__(
        self, redis: RedisClient, *, on_change: Callable[[str, int | None], None],
        health_check_interval_s: float = 5.0,
    ) -> None:
        self.redis = redis
        self.cluster = redis if isinstance(redis, RedisCluster) else None
        self.on_change = on_change
        self.health_check_interval_s = health_check_interval_s
        self.linger_s = LINGER_S
        self.reconnects = 0
        """How many times a link's connection failed (for tests and logs)."""
        self._channels: dict[str, _Channel] = {}
        self._links: dict[str, _Link] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._layout_changed = asyncio.Event()

    @property
    def connected(self) -> bool:
        """Whether every link is up (and at least one exists)."""
        return bool(self._links) and all(link.up for link in self._links.values())

    @property
    def links(self) -> dict[str, bool]:
        """Each link's node name (``""`` on one Redis) and whether it is up."""
        return {name: link.up for name, link in self._links.items()}

    def confirmed(self, channel: str) -> bool:
        """Whether Redis has confirmed ``channel``'s subscription on a link that is up: every
        publish on it is heard now (a failed link unconfirms its channels until it is back)."""
        held = self._channels.get(channel)
        return held is not None and held.ready.done()

    @property
    def held_channels(self) -> int:
        """How many channels are subscribed or lingering."""
        return len(self._channels)

    async def start(self) -> None:
        """Open the links (one, or one per primary) and start following them."""
        if self.cluster is None:
            assert isinstance(self.redis, aioredis.Redis)
            pool = self.redis.connection_pool
            self._open(SINGLE, pool.connection_class, pool.connection_kwargs)
        else:
            with contextlib.suppress(RedisError, RedisClusterException, OSError):
                await self._follow_topology(refresh=False)
            self._tasks.append(asyncio.create_task(self._watch_topology(),
                                                   name="change-listener-topology"))
        self._tasks.append(asyncio.create_task(self._sweep(), name="change-listener-sweep"))

    async def aclose(self) -> None:
        left = await stop_tasks(*self._tasks, *(link.task for link in self._links.values()))
        for task in left:
            log.error("change listener task %s ignored cancellation; leaving it", task.get_name())
        for link in self._links.values():
            await link.client.aclose()
        self._tasks = []
        self._links.clear()

    def hold(self, channel: str) -> asyncio.Future[None]:
        """Subscribe to ``channel`` (or keep its subscription); the future is done once
        Redis confirmed it, from when on no publish on it goes unheard."""
        held = self._channels.get(channel)
        if held is None:
            held = self._channels[channel] = _Channel(asyncio.get_running_loop().create_future())
            self._route(channel)
        held.holders += 1
        return held.ready

    def release(self, channel: str) -> None:
        """A waiter of ``channel`` left; its subscription lingers, then goes."""
        held = self._channels[channel]  # held since hold(): the sweep drops only unheld ones
        held.holders -= 1
        if held.holders <= 0:
            held.idle_since = time.monotonic()

    # -- links ------------------------------------------------------------------

    def _open(self, name: str, connection_class: Any, kwargs: dict[str, Any]) -> None:
        """A link of its own connection: redis-py's health checks on, its retries off (a
        failed link opens a new ``PubSub`` and confirms every channel again)."""
        pool = aioredis.ConnectionPool(
            connection_class=connection_class, max_connections=2,
            **{**kwargs, "health_check_interval": self.health_check_interval_s,
               "retry": Retry(NoBackoff(), 0)})
        link = self._links[name] = _Link(name, aioredis.Redis.from_pool(pool))
        link.task = asyncio.create_task(self._run(link), name=f"change-listener-{name}")

    async def _run(self, link: _Link) -> None:
        """Connect, subscribe and read, again after every failure."""
        failures = 0
        while True:
            delay = RECONNECT_DELAY_S[min(failures, len(RECONNECT_DELAY_S) - 1)]
            pubsub = link.client.pubsub()
            sender: asyncio.Task[None] | None = None
            try:
                await pubsub.connect()  # type: ignore[no-untyped-call]  # unannotated in redis-py
                await pubsub.subscribe(ANCHOR)  # before the sender starts: see ANCHOR
                link.up = True
                sender = asyncio.create_task(self._send(link, pubsub), name="change-listener-send")
                while True:
                    message = await pubsub.get_message(timeout=self.health_check_interval_s)
                    if sender.done():
                        sender.result()  # raises what ended it
                    failures = 0
                    if message is not None:
                        self._handle(link, message)
            except (RedisError, RedisClusterException, OSError) as failure:
                failures += 1
                self.reconnects += 1
                log.warning("change listener lost its connection%s (%s); again in %.1f s",
                            f" to {link.name}" if link.name else "", failure, delay)
                self._layout_changed.set()
            finally:
                link.up = False
                if sender is not None:
                    await stop_tasks(sender)
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]  # unannotated in redis-py
                for channel in link.channels:  # to be confirmed again on the next connection
                    self._unconfirm(channel)
            await asyncio.sleep(delay)

    async def _send(self, link: _Link, pubsub: Any) -> None:
        """Subscribe what the link should hold and unsubscribe what it no longer should,
        whenever that changes."""
        sent: set[str] = set()
        link.wake.set()  # a new connection: every channel of the link is to subscribe
        while True:
            await link.wake.wait()
            link.wake.clear()
            gone, new = sent - link.channels, link.channels - sent
            sent = set(link.channels)
            if self.cluster is None:
                if gone:
                    await pubsub.unsubscribe(*gone)
                if new:
                    await pubsub.subscribe(*new)
                continue
            for channel in gone:  # one slot per command on a cluster
                await pubsub.sunsubscribe(channel)
            for channel in new:
                await pubsub.ssubscribe(channel)

    def _handle(self, link: _Link, message: dict[str, Any]) -> None:
        kind = message["type"]
        channel = decoded(message["channel"]) if message["channel"] is not None else ""
        held = self._channels.get(channel)
        if held is None:
            return
        if kind in ("subscribe", "ssubscribe") and not held.ready.done():
            held.ready.set_result(None)
        elif kind == "sunsubscribe" and channel in link.channels:
            # Redis ended a shard channel it no longer serves (its slot moved): learn
            # the layout, subscribe it where it lives now, and read again meanwhile.
            link.channels.discard(channel)
            held.link = None
            self._unconfirm(channel)
            self._layout_changed.set()
        elif kind in ("message", "smessage"):
            data = message["data"]
            version = decoded(data) if isinstance(data, bytes | str) else ""
            self.on_change(channel, int(version) if version.isdigit() else None)
            return
        elif kind not in ("subscribe", "ssubscribe"):
            return
        self.on_change(channel, None)

    def _unconfirm(self, channel: str) -> None:
        held = self._channels.get(channel)
        if held is not None and held.ready.done():
            held.ready = asyncio.get_running_loop().create_future()

    # -- where each channel is subscribed -----------------------------------------

    def _route(self, channel: str) -> None:
        """Have ``channel`` subscribed on the link of the node serving it (only there)."""
        held = self._channels[channel]
        name: str | None = SINGLE
        if self.cluster is not None:
            try:
                node = self.cluster.get_node_from_key(channel)
            except (RedisError, RedisClusterException):  # no slot map yet, or the slot unserved
                node = None
            name = None if node is None else node.name
        if held.link == name and name in self._links:
            return
        if held.link is not None and held.link in self._links:
            old = self._links[held.link]
            old.channels.discard(channel)
            old.wake.set()
            self._unconfirm(channel)
            self.on_change(channel, None)  # moving: a publish may go unheard meanwhile
        if name is None or name not in self._links:
            held.link = None
            self._layout_changed.set()
            return
        held.link = name
        self._links[name].channels.add(channel)
        self._links[name].wake.set()

    async def _follow_topology(self, *, refresh: bool) -> None:
        """One link per primary and every held channel on its primary's link;
        ``refresh``: read the layout from the cluster first."""
        assert self.cluster is not None
        if refresh:
            await self.cluster.nodes_manager.initialize()
        else:
            await self.cluster.initialize()  # the first time: learn the layout
        primaries = {node.name: node for node in self.cluster.get_primaries()}
        for name in [name for name in self._links if name not in primaries]:
            gone = self._links.pop(name)
            await stop_tasks(gone.task)
            await gone.client.aclose()
            for channel in gone.channels:
                self._channels[channel].link = None
        for name, node in primaries.items():
            if name not in self._links:
                self._open(name, node.connection_class, node.connection_kwargs)
        for channel in list(self._channels):
            self._route(channel)

    async def _watch_topology(self) -> None:
        """Follow the cluster's primaries: at once (with a fresh layout) after a link
        failed or a channel moved, else every :data:`TOPOLOGY_CHECK_S` from the
        client's slot map."""
        failures = 0
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(TOPOLOGY_CHECK_S):
                    await self._layout_changed.wait()
            changed = self._layout_changed.is_set()
            self._layout_changed.clear()
            try:
                await self._follow_topology(refresh=changed or not self.connected)
                failures = 0
            except (RedisError, RedisClusterException, OSError) as failure:
                failures += 1
                log.warning("change listener could not learn the cluster's layout (%s)", failure)
                await asyncio.sleep(RECONNECT_DELAY_S[min(failures, len(RECONNECT_DELAY_S) - 1)])
                self._layout_changed.set()

    async def _sweep(self) -> None:
        """Drop, in batches, the channels that lingered out."""
        while True:
            await asyncio.sleep(self.linger_s / 2)
            now = time.monotonic()
            for channel, held in list(self._channels.items()):
                if held.holders <= 0 and now - held.idle_since >= self.linger_s:
                    del self._channels[channel]
                    link = self._links.get(held.link) if held.link is not None else None
                    if link is not None:
                        link.channels.discard(channel)
                        link.wake.set()
