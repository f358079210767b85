"""Tournaments in Redis: record, secret, plan, created tables, results, refusals, the ladder.

Keys of one tournament share the hash tag ``{<tournament_id>}``, so every
script below touches one slot:

* ``tn:{id}:meta`` — hash: ``record`` (the public facts as JSON, written once),
  ``secret`` (hex; board seeds and table ids derive from it; never sent),
  ``status`` (``running``, ``finished``, ``cancelled``), ``finished_at``,
  ``report`` (the final report JSON, cached once the tournament finished);
* ``tn:{id}:plans`` — hash: plan index -> the :class:`tournament.plan.TablePlan` as JSON;
* ``tn:{id}:rounds`` — hash: round -> number of its tables (a round is planned once);
* ``tn:{id}:table_index`` — hash: table id -> plan index (the embargo's lookup);
* ``tn:{id}:created`` — hash: plan index -> when its table was created and announced;
* ``tn:{id}:results`` — hash: plan index -> :class:`tournament.results.TableResult` JSON;
* ``tn:{id}:order`` — list of plan indexes in the order their results were stored
  (live ratings apply results in this order);
* ``tn:{id}:refused`` — hash: entrant -> actions refused at its tournament tables.

Global keys: ``tournaments:listed`` and ``tournaments:all`` (sorted sets by
creation time: public ones, and every one for the organiser's listing);
``tournaments:active`` (sorted set: tournament id -> when the scheduler should
look at it next, or the end of the lease of the worker looking at it now, as
the house bots' ``bots`` index); ``assignments:{<agent_id>}`` (a stream per
agent of the tables it must play); ``ladder:{<game>}:results`` and
``ladder:{<game>}:order`` (every rated table's result, once, in finish order);
``ladder:pending`` (sorted set: ``<game> <table id>`` of rated ordinary tables not
on their ladder yet -> when to look at the table again, or a sweeping worker's
lease end).

On a Redis Cluster (:attr:`gateway.store.connection.Keys.cluster`) the creation
script writes the tournament's keys and the three ``tournaments:*`` indexes
together, so there every tournament key and those indexes share the one fixed
hash tag ``{tn}`` (``<ns>:{tn}:tn:<id>:meta``, ``<ns>:{tn}:tournaments:active``):
one slot for all tournament state, which is small and written per table, not
per move. The other scripts already touch one slot each: ``ladder:pending``
(one key), a game's two ladder keys (tag ``{<game>}``), an agent's assignment
stream (tag ``{<agent_id>}``). One Redis keeps the layout above.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from gateway.store.connection import (
    Keys,
    RedisClient,
    decoded,
    round_trip,
    stream_entries,
)
from gateway.store.leases import Leases
from gateway.store.table_rows import no_errors
from gateway.store.waits import publish_command

__all__ = ["Assignment", "TournamentMeta", "TournamentStore"]

_CLUSTER_TAG = "{tn}"
"""The hash tag of every tournament key and ``tournaments:*`` index on a cluster."""

# Creates a tournament once.
#
# KEYS[1]  tn:{id}:meta     KEYS[2] tn:{id}:plans     KEYS[3] tn:{id}:rounds
# KEYS[4]  tn:{id}:table_index
# KEYS[5]  tournaments:all  KEYS[6] tournaments:listed  KEYS[7] tournaments:active
# ARGV[1]  tournament id; ARGV[2] record JSON; ARGV[3] secret; ARGV[4] created_at
# ARGV[5]  "1" to list it publicly; ARGV[6] round 0's number of tables (N)
# then     N triples (plan index, plan JSON, table id)
# Returns 1 when created, 0 when the id exists already.
_CREATE_LUA = """
if redis.call('HSETNX', KEYS[1], 'record', ARGV[2]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], 'secret', ARGV[3], 'status', 'running')
redis.call('HSET', KEYS[3], '0', ARGV[6])
local i = 7
for _ = 1, tonumber(ARGV[6]) do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  redis.call('HSET', KEYS[4], ARGV[i + 2], ARGV[i])
  i = i + 3
