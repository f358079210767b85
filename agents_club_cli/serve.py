"""Start the gateway: ``agents-club serve [--host --port --workers N --data-dir DIR]``.

Runs ``gateway.app:create_app`` under uvicorn with N worker processes (on
Linux each with its own listening socket: :mod:`agents_club_cli.workers`). With no
``REDIS_URL`` in the environment it first starts an embedded ``redis-server``
with append-only persistence in ``<data-dir>/redis`` and hands its URL to the
workers through the environment; it stops that server after the workers have
exited, also on Ctrl-C and SIGTERM. With ``REDIS_URL`` set it uses that server.
The workers keep their metrics in ``<data-dir>/metrics`` (or
``PROMETHEUS_MULTIPROC_DIR``), emptied at each start, so any worker's
``/metrics`` shows the totals of all (:mod:`gateway.metrics`).

In development, the signing key and the organiser key are generated here,
once, into the data directory, before any worker starts, so every worker
signs and checks with the same keys. The organiser key is never printed: it is
read from ``<data-dir>/organiser-key``.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType

__all__ = ["HELP", "add_arguments", "run", "wait_until_ready"]

HELP = """Start the gateway, by default on http://127.0.0.1:8000.

    agents-club serve                      # one worker, embedded Redis in .data/redis
    agents-club serve --workers 4 --port 8080
    REDIS_URL=redis://127.0.0.1:6379/0 agents-club serve

Without REDIS_URL it starts its own Redis server, which keeps an append-only
file in the data directory, and stops it when the gateway stops (Ctrl-C or
SIGTERM). In development it also creates, once, a signing key and an
organiser key in the data directory (readable only by you); the README lists
every setting."""

log = logging.getLogger("agents_club.serve")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to bind (default 8000)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="keys and embedded Redis data (default $AGENTS_CLUB_DATA_DIR or .data)",
    )
    # For bench/gateway.py, not users: the app factory to run (bench.baseline_app's is the
    # gateway beside its bare baselines, benchmark code the gateway itself never serves).
    parser.add_argument("--app", default="gateway.app:create_app", help=argparse.SUPPRESS)


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    # uvicorn re-raises the signal it caught once it has shut down; turning
    # SIGTERM into SystemExit lets `run` stop the embedded Redis on the way out.
    raise SystemExit(0)


def run(args: argparse.Namespace) -> int:
    """Start Redis if needed, then uvicorn; returns the exit code."""
    import uvicorn

    from agents_club_cli import workers
    from agents_club_cli.embedded_redis import EmbeddedRedis
    from gateway.config import Settings
    from gateway.keys import ORGANISER_KEY_FILE, load_keyring, resolve_organiser_key
    from gateway.logging_config import configure_logging
    from gateway.routes.ws import socket_options

    if args.workers < 1:
        print("--workers must be at least 1", file=sys.stderr)
        return 2
    data_dir = Path(args.data_dir or os.environ.get("AGENTS_CLUB_DATA_DIR") or ".data").resolve()
    os.environ["AGENTS_CLUB_DATA_DIR"] = str(data_dir)
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)  # keys and the AOF live here
    _fresh_metrics_dir(data_dir)
    try:
        settings = Settings()
        load_keyring(settings)  # generates the development key once, before the workers
        resolve_organiser_key(settings)
    except ValueError as refused:
        print(f"agents-club serve: {refused}", file=sys.stderr)
        return 2
    configure_logging(level=settings.log_level, fmt=settings.log_format)

    embedded: EmbeddedRedis | None = None
    previous_sigterm = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        if settings.redis_url is None:
            embedded = EmbeddedRedis(data_dir / "redis", persistent=True).start()
            os.environ["REDIS_URL"] = embedded.url
            log.info("embedded Redis on %s (append-only file in %s)", embedded.url,
                     data_dir / "redis")
        if not settings.organiser_key:
            log.info("organiser key: in %s", data_dir / ORGANISER_KEY_FILE)
        log.info("gateway on http://%s:%d (docs at /docs), %d worker(s)",
                 args.host, args.port, args.workers)
        config = {
            "app": args.app,
            "factory": True,
            "host": args.host,
            "port": args.port,
            "log_config": None,  # our scrubbing handler (gateway.logging_config) owns the output
            "access_log": False,  # gateway.access logs requests without query strings
            # Forwarded headers only from the proxies the operator names (none by
            # default): uvicorn's own default trusts 127.0.0.1, so any client on the
            # same host chose its address and escaped the per-address rate limits.
            "proxy_headers": bool(settings.forwarded_allow_ips.strip()),
            "forwarded_allow_ips": settings.forwarded_allow_ips.strip(),
            "timeout_graceful_shutdown": 10,
            # uvicorn picks httptools on uvloop where installed (its "auto"). Slow and
            # oversized heads and bodies are the proxy's (deploy/nginx.conf).
            "timeout_keep_alive": settings.keep_alive_timeout_s,
            **socket_options(),
        }
        if args.workers > 1 and workers.supported():
            # A listening socket per worker: connections spread evenly (see workers).
            return workers.run_workers(config, args.workers)
        uvicorn.run(**config, workers=args.workers)
    except KeyboardInterrupt:
        pass
    finally:
        if embedded is not None:
            embedded.stop()
            log.info("embedded Redis stopped")
        signal.signal(signal.SIGTERM, previous_sigterm)
    return 0


def _fresh_metrics_dir(data_dir: Path) -> None:
    """Point the workers' shared metrics (:mod:`gateway.metrics`) at a directory holding
    no earlier run's files: ``PROMETHEUS_MULTIPROC_DIR`` when the operator set it, else
    ``metrics/`` in the data directory."""
    from agents_club_cli.workers import METRICS_DIR_VARIABLE

    metrics_dir = Path(os.environ.get(METRICS_DIR_VARIABLE) or data_dir / "metrics")
    metrics_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    for earlier in metrics_dir.glob("*.db"):
        earlier.unlink()
    os.environ[METRICS_DIR_VARIABLE] = str(metrics_dir)


def wait_until_ready(
    base_url: str,
    process: subprocess.Popen[bytes],
    timeout_s: float = 60.0,
    *,
    log_path: Path | None = None,
) -> None:
    """Wait until the gateway started as ``process`` answers ``GET /readyz`` with 200.

    For whatever starts a gateway in a child process: ``agents-club demo``,
    ``bench/gateway.py`` and the tests that run real servers.

    :raises RuntimeError: the process exited first (with the end of ``log_path``,
        when given) or ``timeout_s`` ran out.
    """
    import httpx

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log_path.read_text(errors="replace")[-2000:] if log_path else ""
            raise RuntimeError(f"the gateway exited with {process.returncode}:\n{tail}".rstrip())
        try:
            if httpx.get(f"{base_url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the gateway did not become ready within {timeout_s:.0f} s")
