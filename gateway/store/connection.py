"""The Redis client and the key builder every store module shares.

Keys live under a namespace (``ac`` by default; tests use one per test) and
keys that belong to one table share a hash tag, so a Redis Cluster keeps a
table on one slot: ``<ns>:t:{<table_id>}:state``.
"""

from __future__ import annotations

import redis.asyncio as aioredis

__all__ = ["Keys", "RedisClient", "connect"]

RedisClient = aioredis.Redis
"""The asyncio client type, for annotations outside the store (which must not import redis)."""


class Keys:
    """Builds every Redis key of one namespace."""

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace

    def table(self, table_id: str, part: str) -> str:
        """A key of one table (``state``, ``events``, ``seen:<key>``, ...)."""
        return f"{self.namespace}:t:{{{table_id}}}:{part}"

    def global_(self, *parts: str) -> str:
        """A key outside any table (``tables:open``, ``clock``, ``agent:<id>`` ...)."""
        return ":".join((self.namespace, *parts))


def connect(url: str) -> aioredis.Redis:
    """An asyncio Redis client for ``url`` (responses as bytes; callers decode)."""
    # socket_timeout=None: redis-py 6+ defaults to 5 s, which breaks every blocking XREAD
    # (long-poll waits up to long_poll_max_wait_s, SSE blocks 15 s between keep-alives).
    return aioredis.Redis.from_url(url, health_check_interval=30, socket_timeout=None)
