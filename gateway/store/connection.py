"""The Redis client and the key builder every store module shares.

Keys live under a namespace (``ac`` by default; tests use one per test) and
keys that belong to one table share a hash tag, so a Redis Cluster keeps a
table on one slot: ``<ns>:t:{<table_id>}:state``.
"""

from __future__ import annotations

from collections.abc import Iterable

import redis.asyncio as aioredis

__all__ = [
    "Keys",
    "RedisClient",
    "connect",
    "decoded",
    "decoded_members",
    "decoded_scores",
    "stream_entries",
]

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


# Reply helpers. redis-py types a reply as what any client configuration could
# answer (``bytes | str``, RESP2 lists or RESP3 maps). The client of ``connect``
# answers RESP2 without decoding, so replies are bytes; these narrow them once.


def decoded(raw: bytes | str) -> str:
    """A reply's bytes as text (a str, from a decoding client, passes through)."""
    return raw.decode() if isinstance(raw, bytes) else raw


def _member(raw: object) -> str:
    if isinstance(raw, bytes | str):
        return decoded(raw)
    raise TypeError(f"expected a sorted-set member, got {type(raw).__name__}")


def decoded_members(reply: Iterable[object]) -> list[str]:
    """The members of a sorted-set range read without scores, as text, in order."""
    return [_member(raw) for raw in reply]


def decoded_scores(reply: Iterable[object]) -> dict[str, float]:
    """A sorted-set range read ``withscores=True``: each member as text -> its score, in order."""
    scores: dict[str, float] = {}
    for row in reply:
        if not isinstance(row, tuple | list):
            raise TypeError(f"expected a (member, score) pair, got {type(row).__name__}")
        member, score = row
        scores[_member(member)] = float(score)
    return scores


def stream_entries(reply: object) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """The entries of an ``XREAD`` reply, stream after stream, oldest first.

    RESP2 answers ``[[stream, [(entry_id, {field: value}), ...]], ...]``, or
    nothing (None) when no entry came before the block ran out.
    """
    if reply is None:
        return []
    if not isinstance(reply, list):
        raise TypeError(f"expected XREAD's RESP2 list, got {type(reply).__name__}")
    return [entry for _stream, entries in reply for entry in entries]
