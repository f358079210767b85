"""The public rated queue in Redis: who waits for a rated table, and the draws that seat them.

Keys of one game's queue share the hash tag ``{<game>}``, so the script touches one slot::

    <ns>:rq:{<game>}:pool      sorted set: agent id -> when it joined (every waiting ticket
                               of the game, whatever its mode and seats)
    <ns>:rq:{<game>}:tickets   hash: agent id -> its ticket (JSON: agent, name, address,
                               mode, seats, joined_at, status, table_id, seat)
    <ns>:rq:{<game>}:draws     hash: table id -> a drawn table not written yet
                               (JSON: seating [[agent, name], ...], seed, mode)

A ticket is ``waiting`` (in the pool) for one mode and number of seats at a time, then
``seated`` (a draw put it at ``table_id``), ``expired`` (it waited ``rated_queue_wait_s``
without a draw) or ``left``. A draw moves agents from the pool to one table in one script,
so no agent is seated twice and none is lost whatever worker runs it; the table itself is
written after (by the drawing worker, or by any worker that reads a seated ticket whose
table is still in ``draws``: the table's write is a compare-and-set on version -1, so it
happens once).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from gateway.store.connection import Keys, RedisClient, decoded, round_trip
from gateway.store.table_rows import no_errors
from gateway.store.waits import publish_command

__all__ = ["RatedQueueStore"]

# One look at an agent's ticket: join (or keep the place when it already waits for the same
# table), leave, or only look; then, while it waits, expire the pool's stale entries and,
# once the oldest entry for its mode and seats has waited the gathering time, seat those
# entries at random: they are ordered by a keyed hash of each agent id under a fresh secret
# salt, and each table takes, in that order, the first agents whose addresses differ from
# those already at it. Agents left over wait for the next draw.
#
# KEYS[1] the game's tickets; KEYS[2] its pool; KEYS[3] its draws
# ARGV[1] agent id; ARGV[2] 'join', 'leave' or 'look'; ARGV[3] the new ticket (join: JSON,
# status waiting); ARGV[4] now; ARGV[5] gathered when the oldest joined before this;
# ARGV[6] expire entries that joined before this; ARGV[7] salt; ARGV[8] N, then N pairs
# (table id, seed)
# Returns nil without a ticket, else {the ticket as it is after, how many wait for its mode
# and seats, the ids of the tables drawn now (at most N)...}.
_TICKET_LUA = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[2] == 'join' then
  local new = cjson.decode(ARGV[3])
  local old = raw and cjson.decode(raw)
  if not (old and old.mode == new.mode and old.seats == new.seats
          and redis.call('ZSCORE', KEYS[2], ARGV[1])) then
    raw = ARGV[3]
    redis.call('HSET', KEYS[1], ARGV[1], raw)
    redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
  end
end
if not raw then return nil end
local me = cjson.decode(raw)
if ARGV[2] == 'leave' and me.status == 'waiting' then
  redis.call('ZREM', KEYS[2], ARGV[1])
  me.status = 'left'
  raw = cjson.encode(me)
  redis.call('HSET', KEYS[1], ARGV[1], raw)
end
local drawing = me.status == 'waiting'
if drawing then
  for _, agent in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[6])) do
    redis.call('ZREM', KEYS[2], agent)
    local stale = redis.call('HGET', KEYS[1], agent)
    if stale then
      local ticket = cjson.decode(stale)
      if ticket.status == 'waiting' then
        ticket.status = 'expired'
        redis.call('HSET', KEYS[1], agent, cjson.encode(ticket))
      end
    end
  end
end
local pool, oldest = {}, nil
local entries = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
for i = 1, #entries, 2 do
  local stored = redis.call('HGET', KEYS[1], entries[i])
  if stored then
    local ticket = cjson.decode(stored)
    if ticket.mode == me.mode and ticket.seats == me.seats then
      pool[#pool + 1] = ticket
      oldest = oldest or tonumber(entries[i + 1])
    end
  else
    redis.call('ZREM', KEYS[2], entries[i])
  end
end
local seats = tonumber(me.seats)
local answer = {'', #pool}
if drawing and #pool >= seats and oldest <= tonumber(ARGV[5]) then
  local order = {}
  for _, ticket in ipairs(pool) do
    order[#order + 1] = {redis.sha1hex(ARGV[7] .. ticket.agent), ticket}
  end
  table.sort(order, function(a, b) return a[1] < b[1] end)
  local used = {}
  for c = 1, tonumber(ARGV[8]) do
    local picked, addresses = {}, {}
    for _, entry in ipairs(order) do
      local ticket = entry[2]
      if #picked < seats and not used[ticket.agent] and not addresses[ticket.address] then
        picked[#picked + 1] = ticket
        addresses[ticket.address] = true
      end
    end
    if #picked < seats then break end
    local table_id = ARGV[7 + 2 * c]
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
      {seating = seating, seed = ARGV[8 + 2 * c], mode = picked[1].mode}))
    answer[2] = answer[2] - seats
    answer[#answer + 1] = table_id
  end
end
answer[1] = redis.call('HGET', KEYS[1], ARGV[1])
return answer
"""


class RatedQueueStore:
    """Every Redis operation on the rated queue (cheap to build: a client and the key builder)."""

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self._ticket = redis.register_script(_TICKET_LUA)

    def _key(self, game: str, *parts: str) -> str:
        return self.keys.global_("rq", f"{{{game}}}", *parts)

    def seated_key(self, game: str, agent_id: str) -> str:
        """What a held wait for ``agent_id``'s draw watches (published when it is seated)."""
        return self._key(game, "seated", agent_id)

    async def ticket(
        self, game: str, agent_id: str, op: Literal["join", "leave", "look"], *,
        joined: dict[str, Any] | None = None, now: float, gathered_before: float,
        expire_before: float, salt: str, tables: Sequence[tuple[str, int]],
    ) -> tuple[dict[str, Any], int, list[str]] | None:
        """Join (with the ``joined`` ticket), leave or look at the agent's ticket; while it
        waits, draw its pool at up to ``len(tables)`` tables (each a table id and its secret
        seed). None without a ticket; else the ticket, how many wait in its pool, and the ids
        of the tables drawn."""
        args: list[str | int] = [agent_id, op, json.dumps(joined), repr(now),
                                 repr(gathered_before), repr(expire_before), salt, len(tables)]
        for table_id, seed in tables:
            args += [table_id, str(seed)]
        keys = [self._key(game, "tickets"), self._key(game, "pool"), self._key(game, "draws")]
        answer = await self._ticket(keys=keys, args=args)
        if answer is None:
            return None
        raw, waiting, *drawn = answer
        return json.loads(decoded(raw)), int(waiting), [decoded(table_id) for table_id in drawn]

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
