"""Local wake-ups for held waits: a worker's waiters, woken by its one keyspace reader.

A held request watches a few Redis keys (a table's event or turn stream, its
token's revocation mark, an agent's assignment stream) through
:meth:`Waiters.watch`, and loops "read, wait for a change, read"::

    async with waiters.watch(stream_key, revoked_key) as watch:
        while True:
            ... read Redis; answer and return if worth it ...
            if not await watch.changed(remaining_s):
                ... the time ran out ...

:meth:`Watch.changed` returns as soon as any watched key was written since the
last call (or since the watch began: the watch subscribes before it returns,
so a write between the first read and the first wait is not missed). Waiting
holds no Redis connection: :class:`gateway.store.waits.KeyspaceReader` reads all
of this worker's notifications on one (one per primary of a Redis Cluster).

A wake is only a hint to read again, which is what keeps every guarantee of
the reads themselves: a revoked token is refused by the read that follows
the wake its revocation mark caused, so a held request ends at once instead
of when its wait runs out.

The first read may be skipped when the caller already knows what it would
say, and :meth:`Waiters.marks` is how it knows: marks taken before a command
(an agent's commit) and found unchanged when the watch begins, but for that
command's own writes, mean nothing else about those keys reached this worker
since, so every later write will wake the watch. A seat that just passed its
turn then waits at once (``gateway.services.tables.observe``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, replace

from gateway.store.connection import RedisClient
from gateway.store.waits import PING_INTERVAL_S, KeyspaceReader

__all__ = ["READY_TIMEOUT_S", "UNNOTIFIED_POLL_S", "Mark", "Marks", "Waiters", "Watch"]



@dataclass(frozen=True)
class Mark:
    """A key's mark, taken before a command (:meth:`Waiters.marks`): its subscription's
    serial, and how many changes may have been heard under it for nothing else to have
    been written since (from ``fewest``, its own writes not heard yet, to ``most``)."""

    serial: int
    fewest: int
    most: int

    def allowing(self, writes: int) -> Mark:
        """This mark, with ``writes`` writes of the command itself to be heard too."""
        return replace(self, most=self.most + writes)


Marks = Mapping[str, Mark]
"""Some keys' marks (:meth:`Waiters.marks`), by key."""

READY_TIMEOUT_S = 5.0
"""How long a watch waits for Redis to confirm its subscriptions before it reads anyway
(a wake may then come late; the read itself is never wrong)."""

UNNOTIFIED_POLL_S = 1.0
"""Without keyspace notifications (``CONFIG`` refused, or a link to a newly found cluster
primary not open yet), waiters read again this often."""


class Watch:
    """One held request's watch over some keys (see :meth:`Waiters.watch`)."""

    __slots__ = ("_event", "_waiters", "keys")

    def __init__(self, waiters: Waiters, keys: tuple[str, ...]) -> None:
        self._waiters = waiters
        self.keys = keys
        self._event = asyncio.Event()

    def wake(self) -> None:
        """Mark a change (the reader calls this; so may anyone that knows of one)."""
        self._event.set()

    def forget(self) -> None:
        """Drop the changes marked so far (the caller is about to read anyway)."""
        self._event.clear()

    async def changed(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for a write of a watched key since the last call;
        True when one came (read again), False when the time ran out."""
        if not self._waiters.reader.notified:
            timeout_s = min(timeout_s, UNNOTIFIED_POLL_S)
        if not self._event.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, timeout_s)):
                    await self._event.wait()
        woken = self._event.is_set()
        self._event.clear()
        return woken or not self._waiters.reader.notified


class Waiters:
    """This worker's held waits by key, and the reader that wakes them."""

    def __init__(
        self, redis: RedisClient, *, sentinel: str, ping_interval_s: float = PING_INTERVAL_S
    ) -> None:
        self._by_key: dict[str, set[Watch]] = {}
        self.reader = KeyspaceReader(redis, on_change=self._wake, sentinel=sentinel,
                                     ping_interval_s=ping_interval_s)

    async def start(self) -> None:
        """Start the reader (at the worker's start)."""
        await self.reader.start()

    async def aclose(self) -> None:
        """Stop the reader (at the worker's end)."""
        await self.reader.aclose()

    def marks(self, *keys: str | None) -> Marks | None:
        """Each of ``keys``' :meth:`~gateway.store.waits.KeyspaceReader.mark` (None keys
        skipped), taken before a command whose answer a later wait may start from;
        ``None`` when one of them could go unnoticed now."""
        marks: dict[str, Mark] = {}
        for key in keys:
            if key is not None:
                mark = self.reader.mark(key)
                if mark is None:
                    return None
                serial, changes = mark
                marks[key] = Mark(serial, changes, changes)
        return marks

    def unchanged(self, marks: Marks | None, *keys: str | None) -> bool:
        """Whether nothing about any of ``keys`` reached this worker since ``marks`` were
        taken but the writes they allow for (:meth:`Mark.allowing`): then a watch of
        them that begins now hears of every other write made after the command the
        marks came before, and may wait at once."""
        if marks is None:
            return False
        for key in keys:
            if key is None:
                continue
            mark, now = marks.get(key), self.reader.mark(key)
            if mark is None or now is None or now[0] != mark.serial:
                return False
            if not mark.fewest <= now[1] <= mark.most:
                return False
        return True

    @property
    def waiting(self) -> int:
        """How many watches are open (each a held request)."""
        return len({watch for watches in self._by_key.values() for watch in watches})

    @contextlib.asynccontextmanager
    async def watch(self, *keys: str | None) -> AsyncIterator[Watch]:
        """Watch the writes of ``keys`` (None skipped) for as long as the block runs;
        it starts once Redis confirmed the subscriptions (or :data:`READY_TIMEOUT_S`
        passed), so every write after the caller's next read wakes it."""
        held = tuple(dict.fromkeys(key for key in keys if key is not None))
        watch = Watch(self, held)
        ready = [self.reader.hold(key) for key in held]
        for key in held:
            self._by_key.setdefault(key, set()).add(watch)
        try:
            pending = [future for future in ready if not future.done()]
            if pending and self.reader.notified:
                give_up = time.monotonic() + READY_TIMEOUT_S
                for future in pending:
                    with contextlib.suppress(TimeoutError):
                        # shield: the future is shared by every waiter of the key
                        await asyncio.wait_for(asyncio.shield(future),
                                               max(0.0, give_up - time.monotonic()))
            watch.forget()  # confirmations count as changes; this caller has not read yet
            yield watch
        finally:
            for key in held:
                watchers = self._by_key.get(key)
                if watchers is not None:
                    watchers.discard(watch)
                    if not watchers:
                        del self._by_key[key]
                self.reader.release(key)

    def _wake(self, key: str) -> None:
        for watch in self._by_key.get(key, ()):
            watch.wake()
