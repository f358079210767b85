"""Many held requests against a real gateway, cheaply: long-polls, SSE streams, Redis counts.

Shared by ``bench/capacity.py`` and the capacity tests
(``tests/gateway/test_wait_capacity.py``). A held request is one raw HTTP/1.1
connection (:class:`bench.loadgen.LeanConnection` for long-polls, a bare
stream reader for SSE), so thousands of them cost the client little, and
:func:`gateway_process` starts a gateway worker as the product runs it (a
uvicorn process on loopback).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import redis

from agents_club_cli.serve import wait_until_ready
from bench.loadgen import Answer, LeanConnection
from gateway.store.connection import is_cluster_url

__all__ = [
    "SseStream",
    "client_name_prefix",
    "connections_by_node",
    "gateway_process",
    "hold_long_polls",
    "open_streams",
    "redis_connections",
    "rss_mb",
]

OPEN_BATCH = 200
"""Connections opened at once (a listen backlog overflows on bigger bursts)."""


def client_name_prefix(namespace: str) -> str:
    """What the gateway's Redis connections of ``namespace`` are named (then ``:<pid>``)."""
    return f"agents-club:{namespace}:"


def redis_connections(redis_url: str, namespace: str) -> dict[str, int]:
    """The gateway's Redis connections of ``namespace`` now, by worker (the name's pid);
    on a Redis Cluster (a ``redis+cluster://`` URL) summed over every node."""
    return dict(sum(connections_by_node(redis_url, namespace), Counter[str]()))


def connections_by_node(redis_url: str, namespace: str) -> list[Counter[str]]:
    """The gateway's Redis connections of ``namespace`` now on each Redis server (one, or
    every node of a cluster), by worker (the name's pid)."""
    prefix = client_name_prefix(namespace)
    by_node = []
    for client in _node_clients(redis_url):
        counts: Counter[str] = Counter()
        try:
            for row in client.client_list():
                name = str(row.get("name", ""))
                if name.startswith(prefix):
                    counts[name[len(prefix):]] += 1
        finally:
            client.close()
        by_node.append(counts)
    return by_node


def redis_cpu_seconds(redis_url: str) -> float:
    """The CPU seconds Redis used so far (``INFO cpu``: user + system of its main process),
    summed over every node of a cluster."""
    total = 0.0
    for client in _node_clients(redis_url):
        try:
            info = client.info("cpu")
            total += float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
        finally:
            client.close()
    return total


def _node_clients(redis_url: str) -> list[redis.Redis]:
    """A client of the one Redis, or one of each node of the cluster ``redis_url`` names."""
    if not is_cluster_url(redis_url):
        return [redis.Redis.from_url(redis_url)]
    seed = urlsplit(redis_url)
    cluster = redis.RedisCluster(host=seed.hostname or "127.0.0.1", port=seed.port or 6379)
    try:
        nodes = cluster.get_nodes()  # type: ignore[no-untyped-call]  # unannotated in redis-py
        return [redis.Redis(host=node.host, port=int(node.port)) for node in nodes]
    finally:
        cluster.close()


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@contextlib.contextmanager
def gateway_process(
    port: int, env: dict[str, str], *, workers: int = 1, log_path: Path | None = None,
    root: Path | None = None,
) -> Iterator[subprocess.Popen[bytes]]:
    """A gateway on ``127.0.0.1:port`` with ``env`` (settings), stopped afterwards.

    One worker is a bare uvicorn process; more is ``agents-club serve --workers N``.
    ``root``: the checkout whose code (and ``.venv``) serves, to compare another
    version of the gateway (default: this one, with this interpreter).
    """
    python = sys.executable if root is None else str(root / ".venv" / "bin" / "python")
    root = root or Path(__file__).resolve().parents[1]
    if workers == 1:
        command = [python, "-m", "uvicorn", "gateway.app:create_app", "--factory",
                   "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
                   "--backlog", "4096"]
    else:
        command = [python, "-m", "agents_club_cli.main", "serve", "--workers",
                   str(workers), "--host", "127.0.0.1", "--port", str(port)]
    output = open(log_path, "wb") if log_path else None  # noqa: SIM115 - closed below
    process = subprocess.Popen(command, env={**os.environ, **env}, cwd=root,
                               stdout=output, stderr=output)
    try:
        wait_until_ready(f"http://127.0.0.1:{port}", process, 60, log_path=log_path)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if output is not None:
            output.close()


async def hold_long_polls(
    url: str, path: str, params: dict[str, object], count: int,
) -> tuple[list[LeanConnection], list[asyncio.Task[Answer]]]:
    """Send ``count`` long-polls ``GET path?params`` (each on a connection of its own);
    returns the connections and the tasks that end with their answers."""
    connections = [LeanConnection(url) for _ in range(count)]
    tasks: list[asyncio.Task[Answer]] = []
    for start in range(0, count, OPEN_BATCH):
        batch = connections[start:start + OPEN_BATCH]
        tasks.extend(asyncio.create_task(connection.request("GET", path, params=params))
                     for connection in batch)
        await asyncio.sleep(0.02)  # let the batch connect before the next
    return connections, tasks


class SseStream:
    """One Server-Sent Events stream read raw (chunked framing left in: searched, not parsed)."""

    def __init__(self, url: str, path: str, headers: dict[str, str] | None = None) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.path = path
        self.headers = headers or {}
        self.status = 0
        self.received = bytearray()
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        """Connect, send the request and read the answer's head."""
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        extra = "".join(f"{name}: {value}\r\n" for name, value in self.headers.items())
        self._writer.write(f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                           f"Accept: text/event-stream\r\n{extra}\r\n".encode())
        head = await self._reader.readuntil(b"\r\n\r\n")
        self.status = int(head.split(b" ", 2)[1])

    async def until(self, text: bytes) -> bool:
        """Read until ``text`` came (True) or the server closed the stream (False)."""
        assert self._reader is not None
        while text not in self.received:
            chunk = await self._reader.read(65536)
            if not chunk:
                return False
            self.received += chunk
        return True

    async def close(self) -> None:
        """Close the connection."""
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(ConnectionError):
                await self._writer.wait_closed()


async def open_streams(
    url: str, path: str, count: int, *, first: bytes = b"retry:",
) -> list[SseStream]:
    """Open ``count`` SSE streams on ``path`` and read each until ``first`` came."""
    streams = [SseStream(url, path) for _ in range(count)]
    for start in range(0, count, OPEN_BATCH):
        batch = streams[start:start + OPEN_BATCH]
        await asyncio.gather(*(stream.open() for stream in batch))
        await asyncio.gather(*(stream.until(first) for stream in batch))
    return streams
