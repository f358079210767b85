"""Leased claims on a sorted set of due members: what every leased loop shares.

A sorted set scores each member (a table whose turn clock runs, a table whose
house bot must act, a tournament to drive, a rated table for the ladder) by
when it is due. A worker claims the due ones by moving their score to its
lease end, so other workers skip them until then; when done it releases each,
re-scheduling it or removing it, unless someone re-scheduled it meanwhile. A
worker that dies mid-lease only delays its members until the lease ends.
"""

from __future__ import annotations

from collections.abc import Sequence

from gateway.store.connection import RedisClient, decoded

__all__ = ["CLAIM_DUE_LUA", "RELEASE_CLAIM_LUA", "Leases"]

CLAIM_DUE_LUA = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[2], member)
end
return due
"""
"""Claims the due members for one worker: each due member's score moves to the lease end.

KEYS[1]  the sorted set
ARGV[1]  now (epoch seconds); ARGV[2] lease end; ARGV[3] at most this many
Returns the claimed members.
"""

RELEASE_CLAIM_LUA = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then
  return 0
end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
"""
"""Releases a claim: only if nobody re-scheduled the member since (its score is still the
lease end), sets it to the next due time or removes it.

KEYS[1]  the sorted set
ARGV[1]  member; ARGV[2] our lease end; ARGV[3] next due time, "" to remove
Returns 1 when released, 0 when someone else re-scheduled it meanwhile.
"""


class Leases:
    """Claims and releases on the sorted sets of the leased loops (one per app's client)."""

    def __init__(self, redis: RedisClient) -> None:
        self.redis = redis
        self._release = redis.register_script(RELEASE_CLAIM_LUA)

    async def claim(
        self, indexes: Sequence[str], now: float, lease_end: float, limit: int
    ) -> list[str]:
        """Claim the members due by ``now`` until ``lease_end`` over ``indexes`` (one sorted
        set, or every bucket's share of one index): at most ``limit`` from one set,
        ``limit`` split over several (at least one each), all asked at once."""
        each = max(1, -(-limit // len(indexes)))
        # EVAL, not EVALSHA, in one pipeline (one round trip per primary): a short script,
        # and no script cache to fill on each primary first.
        async with self.redis.pipeline(transaction=False) as pipe:
            for index in indexes:
                pipe.eval(CLAIM_DUE_LUA, 1, index, repr(now), repr(lease_end), each)
            shares = await pipe.execute()
        return [decoded(member) for claimed in shares for member in claimed]

    async def release(
        self, index: str, member: str, lease_end: float, next_due: float | None
    ) -> bool:
        """Release ``member``'s claim on ``index``, re-scheduling it at ``next_due``
        (``None``: remove it); False when someone re-scheduled it meanwhile."""
        released = await self._release(
            keys=[index], args=[member, repr(lease_end), "" if next_due is None else repr(next_due)])
        return bool(released)
