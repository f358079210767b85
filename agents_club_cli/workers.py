"""Worker processes for ``agents-club serve --workers N``, each with its own listening socket.

uvicorn's own multi-worker mode hands every worker the same listening socket.
The worker whose event loop wakes first accepts every connection waiting, so
agents that connect in a burst land mostly on one worker, and since a bot keeps its
keep-alive connection for a whole game, that worker stays the busy one while
the other idles. Here each worker listens on a socket of its own, bound with
``SO_REUSEPORT``, and the kernel spreads new connections over them by hashing
each connection's addresses.

The supervisor starts the workers (``spawn``, like uvicorn), restarts one that
dies while serving, stops them all on SIGINT or SIGTERM (each shuts down
gracefully, as uvicorn does on SIGTERM) and gives up when a worker cannot
even start. :func:`supported` says whether the platform can do this; where it
cannot, ``serve`` uses uvicorn's own mode.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any

__all__ = ["listening_socket", "run_workers", "supported"]

log = logging.getLogger("agents_club.serve")

STOP_GRACE_S = 15.0
"""How long a stopping worker may take to finish its requests before it is killed."""

STARTUP_FAILURE = 3
"""A worker's exit code when it could not start serving (uvicorn's own code for that)."""

METRICS_DIR_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
"""Where the workers keep their metrics (:mod:`gateway.metrics`), set by ``serve``."""

MAX_RESTARTS_PER_MINUTE = 5
"""Workers that keep dying are not restarted forever: serve gives up past this."""


def supported() -> bool:
    """Whether this platform spreads connections over ``SO_REUSEPORT`` sockets (Linux)."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def listening_socket(host: str, port: int, backlog: int = 2048, *, listen: bool = True) -> socket.socket:
    """A TCP socket bound to ``host:port`` with ``SO_REUSEPORT`` (listening unless told not to)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: the event loop sets TCP_NODELAY on the connections it accepts
    # only from a socket whose protocol says TCP.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        if listen:
            sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    return sock


def _worker(config: dict[str, Any], port: int, parent: int) -> None:
    """One worker process: its own listening socket, then uvicorn's server on it."""
    import uvicorn

    from agents_club_cli.embedded_redis import dies_with

    die_with_serve = dies_with(parent)
    if die_with_serve is not None:  # a killed serve must not leave workers holding the port
        die_with_serve()

    server_config = uvicorn.Config(**{**config, "port": port})
    server_config.configure_logging()
    try:
        # Bound now, so a taken port fails here; listening only once the app is up (the
        # event loop's server calls listen() after uvicorn's start-up), so the kernel never
        # queues a connection on a worker still starting, such as one replacing a dead one.
        sock = listening_socket(server_config.host, port, server_config.backlog, listen=False)
    except OSError as error:
        log.error("worker cannot listen on %s:%d: %s", server_config.host, port, error)
        sys.exit(STARTUP_FAILURE)
    server = uvicorn.Server(server_config)
    server.run(sockets=[sock])
    if not server.started:  # the app's start-up failed (uvicorn logged why)
        sys.exit(STARTUP_FAILURE)


def run_workers(config: dict[str, Any], workers: int) -> int:
    """Serve with ``workers`` processes, each listening on its own socket; returns an exit code.

    ``config`` holds ``uvicorn.Config`` keyword arguments (``host`` and ``port``
    included; the app as an import string). The port is claimed here first,
    with a socket that is bound but never listens (the kernel hands
    connections only to listening sockets), so a port in use is reported
    before any worker starts, and port 0 picks one port for all workers.
    """
    try:
        claim = listening_socket(config["host"], config["port"], listen=False)
    except OSError as error:
        log.error("cannot bind %s:%s: %s", config["host"], config["port"], error)
        return 1
    port = int(claim.getsockname()[1])
    context = multiprocessing.get_context("spawn")
    stopping = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}

    def start(index: int) -> BaseProcess:
        process = context.Process(
            target=_worker, args=(config, port, os.getpid()), name=f"agents-club-worker-{index}"
        )
        process.start()
        return process

    running = [start(index) for index in range(workers)]
    restarts: list[float] = []
    failed = False
    try:
        while not stopping.wait(0.2):
            for index, process in enumerate(running):
                if process.is_alive():
                    continue
                now = time.monotonic()
                restarts = [at for at in restarts if now - at < 60] + [now]
                if process.exitcode == STARTUP_FAILURE or len(restarts) > MAX_RESTARTS_PER_MINUTE:
                    log.error("worker %d could not start or keeps dying (exit code %s); stopping",
                              index, process.exitcode)
                    failed = True
                    stopping.set()
                    break
                log.warning("worker %d exited (code %s); starting another", index, process.exitcode)
                _forget_metrics_of(process)
                running[index] = start(index)
    finally:
        _stop_all(running)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        claim.close()
    return 1 if failed else 0


def _forget_metrics_of(process: BaseProcess) -> None:
    """Drop a dead worker from the live gauges of the shared metrics (its counts stay)."""
    if METRICS_DIR_VARIABLE in os.environ and process.pid is not None:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(process.pid)  # type: ignore[no-untyped-call]


def _stop_all(processes: list[BaseProcess]) -> None:
    """SIGTERM every worker (uvicorn finishes its requests), then kill the ones still there."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    deadline = time.monotonic() + STOP_GRACE_S
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            log.error("worker %s did not stop in %.0f s; killing it", process.name, STOP_GRACE_S)
            process.kill()
            process.join()
