"""Shared metric totals and the readiness ping.

Keys (under the app's namespace ``<ns>``)::

    <ns>:metrics      hash: Prometheus sample (name + labels) -> running total

Workers add their pending increments with one pipelined ``HINCRBYFLOAT`` per
sample (see :mod:`gateway.metrics` for why totals live in Redis).
"""

from __future__ import annotations

from redis.exceptions import RedisError

from gateway.store.connection import Keys, RedisClient, decoded

__all__ = ["MetricsStore", "ping"]


class MetricsStore:
    """The cluster-wide metric totals of one namespace."""

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.key = keys.global_("metrics")

    async def add(self, increments: dict[str, float]) -> None:
        """Add each increment to its running total (one round trip)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for field, value in increments.items():
                pipe.hincrbyfloat(self.key, field, value)
            await pipe.execute()

    async def totals(self) -> dict[str, float]:
        """Every running total."""
        raw = await self.redis.hgetall(self.key)
        return {decoded(field): float(value) for field, value in raw.items()}


async def ping(redis: RedisClient) -> bool:
    """True when Redis answers ``PING``; False on any connection or server error."""
    try:
        return bool(await redis.ping())
    except (RedisError, OSError):
        return False
