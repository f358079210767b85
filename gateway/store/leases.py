"""Leased claims on a sorted set of due members: the two scripts every leased loop shares.

A sorted set scores each member (a table whose turn clock runs, a table whose
house bot must act, a tournament to drive, a rated table for the ladder) by
when it is due. A worker claims the due ones by moving their score to its
lease end, so other workers skip them until then; when done it releases each,
re-scheduling it or removing it, unless someone re-scheduled it meanwhile. A
worker that dies mid-lease only delays its members until the lease ends.
"""

from __future__ import annotations

__all__ = ["CLAIM_DUE_LUA", "RELEASE_CLAIM_LUA"]

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
