"""Fixtures shared by the whole suite.

Redis: tests talk to a real server. ``REDIS_URL`` wins when set; otherwise the
machine's server on 127.0.0.1:6379 is used when it answers; otherwise the suite
starts a private ``redis-server`` (see :mod:`agents_club_cli.embedded_redis`) for the
session. Each test gets its own key namespace, removed afterwards, so test
runs (even concurrent ones) never see each other's keys.

Redis Cluster: a test (or module) marked ``pytest.mark.redis_cluster`` that uses
``redis_url`` runs twice: on the single Redis, and on a local cluster of 3 primaries
and 3 replicas (``redis_cluster``, started once per session on free ports by
:class:`agents_club_cli.local_cluster.LocalCluster`; each test's keys live in its own
namespace, deleted afterwards, so one cluster serves them all). The cluster runs
are on by default; ``AGENTS_CLUB_CLUSTER_TESTS=0`` turns them off (a quick local
run), and they are skipped, loudly, when redis-server or redis-cli is missing.
Each cluster run ends with a garbage collection, so a connection left open shows
as a ``ResourceWarning`` (an error here) in the test that left it, not in whichever
test the collector happens to run in later. Mark what touches Redis in a way no
other cluster run covers: the slot test (``test_cluster_slots.py``) already runs
every script and one-round-trip read on the cluster, so the doubled HTTP tests are
a few per area (tables, actions, clocks, house bots, admission, rate limits,
tournaments, held waits), not whole modules of them.
"""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import redis

from agents_club_cli.embedded_redis import EmbeddedRedis, free_port, redis_answers
from agents_club_cli.local_cluster import LocalCluster, cluster_tools_missing
from gateway.store.connection import is_cluster_url


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "redis_cluster: run the module's Redis tests on a local Redis Cluster too")
    config.addinivalue_line(
        "markers", "managed_redis: run the module's Redis tests on a Redis without CONFIG too")


CLUSTER_TESTS = os.environ.get("AGENTS_CLUB_CLUSTER_TESTS", "1") != "0"
"""Whether the Redis Cluster runs are on (see the module docstring)."""

CLUSTER_OFF = "NO REDIS CLUSTER TESTS: AGENTS_CLUB_CLUSTER_TESTS=0 turned them off"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests of ``redis_cluster`` and ``managed_redis`` modules that use Redis run on each
    backend."""
    if "redis_url" not in metafunc.fixturenames:
        return
    backends = ["single"]
    if metafunc.definition.get_closest_marker("managed_redis") is not None:
        backends.append("managed")
    if CLUSTER_TESTS and metafunc.definition.get_closest_marker("redis_cluster") is not None:
        backends.append("cluster")
    if len(backends) > 1:
        metafunc.parametrize("redis_backend", backends, indirect=True, scope="session")


@pytest.fixture(scope="session")
def redis_backend(request: pytest.FixtureRequest) -> str:
    """``single`` (the default), ``managed`` or ``cluster``: which Redis ``redis_url`` names."""
    backend: str = getattr(request, "param", "single")
    return backend


@pytest.fixture(autouse=True)
def _no_local_server_keys(tmp_path_factory: pytest.TempPathFactory,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test sees an empty data directory of its own: the CLI falls back to the key
    files a local ``agents-club serve`` wrote (``.data`` in the working directory), and a
    newcomer who ran the README's serve command in the checkout must not have the suite
    send that server's organiser key to a test's gateway."""
    monkeypatch.setenv("AGENTS_CLUB_DATA_DIR", str(tmp_path_factory.mktemp("data")))


@pytest.fixture(autouse=True)
def _collect_after_a_cluster_run(request: pytest.FixtureRequest) -> Iterator[None]:
    """A cluster run ends with a full collection (see the module docstring)."""
    yield
    if "redis_cluster" in request.fixturenames or (
            "redis_backend" in request.fixturenames
            and request.getfixturevalue("redis_backend") == "cluster"):
        gc.collect()


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[LocalCluster]:
    """A local Redis Cluster (3 primaries, 3 replicas, node timeout 1 s) for the session."""
    if not CLUSTER_TESTS:
        pytest.skip(CLUSTER_OFF)
    missing = cluster_tools_missing()
    if missing is not None:
        pytest.skip(f"NO REDIS CLUSTER TESTS: {missing}")
    with (
        tempfile.TemporaryDirectory(prefix="agents-club-cluster-") as data_dir,
        # Its nodes refuse CONFIG, as managed services do: the gateway must not need it.
        LocalCluster(Path(data_dir), server_args=("--rename-command", "CONFIG", "")) as cluster,
    ):
        yield cluster


