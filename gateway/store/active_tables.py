"""Each agent's unfinished tables: the set the per-agent table cap counts.

Key (outside any table, so never touched by the per-table commit script):

* ``tables:active:<agent_id>`` — sorted set: id of a table the agent created
  and that has not finished -> when it was reserved (epoch seconds).

A create reserves its table id here *before* it writes the table, with one
script that checks the size and adds in a single step, so concurrent creates
on any number of workers can never pass the cap together (a count followed by
an add would let two of them both see "one below the limit"). Finishing or
abandoning a table removes it; a member whose removal was lost (a worker died
in between) is pruned by the service when the agent reaches the cap.
"""

from __future__ import annotations

from gateway.store.connection import Keys, RedisClient, decoded_scores

__all__ = ["ActiveTableStore"]

# KEYS[1]  tables:active:<agent>
# ARGV[1]  table id; ARGV[2] the cap; ARGV[3] now (the member's score)
# Returns 1 when the id was added (or was already there), 0 at the cap.
_RESERVE_LUA = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
"""


class ActiveTableStore:
    """The Redis side of the per-agent cap on unfinished tables."""

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self._reserve = redis.register_script(_RESERVE_LUA)

    def _key(self, agent_id: str) -> str:
        return self.keys.global_("tables", "active", agent_id)

    async def reserve(self, agent_id: str, table_id: str, limit: int, now: float) -> bool:
        """Count ``table_id`` against ``agent_id`` unless that would exceed ``limit``.

        Atomic: of many concurrent reservations at ``limit - 1``, exactly one succeeds.
        """
        added = await self._reserve(keys=[self._key(agent_id)], args=[table_id, limit, repr(now)])
        return bool(added)

    async def release(self, agent_id: str, *table_ids: str) -> None:
        """Stop counting ``table_ids`` against ``agent_id`` (idempotent)."""
        if table_ids:
            await self.redis.zrem(self._key(agent_id), *table_ids)

    async def members(self, agent_id: str) -> dict[str, float]:
        """The tables counted against ``agent_id``, oldest first, with their reservation times."""
        rows = await self.redis.zrange(self._key(agent_id), 0, -1, withscores=True)
        return decoded_scores(rows)
