"""What a Redis outage looks like to the gateway: the client errors that mean "Redis does not
answer now" (down, refusing connections, timing out, loading its data, or a read-only replica
after a failover), as opposed to a bug in a command.

The app answers these with 503 ``server/unavailable`` and ``Retry-After`` instead of 500, and
the background loops back off on them (:func:`gateway.services.runtime.run_rounds`).
"""

from __future__ import annotations

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ReadOnlyError, RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from gateway.store.connection import RedisClient

__all__ = ["REDIS_UNAVAILABLE", "ping"]

REDIS_UNAVAILABLE: tuple[type[Exception], ...] = (
    RedisConnectionError,  # also BusyLoadingError and AuthenticationError
    RedisTimeoutError,
    ReadOnlyError,
)
"""Exceptions raised when Redis cannot serve a command at the moment."""


async def ping(redis: RedisClient) -> bool:
    """True when Redis answers ``PING``; False on any connection or server error."""
    try:
        return bool(await redis.ping())
    except (RedisError, OSError):
        return False
