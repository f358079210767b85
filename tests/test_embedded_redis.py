"""The embedded Redis really starts, persists with AOF, and stops."""

from pathlib import Path

import redis

from gateway.embedded_redis import EmbeddedRedis, redis_answers


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
