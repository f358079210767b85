"""Admission challenges and rate-limit windows in Redis.

Keys (under the app's namespace ``<ns>``)::

    <ns>:admission:challenge:<challenge_id>   hash: payload (the issued challenge with its
                                              expected answers, JSON), expires_at (Unix
                                              seconds, float), answered (set once)
    <ns>:rate:<bucket>:<subject>:<window>     string counter of one fixed window

A challenge hash outlives its expiry by ``keep_s`` seconds so a late or repeated
submission gets its own answer (``late``, ``answered``) instead of ``missing``.
The payload, which holds the expected answers, is deleted the moment the
challenge is answered: it never needs to be read twice.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Literal

from gateway.clock import Clock, wall_clock
from gateway.store.connection import Keys, RedisClient, decoded

__all__ = ["AdmissionStore", "ClaimResult", "RateDecision"]

# KEYS[1] the challenge hash; ARGV[1] now (Unix seconds).
# Returns {status} or {"ok", payload}. Atomic, so of two concurrent
# submissions exactly one reads the payload.
_CLAIM = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
if redis.call('HEXISTS', KEYS[1], 'answered') == 1 then return {'answered'} end
if tonumber(ARGV[1]) > tonumber(redis.call('HGET', KEYS[1], 'expires_at')) then
  return {'late'}
end
local payload = redis.call('HGET', KEYS[1], 'payload')
redis.call('HSET', KEYS[1], 'answered', ARGV[1])
redis.call('HDEL', KEYS[1], 'payload')
return {'ok', payload}
"""

# KEYS[1] the window's counter; ARGV[1] its lifetime (ms); ARGV[2] the units this hit counts.
# Returns the count after this hit; the first hit starts the key's expiry.
_HIT = """
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
"""

ClaimStatus = Literal["ok", "missing", "answered", "late"]


@dataclass(frozen=True)
class ClaimResult:
    """The outcome of claiming a challenge for grading; ``payload`` only when ``ok``."""

    status: ClaimStatus
    payload: str | None = None


@dataclass(frozen=True)
class RateDecision:
    """Whether a hit is within its limit, and when the window resets."""

    allowed: bool
    count: int
    retry_after: int
    """Whole seconds until the current window ends (at least 1)."""


class AdmissionStore:
    """Challenges (saved once, claimed once) and fixed-window rate limits."""

    def __init__(self, redis: RedisClient, keys: Keys, clock: Clock = wall_clock) -> None:
        self.redis = redis
        self.keys = keys
        self.clock = clock
        """What decides expiry and rate windows (the app's clock, :mod:`gateway.clock`)."""
        self._claim = redis.register_script(_CLAIM)
        self._hit = redis.register_script(_HIT)

    def _challenge_key(self, challenge_id: str) -> str:
        return self.keys.global_("admission", "challenge", challenge_id)

    async def save_challenge(
        self, challenge_id: str, payload: str, *, expires_at: float, keep_s: int
    ) -> None:
        """Store a new challenge; the key lives until ``expires_at + keep_s``."""
        key = self._challenge_key(challenge_id)
        lifetime_ms = max(1, math.ceil((expires_at - self.clock() + keep_s) * 1000))
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping={"payload": payload, "expires_at": repr(expires_at)})
            pipe.pexpire(key, lifetime_ms)
            await pipe.execute()

    async def peek_challenge(self, challenge_id: str) -> str | None:
        """A challenge's payload while it may still be answered (not answered, not late),
        without claiming it; ``None`` otherwise (the claim then says why). The payload
        never changes, so a check made on it still holds at the claim."""
        moment = self.clock()
        payload, expires_at, answered = await self.redis.hmget(
            self._challenge_key(challenge_id), ["payload", "expires_at", "answered"])
        if payload is None or expires_at is None or answered is not None:
            return None
        return None if moment > float(expires_at) else decoded(payload)

    async def claim_challenge(self, challenge_id: str) -> ClaimResult:
        """Take a challenge for grading: only the first in-time claim gets its payload."""
        moment = self.clock()
        reply = await self._claim(keys=[self._challenge_key(challenge_id)], args=[repr(moment)])
        status = decoded(reply[0])
        if status == "ok":
            return ClaimResult("ok", decoded(reply[1]))
        assert status in ("missing", "answered", "late"), status
        return ClaimResult(status)  # type: ignore[arg-type]

    async def hit(
        self, bucket: str, subject: str, *, limit: int, window_s: int, units: int = 1
    ) -> RateDecision:
        """Count a request of ``subject`` as ``units`` in ``bucket``'s current fixed window.

        The subject (an address, a name, an agent id) is hashed into the key so
        no caller-chosen text ends up in a key name.
        """
        moment = self.clock()
        window = int(moment // window_s)
        digest = hashlib.blake2b(subject.encode(), digest_size=12).hexdigest()
        key = self.keys.global_("rate", bucket, digest, str(window))
        count = int(await self._hit(keys=[key], args=[window_s * 1000 + 1000, units]))
        retry_after = max(1, math.ceil((window + 1) * window_s - moment))
        return RateDecision(allowed=count <= limit, count=count, retry_after=retry_after)
