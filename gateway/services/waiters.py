"""Local wake-ups for held waits: a worker's waiters, woken by its one change listener.

A held request (an observation, an action's answer, a long-poll, an SSE stream, a
WebSocket subscription) watches a few Redis keys (a table's event or turn stream,
its token's revocation mark, an agent's assignment stream) through
:meth:`Waiters.watch`, and loops "read, wait for a change, read"::

    async with waiters.watch(stream_key, revoked_key) as watch:
        while True:
            ... read Redis; answer and return if worth it ...
            if not await watch.changed(remaining_s):
                ... the time ran out ...

:meth:`Watch.changed` returns as soon as any watched key was written since the
last call (or since the watch began: the watch subscribes before it returns, so
a write between the first read and the first wait is not missed). A table's
writes publish its new version: a waiter that already knows that version (it
read it, or wrote it: :meth:`Watch.know`) is not woken by it. Waiting holds
no Redis connection (:mod:`gateway.store.waits` says how).

A wake is only a hint to read again, which is what keeps every guarantee of the
reads themselves: a revoked token is refused by the read that follows the wake
its revocation caused, so a held request ends at once instead of when its wait
runs out.

One wake carries more than a hint: a commit on this worker hands its waiters of
the table's turn stream the table as it just wrote it, with its recent history
(:meth:`Waiters.deliver`, a :class:`Written`), so a seat woken by a change its
own worker made is answered from it, with no read. It is what a read right
after the commit would return; a wake that brings anything else (a revocation,
a confirmation, a newer version from elsewhere) still makes the waiter read.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import NamedTuple

from gateway.services.loaded_table import LoadedTable
from gateway.store.connection import RedisClient
from gateway.store.table_rows import RecentHistory
from gateway.store.waits import ChangeListener

__all__ = ["READY_TIMEOUT_S", "Waiters", "Watch", "Written"]

READY_TIMEOUT_S = 5.0
"""How long a watch waits for Redis to confirm its subscriptions before it reads anyway
(a wake may then come late; the read itself is never wrong)."""


class Written(NamedTuple):
    """A table as a commit of this worker just wrote it, and its recent history: what a
    read with history right after the commit would return."""

    table: LoadedTable
    history: RecentHistory


class Watch:
    """One held request's watch over some keys (see :meth:`Waiters.watch`); one task
    waits on it at a time. ``on_wake``, when given, is called at every wake, for a
    holder that reacts instead of waiting (a socket's token)."""

    __slots__ = ("_blind", "_delivered", "_known", "_newest", "_on_wake", "_waiter",
                 "_woken", "written")

    def __init__(self, on_wake: Callable[[], object] | None = None) -> None:
        self._woken = False
        self._waiter: asyncio.Future[None] | None = None
        self._on_wake = on_wake
        self._known = -1
        self._newest = -1
        self._blind = False
        self._delivered: Written | None = None
        self.written: Written | None = None
        """After :meth:`changed` returned True: the newest table this worker wrote, when
        it is all the news (else ``None``: read)."""

    def wake(self, version: int | None = None, written: Written | None = None) -> None:
        """Mark a change, naming the table version it wrote (``None``: not known) and,
        from a commit of this worker, the table it wrote."""
        if version is None:
            self._blind = True
        else:
            self._newest = max(self._newest, version)
        if written is not None and (self._delivered is None
                                    or written.table.version > self._delivered.table.version):
            self._delivered = written
        self._woken = True
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)
        if self._on_wake is not None:
            self._on_wake()

    def know(self, version: int) -> None:
        """The waiter knows the table at ``version`` (it wrote it): a wake naming no newer
        version is no news."""
        self._known = max(self._known, version)

    def forget(self) -> None:
        """Drop the changes marked so far (the caller is about to read anyway)."""
        self._woken = False
        self._newest, self._blind, self._delivered = -1, False, None

    async def changed(self, timeout_s: float, *, known: int = -1) -> bool:
        """Wait up to ``timeout_s`` for a write of a watched key since the last call;
        True when one came (read again), False when the time ran out. Wakes that name
        only versions up to ``known`` (or :meth:`know`'s) are no news: the wait goes on.

        A wait is one future and one timer, no more: an idle socket's subscription
        holds just these while its seat thinks."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + timeout_s
        self.written = None  # told already: not held while the waiter waits on
        while True:
            if not self._woken:
                waiter = self._waiter = loop.create_future()
                timer = loop.call_at(give_up, _give_up, waiter)
                try:
                    await waiter
                finally:
                    timer.cancel()
                    self._waiter = None
            if not self._woken:
                return False
            news = self._blind or self._newest > max(known, self._known)
            # A wake with no news (say the waiter's own write) hands nothing over: what
            # it delivered is dropped, not held while the wait goes on.
            delivered = self._delivered if news and not self._blind else None
            self.written = (delivered if delivered is not None
                            and delivered.table.version >= self._newest else None)
            self.forget()
            if news:
                return True


def _give_up(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class Waiters:
    """This worker's held waits by key, and the listener that wakes them."""

    def __init__(self, redis: RedisClient, *, health_check_interval_s: float = 5.0) -> None:
        self._by_key: dict[str, set[Watch]] = {}
        self.listener = ChangeListener(redis, on_change=self._wake,
                                       health_check_interval_s=health_check_interval_s)

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
        watch = Watch()
        ready = self.open(held, watch)
        try:
            pending = {future for future in ready if not future.done()}
            if pending:  # asyncio.wait cancels none of them: each is shared by the key's waiters
                await asyncio.wait(pending, timeout=READY_TIMEOUT_S)
            watch.forget()  # confirmations count as changes; this caller has not read yet
            yield watch
        finally:
            self.close(held, watch)

    def open(self, keys: tuple[str, ...], watch: Watch) -> list[asyncio.Future[None]]:
        """Start ``watch`` watching ``keys`` (distinct) until :meth:`close`; each future is
        done once Redis confirmed that key's subscription, which wakes the watch too.
        :meth:`watch` is the way for a task that waits; this one is for a holder woken
        only by ``on_wake``."""
        ready = [self.listener.hold(key) for key in keys]
        for key in keys:
            self._by_key.setdefault(key, set()).add(watch)
        return ready

    def close(self, keys: tuple[str, ...], watch: Watch) -> None:
        """Stop ``watch`` watching ``keys`` (as given to :meth:`open`)."""
        for key in keys:  # each added by open, and only this watch takes itself out
            watchers = self._by_key[key]
            watchers.discard(watch)
            if not watchers:
                del self._by_key[key]
            self.listener.release(key)

    def watched(self, key: str, *, besides: Watch | None = None) -> bool:
        """Whether a watch other than ``besides`` (the caller's own) watches ``key`` here."""
        return any(watch is not besides for watch in self._by_key.get(key, ()))

    def confirmed(self, key: str) -> bool:
        """Whether a write of ``key`` now wakes its watches here: its subscription is held
        and confirmed (not while the listener's link to its node is down)."""
        return self.listener.confirmed(key)

    def deliver(self, key: str, written: Written) -> None:
        """Wake the watches of ``key`` (a table's turn stream) with the table a commit of
        this worker just wrote (:attr:`Watch.written`), before its publish comes back."""
        self._wake(key, written.table.version, written)

    def _wake(self, key: str, version: int | None, written: Written | None = None) -> None:
        for watch in self._by_key.get(key, ()):
            watch.wake(version, written)
