"""The public rated queue in Redis: who waits for a rated table, and the draws that seat them.

Keys of one game's queue share the hash tag ``{<game>}``, so every script touches one slot::

    <ns>:rq:{<game>}:pool:<mode>:<seats>   sorted set: agent id -> when it joined
    <ns>:rq:{<game>}:tickets               hash: agent id -> its ticket (JSON: agent, name,
                                           address, mode, seats, joined_at, status,
                                           table_id, seat)
    <ns>:rq:{<game>}:draws                 hash: table id -> a drawn table not written yet
                                           (JSON: seating [[agent, name], ...], seed, mode)

A ticket is ``waiting`` in one pool of its game at a time, then ``seated`` (a draw put
it at ``table_id``), ``expired`` (it waited ``rated_queue_wait_s`` without a draw) or
``left``. A draw moves agents from the pool to one table in one script, so no agent is
seated twice and none is lost whatever worker runs it; the table itself is written after
(by the drawing worker, or by any worker that reads a seated ticket whose table is still in
``draws``: the table's write is a compare-and-set on version -1, so it happens once).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gateway.store.connection import Keys, RedisClient, decoded, round_trip
from gateway.store.table_rows import no_errors
from gateway.store.waits import publish_command

__all__ = ["RatedQueueStore"]

# Puts an agent in a pool (moving it out of the pool it waited in before, if another).
#
# KEYS[1] the game's tickets; KEYS[2] the pool joined
# ARGV[1] agent id; ARGV[2] the new ticket (JSON, status waiting); ARGV[3] now;
# ARGV[4] the pool key prefix (a waiting ticket's pool is prefix .. mode .. ':' .. seats)
# Returns the agent's ticket (its earlier one when it already waits in this pool).
_JOIN_LUA = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then
  local ticket = cjson.decode(old)
  if ticket.status == 'waiting' then
    local pool = ARGV[4] .. ticket.mode .. ':' .. ticket.seats
    if pool == KEYS[2] and redis.call('ZSCORE', KEYS[2], ARGV[1]) then return old end
    redis.call('ZREM', pool, ARGV[1])
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return ARGV[2]
"""

# Takes a waiting agent out of its pool.
#
# KEYS[1] the game's tickets; ARGV[1] agent id; ARGV[2] the pool key prefix
# Returns the ticket as it is now (status left when it was waiting), or nil without one.
_LEAVE_LUA = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return nil end
local ticket = cjson.decode(raw)
if ticket.status ~= 'waiting' then return raw end
redis.call('ZREM', ARGV[2] .. ticket.mode .. ':' .. ticket.seats, ARGV[1])
ticket.status = 'left'
raw = cjson.encode(ticket)
redis.call('HSET', KEYS[1], ARGV[1], raw)
return raw
"""

# Expires the pool's stale entries, then, once its oldest entry has waited the gathering
# time, seats its agents at random: the pool is ordered by a keyed hash of each agent id
# under a fresh secret salt, and each table takes, in that order, the first agents whose
# addresses differ from those already at it. Agents left over wait for the next draw.
#
# KEYS[1] the game's tickets; KEYS[2] the pool; KEYS[3] the game's draws
# ARGV[1] seats; ARGV[2] gathered when the oldest joined before this; ARGV[3] expire
# entries that joined before this; ARGV[4] salt; ARGV[5] N, then N pairs (table id, seed)
# Returns the ids of the tables drawn now (at most N).
_DRAW_LUA = """
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[3])
for _, agent in ipairs(stale) do
  redis.call('ZREM', KEYS[2], agent)
  local raw = redis.call('HGET', KEYS[1], agent)
  if raw then
    local ticket = cjson.decode(raw)
    if ticket.status == 'waiting' then
      ticket.status = 'expired'
      redis.call('HSET', KEYS[1], agent, cjson.encode(ticket))
    end
  end
