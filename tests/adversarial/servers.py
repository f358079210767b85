"""A real ``agents-club serve`` on loopback for the probes that need the HTTP server itself
(its parser, its proxy handling, its connections), not an in-process client; and the
nginx of ``deploy/nginx.conf`` in front of it, for the slow-client limits."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from agents_club_cli.embedded_redis import free_port
from agents_club_cli.serve import wait_until_ready
from tests.conftest import server_env

ORGANISER_KEY = "adversarial-organiser-key-0123456789abcdef"

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def served(
    redis_url: str, signing_key_pem: str, data_dir: Path, **settings: str
) -> Iterator[tuple[str, int]]:
    """``agents-club serve`` (one worker) on a free loopback port, on its own Redis namespace;
    ``settings`` are extra environment variables. Yields ``(base_url, port)``; stops the
    server and drops its keys afterwards."""
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    port = free_port()
    env = server_env(redis_url, namespace, data_dir, signing_key_pem,
                     AGENTS_CLUB_ORGANISER_KEY=ORGANISER_KEY, **settings)
    log_path = data_dir / f"serve-{port}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "agents_club_cli.main", "serve", "--port", str(port),
             "--data-dir", str(data_dir)],
            stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
        )
        base_url = f"http://127.0.0.1:{port}"
        try:
            wait_until_ready(base_url, process, 30, log_path=log_path)
            yield base_url, port
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            client = redis.Redis.from_url(redis_url)
            try:
                keys = list(client.scan_iter(match=f"{namespace}:*", count=1000))
                if keys:
                    client.delete(*keys)
            finally:
                client.close()


PROXY_CONFIG = ROOT / "deploy" / "nginx.conf"


@contextmanager
def proxied(upstream_port: int, work_dir: Path, *, timeout_s: float,
            connections_per_address: int | None = None) -> Iterator[int]:
    """nginx with ``deploy/nginx.conf`` (the one compose.yaml puts in front) on a free loopback
    port, passing to the gateway on ``upstream_port``; its 10 s time limits become
    ``timeout_s``, and its keep-alive timeout too; ``connections_per_address``, when given,
    replaces its limit of open connections per address. Yields the proxy's port.

    Skips when nginx is not installed (CI installs it: ``.ci/run``), unless ``CI`` is set."""
    nginx = shutil.which("nginx") or next(
        (path for path in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(path).exists()), None)
    if nginx is None:
        if os.environ.get("CI"):
            pytest.fail("nginx is not installed (.ci/run installs it)")
        pytest.skip("nginx is not installed: the slow-client limits live in the proxy")
    port = free_port()
    site = PROXY_CONFIG.read_text()
    site = site.replace("server gateway:8000;", f"server 127.0.0.1:{upstream_port};")
    site = site.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    site = re.sub(r"(client_header_timeout|client_body_timeout|keepalive_timeout)(\s+)\d+s;",
                  rf"\1\g<2>{timeout_s:g}s;", site)
    if connections_per_address is not None:
        site = re.sub(r"limit_conn per_address(\s+)\d+;",
                      rf"limit_conn per_address\g<1>{connections_per_address};", site)
    work_dir.mkdir(parents=True, exist_ok=True)
    (work_dir / "site.conf").write_text(site)
    (work_dir / "nginx.conf").write_text(
        f"pid {work_dir}/nginx.pid;\nevents {{}}\nhttp {{\n  access_log off;\n"
        f"  client_body_temp_path {work_dir}/body;\n  proxy_temp_path {work_dir}/proxy;\n"
        f"  include {work_dir}/site.conf;\n}}\n")
    log_path = work_dir / "nginx.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [nginx, "-e", str(work_dir / "error.log"), "-p", str(work_dir),
             "-c", str(work_dir / "nginx.conf"), "-g", "daemon off;"],
            stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 10
            while True:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
                    break
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"nginx did not start: {log_path.read_text()}"
                                       f"{(work_dir / 'error.log').read_text()}")
                time.sleep(0.05)
            yield port
        finally:
            process.terminate()
            process.wait(timeout=10)
