"""Fixtures shared by the whole suite.

Redis: tests talk to a real server. ``REDIS_URL`` wins when set; otherwise the
machine's server on 127.0.0.1:6379 is used when it answers; otherwise the suite
starts a private ``redis-server`` (see :mod:`gateway.embedded_redis`) for the
session. Each test gets its own key namespace, removed afterwards, so test
runs (even concurrent ones) never see each other's keys.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from gateway.embedded_redis import EmbeddedRedis, redis_answers


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of a real Redis server for this test session."""
    explicit = os.environ.get("REDIS_URL")
    if explicit:
        yield explicit
        return
    if redis_answers("127.0.0.1", 6379):
        yield "redis://127.0.0.1:6379/0"
        return
    with (
        tempfile.TemporaryDirectory(prefix="agents-club-redis-") as data_dir,
        EmbeddedRedis(Path(data_dir), persistent=False) as server,
    ):
        yield server.url


@pytest.fixture()
def redis_namespace(redis_url: str) -> Iterator[str]:
    """A fresh key namespace for one test; its keys are deleted afterwards."""
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    yield namespace
    client = redis.Redis.from_url(redis_url)
    try:
        batch = list(client.scan_iter(match=f"{namespace}:*", count=1000))
        if batch:
            client.delete(*batch)
    finally:
        client.close()
