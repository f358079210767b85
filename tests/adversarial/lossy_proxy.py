"""A TCP proxy on loopback that loses Redis's reply to one chosen command: the command
reaches Redis and is applied, its reply never comes back (the connection drops instead,
or, with :meth:`LossyProxy.stall_reply_to`, stays open and silent); that loses one chosen
command on its way (:meth:`LossyProxy.drop_request`: Redis never sees it, the connection
goes on); or that goes silent altogether (:meth:`LossyProxy.go_silent`: connections
accepted, nothing answered)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager


class LossyProxy:
    """Forwards every connection to ``upstream``; :meth:`lose_reply_to` arms the next
    command whose bytes contain a marker to be applied without a reply."""

    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self.upstream = (upstream_host, upstream_port)
        self.port = 0
        self._armed: dict[str, tuple[bytes, ...]] = {}
        """Fault (``lose``, ``stall``, ``drop``) -> the markers of the command it waits for."""
        self._taken: Counter[str] = Counter()
        self.silent = False
        """True: every connection, open or new, forwards nothing either way."""
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def lose_reply_to(self, marker: bytes) -> None:
        """The next command containing ``marker`` reaches Redis; its reply is lost."""
        self._arm("lose", marker)

    def stall_reply_to(self, *markers: bytes) -> None:
        """The next command containing every one of ``markers`` reaches Redis; its reply
        (and anything after it on that connection) never comes back, and the connection
        stays open: the client's socket timeout has to notice."""
        self._arm("stall", *markers)

    def drop_request(self, marker: bytes) -> None:
        """The next bytes from a client that contain ``marker`` never reach Redis; the
        connection stays open and everything after them is forwarded as usual (what a
        Redis that lost a command while it stalled, then came back, looks like)."""
        self._arm("drop", marker)

    @property
    def lost(self) -> int:
        """Replies lost so far (:meth:`lose_reply_to`)."""
        return self._taken["lose"]

    @property
    def stalled(self) -> int:
        """Replies stalled so far (:meth:`stall_reply_to`)."""
        return self._taken["stall"]

    @property
    def dropped(self) -> int:
        """Commands dropped so far (:meth:`drop_request`)."""
        return self._taken["drop"]

    def go_silent(self, silent: bool = True) -> None:
        """Accept connections but answer nothing (``False``: forward again)."""
        self.silent = silent

    def _arm(self, fault: str, *markers: bytes) -> None:
        with self._lock:
            self._armed[fault] = markers

    def _take(self, fault: str, chunk: bytes) -> bool:
        """Whether ``chunk`` is the command ``fault`` waits for (it is then disarmed)."""
        with self._lock:
            markers = self._armed.get(fault)
            if markers is None or not all(marker in chunk for marker in markers):
                return False
            del self._armed[fault]
            self._taken[fault] += 1
            return True

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        # Stopped: end every connection still being served, then close the loop itself.
        server.close()
        serving = asyncio.all_tasks(self._loop)
        for task in serving:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*serving, return_exceptions=True))
        self._loop.close()

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        upstream_r, upstream_w = await asyncio.open_connection(*self.upstream)
        cut = asyncio.Event()
        muted = asyncio.Event()  # this connection answers nothing more, and stays open

        async def to_redis() -> None:
            while chunk := await client_r.read(65536):
                if self.silent or self._take("drop", chunk):
                    continue
                if self._take("stall", chunk):
                    muted.set()
                losing = self._take("lose", chunk)
                if losing:
                    cut.set()  # from now on nothing goes back to the client
                upstream_w.write(chunk)
                await upstream_w.drain()
                if losing:
                    await asyncio.sleep(0.05)  # let Redis apply it, then drop the connection
                    return

        async def to_client() -> None:
            while chunk := await upstream_r.read(65536):
                if cut.is_set():
                    return
                if muted.is_set() or self.silent:
                    continue
                client_w.write(chunk)
                await client_w.drain()

        tasks = [asyncio.ensure_future(to_redis()), asyncio.ensure_future(to_client())]
        try:
            with contextlib.suppress(Exception):
                await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:  # also when the proxy stops (cancelled)
            for task in tasks:
                task.cancel()
            for writer in (client_w, upstream_w):
                writer.close()

    @contextmanager
    def running(self) -> Iterator[LossyProxy]:
        self._thread.start()
        self._ready.wait(5)
        try:
            yield self
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
