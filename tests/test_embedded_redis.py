"""The embedded Redis really starts, persists with AOF, and stops."""

import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from agents_club_cli.embedded_redis import EmbeddedRedis, redis_answers


def test_embedded_server_keeps_data_across_restarts(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path, persistent=True) as server:
        client = redis.Redis.from_url(server.url)
        client.set("greeting", "hello")
        client.close()
        port = server.port
    assert not redis_answers("127.0.0.1", port)
    with EmbeddedRedis(tmp_path, persistent=True) as server:
        client = redis.Redis.from_url(server.url)
        assert client.get("greeting") == b"hello"
        client.close()


def test_a_killed_parent_takes_its_redis_server_down(tmp_path: Path) -> None:
    """A gateway killed with SIGKILL cannot stop its embedded Redis: the kernel does (Linux)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the parent-death signal is Linux's")
    script = (
        "import sys, time; from pathlib import Path\n"
        "from agents_club_cli.embedded_redis import EmbeddedRedis\n"
        f"server = EmbeddedRedis(Path({str(tmp_path)!r}), persistent=False).start()\n"
        "print(server.port, flush=True)\n"
        "time.sleep(60)\n"
    )
    with subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                          cwd=Path(__file__).resolve().parents[1]) as parent:
        assert parent.stdout is not None
        port = int(parent.stdout.readline())
        assert redis_answers("127.0.0.1", port)
        parent.kill()
    deadline = time.monotonic() + 10
    while redis_answers("127.0.0.1", port) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not redis_answers("127.0.0.1", port)
