"""A real ``agents-club serve`` on loopback for the probes that need the HTTP server itself
(its parser, its proxy handling, its connections), not an in-process client."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from agents_club_cli.serve import wait_until_ready
from gateway.embedded_redis import free_port

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
    env = {
        **{key: value for key, value in os.environ.items()
           if not key.startswith("AGENTS_CLUB_") and key != "FORWARDED_ALLOW_IPS"},
        "AGENTS_CLUB_ENVIRONMENT": "test",
        "REDIS_URL": redis_url,
        "AGENTS_CLUB_REDIS_NAMESPACE": namespace,
        "AGENTS_CLUB_DATA_DIR": str(data_dir),
        "AGENTS_CLUB_SIGNING_KEY_PEM": signing_key_pem,
        "AGENTS_CLUB_ORGANISER_KEY": ORGANISER_KEY,
        "AGENTS_CLUB_LOG_FORMAT": "text",
        "AGENTS_CLUB_LOG_LEVEL": "WARNING",
        **settings,
    }
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