@pytest.fixture(scope="session")
def managed_redis() -> Iterator[str]:
    """The URL of a private ``redis-server`` with ``CONFIG`` renamed away, as managed Redis
    services have it (the local cluster's nodes have it so too)."""
    if shutil.which("redis-server") is None:
        pytest.skip("NO MANAGED-REDIS TESTS: redis-server is not on PATH")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="agents-club-managed-") as data_dir:
        server = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", data_dir, "--rename-command", "CONFIG", ""],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            give_up = time.monotonic() + 15
            while not redis_answers("127.0.0.1", port):
                assert time.monotonic() < give_up, "the managed redis-server did not start"
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            server.terminate()
            server.wait(10)


@pytest.fixture(scope="session")
def redis_url(redis_backend: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """URL of a real Redis server for this test session (a ``redis+cluster://`` URL
    for the ``cluster`` backend)."""
    if redis_backend == "cluster":
        cluster: LocalCluster = request.getfixturevalue("redis_cluster")
        yield cluster.url
        return
    if redis_backend == "managed":
        yield request.getfixturevalue("managed_redis")
        return
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
    drop_namespace(redis_url, namespace)


def server_env(redis_url: str, namespace: str, data_dir: Path, signing_key_pem: str,
               **settings: str) -> dict[str, str]:
    """The environment of a gateway process a test starts: this one's, less its own
    ``AGENTS_CLUB_`` settings, plus a test gateway on ``namespace`` with text logs at
    WARNING; ``settings`` (``AGENTS_CLUB_...`` names) added last."""
    return {
        **{key: value for key, value in os.environ.items()
           if not key.startswith("AGENTS_CLUB_") and key != "FORWARDED_ALLOW_IPS"},
        "AGENTS_CLUB_ENVIRONMENT": "test",
        "REDIS_URL": redis_url,
        "AGENTS_CLUB_REDIS_NAMESPACE": namespace,
        "AGENTS_CLUB_DATA_DIR": str(data_dir),
        "AGENTS_CLUB_SIGNING_KEY_PEM": signing_key_pem,
        "AGENTS_CLUB_LOG_FORMAT": "text",
        "AGENTS_CLUB_LOG_LEVEL": "WARNING",
        **settings,
    }


def drop_namespace(url: str, namespace: str) -> None:
    """Delete every key of ``namespace`` (on every primary of a cluster)."""
    if is_cluster_url(url):
        _drop_cluster_namespace(url, namespace)
        return
    client = redis.Redis.from_url(url)
    try:
        batch = list(client.scan_iter(match=f"{namespace}:*", count=1000))
        if batch:
            client.delete(*batch)
    finally:
        client.close()


def _drop_cluster_namespace(url: str, namespace: str) -> None:
    """Delete a test namespace's keys on every primary of a cluster."""
    cluster = _sync_cluster(url)
    try:
        for node in cluster.get_primaries():  # type: ignore[no-untyped-call]  # unannotated in redis-py
            keys = list(cluster.scan_iter(match=f"{namespace}:*", count=1000, target_nodes=node))
            for key in keys:
                cluster.delete(key)
    finally:
        cluster.close()


def sync_client(url: str) -> redis.Redis | redis.RedisCluster:
    """A blocking client for ``url`` (a ``RedisCluster`` for a ``redis+cluster://`` URL),
    for a test to peek at or poke the server as another process would."""
    if is_cluster_url(url):
        return _sync_cluster(url)
    return redis.Redis.from_url(url)


def _sync_cluster(url: str) -> redis.RedisCluster:
    """A blocking cluster client whose ``close()`` closes its connections.

    Not ``RedisCluster.from_url``: that one hands each node's ``Redis`` a pool it
    made itself, which ``close()`` then leaves open (a ``Redis`` closes only a pool
    it created: redis/redis-py#2901), so the sockets waited for the collector.
    """
    node = urlsplit(url)
    return redis.RedisCluster(host=node.hostname or "127.0.0.1", port=node.port or 6379)