end
redis.call('ZADD', KEYS[5], ARGV[4], ARGV[1])
if ARGV[5] == '1' then redis.call('ZADD', KEYS[6], ARGV[4], ARGV[1]) end
redis.call('ZADD', KEYS[7], ARGV[4], ARGV[1])
return 1
"""

# Plans one more round (swiss), once: a second worker computing the same round
# finds it planned and writes nothing.
#
# KEYS[1]  tn:{id}:plans  KEYS[2] tn:{id}:rounds  KEYS[3] tn:{id}:table_index
# ARGV[1]  round; ARGV[2] its number of tables (N); then N triples (index, plan JSON, table id)
# Returns 1 when planned now, 0 when it was planned before.
_ADD_ROUND_LUA = """
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then
  return 0
end
local i = 3
for _ = 1, tonumber(ARGV[2]) do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('HSET', KEYS[3], ARGV[i + 2], ARGV[i])
  i = i + 3
end
return 1
"""

# Stores one result exactly once and appends it to the finish order.
#
# KEYS[1]  the results hash  KEYS[2] the order list (same hash tag)
# ARGV[1]  the result's key (a plan index, or a table id on the ladder); ARGV[2] its JSON
# Returns 1 when stored now, 0 when it was stored before.
_RECORD_RESULT_LUA = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then
  return 0
end
redis.call('RPUSH', KEYS[2], ARGV[1])
return 1
"""

# Ends a running tournament (finished or cancelled), once.
#
# KEYS[1]  tn:{id}:meta
# ARGV[1]  the new status; ARGV[2] now
# Returns 1 when ended now, 0 when it was not running.
_END_LUA = """
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then
  return 0
end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'finished_at', ARGV[2])
return 1
"""


class TournamentMeta:
    """One read of a tournament's ``meta`` hash."""

    __slots__ = ("finished_at", "record", "report", "secret", "status")

    def __init__(self, fields: dict[str, str]) -> None:
        self.record: dict[str, Any] = json.loads(fields["record"])
        self.secret = bytes.fromhex(fields.get("secret", ""))
        self.status = fields.get("status", "running")
        finished = fields.get("finished_at")
        self.finished_at = float(finished) if finished else None
        self.report = fields.get("report")


class Assignment(NamedTuple):
    """One entry of an agent's assignment stream."""

    id: str
    body: dict[str, Any]