end
local seats = tonumber(ARGV[1])
local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if #oldest == 0 or tonumber(oldest[2]) > tonumber(ARGV[2]) then return {} end
if redis.call('ZCARD', KEYS[2]) < seats then return {} end
local order = {}
for _, agent in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  local raw = redis.call('HGET', KEYS[1], agent)
  if raw then
    order[#order + 1] = {redis.sha1hex(ARGV[4] .. agent), cjson.decode(raw)}
  else
    redis.call('ZREM', KEYS[2], agent)
  end
end
table.sort(order, function(a, b) return a[1] < b[1] end)
local drawn, used = {}, {}
for c = 1, tonumber(ARGV[5]) do
  local picked, addresses = {}, {}
  for _, entry in ipairs(order) do
    local ticket = entry[2]
    if #picked < seats and not used[ticket.agent] and not addresses[ticket.address] then
      picked[#picked + 1] = ticket
      addresses[ticket.address] = true
    end
  end
  if #picked < seats then break end
  local table_id = ARGV[4 + 2 * c]
  local seating = {}
  for seat, ticket in ipairs(picked) do
    used[ticket.agent] = true
    redis.call('ZREM', KEYS[2], ticket.agent)
    ticket.status = 'seated'
    ticket.table_id = table_id
    ticket.seat = seat - 1
    redis.call('HSET', KEYS[1], ticket.agent, cjson.encode(ticket))
    seating[seat] = {ticket.agent, ticket.name}
  end
  redis.call('HSET', KEYS[3], table_id, cjson.encode(
    {seating = seating, seed = ARGV[5 + 2 * c], mode = picked[1].mode}))
  drawn[#drawn + 1] = table_id
end
return drawn
"""


class RatedQueueStore:
    """Every Redis operation on the rated queue (cheap to build: a client and the key builder)."""

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self._join = redis.register_script(_JOIN_LUA)
        self._leave = redis.register_script(_LEAVE_LUA)
        self._draw = redis.register_script(_DRAW_LUA)

    def _key(self, game: str, *parts: str) -> str:
        return self.keys.global_("rq", f"{{{game}}}", *parts)

    def _pool_prefix(self, game: str) -> str:
        return self._key(game, "pool", "")

    def _pool(self, game: str, mode: str, seats: int) -> str:
        return self._pool_prefix(game) + f"{mode}:{seats}"

    def seated_key(self, game: str, agent_id: str) -> str:
        """What a held wait for ``agent_id``'s draw watches (published when it is seated)."""
        return self._key(game, "seated", agent_id)

    async def join(self, game: str, ticket: dict[str, Any], now: float) -> dict[str, Any]:
        """Put ``ticket['agent']`` in the pool of the ticket's mode and seats; the agent's
        ticket as it is after (its earlier one when it already waits in that pool)."""
        raw = await self._join(
            keys=[self._key(game, "tickets"), self._pool(game, ticket["mode"], ticket["seats"])],
            args=[ticket["agent"], json.dumps(ticket), repr(now), self._pool_prefix(game)])
        answer: dict[str, Any] = json.loads(decoded(raw))
        return answer

    async def leave(self, game: str, agent_id: str) -> dict[str, Any] | None:
        """Take the agent out of its pool (a ticket not waiting stays as it is)."""
        raw = await self._leave(keys=[self._key(game, "tickets")],
                                args=[agent_id, self._pool_prefix(game)])
        return None if raw is None else dict(json.loads(decoded(raw)))

    async def ticket(self, game: str, agent_id: str) -> dict[str, Any] | None:
        """The agent's ticket for ``game``, or None."""
        raw = await self.redis.hget(self._key(game, "tickets"), agent_id)
        return None if raw is None else dict(json.loads(decoded(raw)))

    async def waiting(self, game: str, mode: str, seats: int) -> int:
        """How many agents wait in one pool."""
        return int(await self.redis.zcard(self._pool(game, mode, seats)))

    async def draw(
        self, game: str, mode: str, seats: int, *, gathered_before: float,
        expire_before: float, salt: str, tables: Sequence[tuple[str, int]],
    ) -> list[str]:
        """Seat the pool's agents at random at up to ``len(tables)`` tables (each a
        table id and its secret seed); the ids of the tables drawn."""
        args: list[str | int] = [seats, repr(gathered_before), repr(expire_before), salt,
                                 len(tables)]
        for table_id, seed in tables:
            args += [table_id, str(seed)]
        drawn = await self._draw(keys=[self._key(game, "tickets"), self._pool(game, mode, seats),
                                       self._key(game, "draws")], args=args)
        return [decoded(table_id) for table_id in drawn]

    async def drawn_table(self, game: str, table_id: str) -> dict[str, Any] | None:
        """A drawn table still to be written, or None (written already, or never drawn)."""
        raw = await self.redis.hget(self._key(game, "draws"), table_id)
        return None if raw is None else dict(json.loads(decoded(raw)))

    async def written(self, game: str, table_id: str, agents: Sequence[str]) -> None:
        """Forget a drawn table once it is written, and wake its agents' held waits."""
        await self.redis.hdel(self._key(game, "draws"), table_id)
        if agents:
            command = publish_command(self.redis)
            no_errors(await round_trip(
                self.redis, *((command, self.seated_key(game, agent), "seated") for agent in agents),
                key=self.seated_key(game, agents[0])))