class TournamentStore:
    """Every Redis operation on tournaments (cheap to build: a client and the key builder)."""

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self._create = redis.register_script(_CREATE_LUA)
        self._add_round = redis.register_script(_ADD_ROUND_LUA)
        self._record_result = redis.register_script(_RECORD_RESULT_LUA)
        self._end = redis.register_script(_END_LUA)
        self._leases = Leases(redis)

    # -- keys ---------------------------------------------------------------

    def _key(self, tournament_id: str, part: str) -> str:
        if self.keys.cluster:
            return self.keys.global_(_CLUSTER_TAG, "tn", tournament_id, part)
        return self.keys.global_("tn", f"{{{tournament_id}}}", part)

    def _index(self, name: str) -> str:
        """A ``tournaments:<name>`` index (on the cluster's tournament slot)."""
        if self.keys.cluster:
            return self.keys.global_(_CLUSTER_TAG, "tournaments", name)
        return self.keys.global_("tournaments", name)

    def assignments_key(self, agent_id: str) -> str:
        """``agent_id``'s assignment stream: a held wait watches it for a new entry."""
        return self.keys.global_("assignments", f"{{{agent_id}}}")

    def _ladder(self, game: str, part: str) -> str:
        return self.keys.global_("ladder", f"{{{game}}}", part)

    # -- tournaments --------------------------------------------------------

    async def create(
        self, tournament_id: str, record: dict[str, Any], secret: bytes, created_at: float,
        *, listed: bool, plans: Sequence[tuple[int, str, str]],
    ) -> bool:
        """Write a new tournament and its round 0 (``plans``: index, plan JSON, table id)."""
        argv: list[str | int | float] = [
            tournament_id, json.dumps(record), secret.hex(), repr(created_at),
            "1" if listed else "0", len(plans), *(part for plan in plans for part in plan)]
        keys = [self._key(tournament_id, part) for part in ("meta", "plans", "rounds", "table_index")]
        created = await self._create(keys=[*keys, *map(self._index, ("all", "listed", "active"))], args=argv)
        return bool(created)

    async def add_round(
        self, tournament_id: str, round_: int, plans: Sequence[tuple[int, str, str]]
    ) -> bool:
        """Plan round ``round_`` once; False when it was planned before."""
        argv: list[str | int] = [round_, len(plans), *(part for plan in plans for part in plan)]
        keys = [self._key(tournament_id, part) for part in ("plans", "rounds", "table_index")]
        return bool(await self._add_round(keys=keys, args=argv))

    async def meta(self, tournament_id: str) -> TournamentMeta | None:
        fields = await self.redis.hgetall(self._key(tournament_id, "meta"))
        if not fields or b"record" not in fields:
            return None
        return TournamentMeta({decoded(k): decoded(v) for k, v in fields.items()})

    async def plans(self, tournament_id: str) -> dict[int, str]:
        """Plan index -> plan JSON, for every round planned so far."""
        raw = await self.redis.hgetall(self._key(tournament_id, "plans"))
        return {int(decoded(k)): decoded(v) for k, v in raw.items()}

    async def index_of_table(self, tournament_id: str, table_id: str) -> int | None:
        raw = await self.redis.hget(self._key(tournament_id, "table_index"), table_id)
        return int(decoded(raw)) if raw is not None else None

    async def created(self, tournament_id: str) -> dict[int, float]:
        """Plan index -> creation time, for every table created and announced."""
        raw = await self.redis.hgetall(self._key(tournament_id, "created"))
        return {int(decoded(k)): float(decoded(v)) for k, v in raw.items()}

    async def note_created(self, tournament_id: str, index: int, at: float) -> None:
        """Mark a plan's table as created and announced (idempotent)."""
        await self.redis.hsetnx(self._key(tournament_id, "created"), str(index), repr(at))

    async def record_result(self, tournament_id: str, index: int, result_json: str) -> bool:
        """Store a table's result exactly once; False when it was stored before."""
        keys = [self._key(tournament_id, "results"), self._key(tournament_id, "order")]
        return bool(await self._record_result(keys=keys, args=[index, result_json]))

    async def results(self, tournament_id: str) -> list[str]:
        """Every stored result's JSON, in the order they were stored."""
        return await self._in_order(self._key(tournament_id, "order"),
                                    self._key(tournament_id, "results"))

    async def end(self, tournament_id: str, status: str, now: float) -> bool:
        """Set a running tournament's final status once; False when it was not running."""
        keys = [self._key(tournament_id, "meta")]
        return bool(await self._end(keys=keys, args=[status, repr(now)]))

    async def cache_report(self, tournament_id: str, report_json: str) -> None:
        """Keep the final report (only a finished tournament's: it never changes then)."""
        await self.redis.hsetnx(self._key(tournament_id, "meta"), "report", report_json)

    async def count_refused(self, tournament_id: str, entrant: str) -> None:
        await self.redis.hincrby(self._key(tournament_id, "refused"), entrant, 1)

    async def refused(self, tournament_id: str) -> dict[str, int]:
        raw = await self.redis.hgetall(self._key(tournament_id, "refused"))
        return {decoded(k): int(decoded(v)) for k, v in raw.items()}

    async def list_ids(self, *, listed_only: bool, offset: int, limit: int) -> list[str]:
        """Tournament ids, newest first (public ones, or all of them)."""
        index = self._index("listed" if listed_only else "all")
        members: list[Any] = await self.redis.zrevrange(index, offset, offset + limit - 1)
        return [decoded(member) for member in members]

    # -- the scheduler's index ----------------------------------------------

    async def claim_active(self, now: float, lease_end: float) -> list[str]:
        """Claim up to 20 due tournaments (one worker each until ``lease_end``)."""
        return await self._leases.claim([self._index("active")], now, lease_end, 20)

    async def release_active(
        self, tournament_id: str, lease_end: float, next_due: float | None
    ) -> bool:
        """Release a claim, re-indexing at ``next_due`` (``None``: the tournament is over)."""
        return await self._leases.release(self._index("active"), tournament_id, lease_end, next_due)

    async def poke(self, tournament_id: str, now: float) -> None:
        """Make an active tournament due now (a table of it finished); never re-adds one."""
        await self.redis.zadd(self._index("active"), {tournament_id: now}, xx=True, lt=True)

    # -- assignments --------------------------------------------------------

    async def announce(self, agent_id: str, body: dict[str, Any]) -> None:
        """Append an event to ``agent_id``'s assignment stream, and tell its waiters
        (:mod:`gateway.store.waits`) in the same round trip."""
        stream = self.assignments_key(agent_id)
        no_errors(await round_trip(
            self.redis, ("XADD", stream, "MAXLEN", "~", 10_000, "*", "body", json.dumps(body)),
            (publish_command(self.redis), stream, "assigned"), key=stream))

    async def key_exists(self, key: str) -> bool:
        """Whether ``key`` exists (a token's revocation key, read after a held wait woke)."""
        return bool(await self.redis.exists(key))

    async def assignments_after(self, agent_id: str, after: str) -> list[Assignment]:
        """Up to 100 assignment events after the stream id ``after`` (``"0"``: from the start).
        Never blocks: a held wait waits on :meth:`assignments_key`'s publishes instead."""
        reply = await self.redis.xread({self.assignments_key(agent_id): after}, count=100)
        return [Assignment(decoded(entry_id), json.loads(decoded(fields[b"body"])))
                for entry_id, fields in stream_entries(reply)]

    # -- the ladder -----------------------------------------------------------

    async def record_ladder(self, game: str, table_id: str, result_json: str) -> bool:
        """Store a rated table's result on its game's ladder exactly once."""
        keys = [self._ladder(game, "results"), self._ladder(game, "order")]
        return bool(await self._record_result(keys=keys, args=[table_id, result_json]))

    @property
    def _ladder_pending(self) -> str:
        return self.keys.global_("ladder", "pending")

    async def add_ladder_pending(self, game: str, table_id: str, due: float) -> None:
        """Note a rated ordinary table, to be put on its ladder once it has finished."""
        await self.redis.zadd(self._ladder_pending, {f"{game} {table_id}": due})

    async def claim_ladder_pending(self, now: float, lease_end: float) -> list[tuple[str, str]]:
        """Up to 50 due pending tables, claimed until ``lease_end``: (game, table id) pairs."""
        pairs = []
        for member in await self._leases.claim([self._ladder_pending], now, lease_end, 50):
            game, _space, table_id = member.partition(" ")
            pairs.append((game, table_id))
        return pairs

    async def release_ladder_pending(
        self, game: str, table_id: str, lease_end: float, next_due: float | None
    ) -> bool:
        """Release a claim: look again at ``next_due``, or (``None``) forget the table."""
        return await self._leases.release(
            self._ladder_pending, f"{game} {table_id}", lease_end, next_due)

    async def ladder(self, game: str) -> list[str]:
        """Every rated result of ``game``, in the order they were stored."""
        return await self._in_order(self._ladder(game, "order"), self._ladder(game, "results"))

    async def _in_order(self, order_key: str, results_key: str) -> list[str]:
        """The values of the hash ``results_key`` in the order the list ``order_key`` names
        their fields (what :data:`_RECORD_RESULT_LUA` wrote)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.lrange(order_key, 0, -1)
            pipe.hgetall(results_key)
            order, by_key = await pipe.execute()
        stored = {decoded(k): decoded(v) for k, v in by_key.items()}
        return [stored[decoded(key)] for key in order if decoded(key) in stored]
