"""Tables in Redis: record, state, version, events stream, action log, idempotency, indexes.

Keys of one table share the hash tag ``{<table_id>}`` (see
:class:`gateway.store.connection.Keys`):

* ``t:{id}:table`` — hash: ``record`` (the table's public and private facts as
  JSON), ``state`` (the engine state as JSON), ``version`` (bumped by every
  commit), ``seq`` (id of the last event), ``deadline`` (turn clock, epoch
  seconds, empty when no clock runs), ``to_act`` (as last written to the
  turn stream);
* ``t:{id}:events`` — stream; entry ``<seq>-0`` holds ``audience`` (``*`` for
  public, else comma-separated seats) and ``event`` (JSON). Event ids are the
  per-table sequence number, so ``after=17`` and ``Last-Event-ID: 17`` are a
  plain ``XREAD ... 17-0``;
* ``t:{id}:turns`` — stream; an entry ``<seq>-<version + 1>`` with ``to_act``
  whenever a change may have changed who acts (see :class:`TurnEntry`), so a
  seat waiting for its turn wakes once per turn rather than on every event;
* ``t:{id}:log`` — list of action-log entries (JSON), the replay's source;
* ``t:{id}:seen:<agent>:<key>`` — an idempotency record (fingerprint, the version
  it produced, an action's id and event ids; never the answer), with a TTL;
* ``t:{id}:replay`` — a finished table's replay as sent (JSON, zlib-compressed),
  built once; a finished table never changes, so it never goes stale.

Global keys (outside any table's hash tag):

* ``creates:<agent>:<key>`` — the table id a create with that ``Idempotency-Key``
  writes, and its request's fingerprint (JSON), with a TTL: claimed before the
  table is written, so a retry after a lost reply finds the same table;
* ``tables:public`` — sorted set of listed (non-private) tables by creation time
  (an entry whose table expired is dropped by the retention sweeper);
* ``tables:open`` — the same for listed tables that still have free seats (a
  table leaves it when it starts);
* ``clock`` — sorted set: table id -> turn-clock deadline (an index; the table
  hash's ``deadline`` is the truth);
* ``bots`` — sorted set: table id -> when a house bot is due to act.

A change to a table is one read (:meth:`TableStore.load_for_action`, with the
caller's revocation mark) plus one call of the compare-and-set script
(:meth:`TableStore.commit`), which also updates the ``clock`` and ``bots`` indexes
(on a Redis Cluster the table's bucket's share of each, so every script and read
touches one slot: :class:`gateway.store.connection.Keys`). The workers that drain
the indexes re-check the table hash, so a stale index entry is harmless. The values
it returns, and their encoding, live in :mod:`gateway.store.table_rows`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, Literal

from redis.exceptions import NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError

from gateway.store.connection import (
    Keys,
    RedisClient,
    decoded,
    decoded_scores,
    round_trip,
    stream_entries,
)
from gateway.store.leases import Leases
from gateway.store.table_rows import (
    SNAPSHOT_FIELDS,
    CommitResult,
    IdempotencyRecord,
    RecentHistory,
    StoredEvent,
    TableSnapshot,
    TurnEntry,
    TurnsRead,
    audience_field,
    no_errors,
    parse_to_act,
    snapshot_from_row,
    stored_events,
    to_act_field,
)
from gateway.store.waits import publish_command

__all__ = [
    "CommitResult",
    "IdempotencyRecord",
    "RecentHistory",
    "ReplicasBehind",
    "StoredEvent",
    "TableSnapshot",
    "TableStore",
    "TurnEntry",
    "TurnsRead",
]

IDEMPOTENCY_TTL_S = 24 * 3600
"""How long a retry with the same ``Idempotency-Key`` is recognised as one."""

# The compare-and-set of one table. Everything a change writes happens here,
# atomically, or not at all.
#
# KEYS[1]  t:{id}:table     hash: record, state, version, seq, deadline, to_act
# KEYS[2]  t:{id}:events    stream of events
# KEYS[3]  t:{id}:log       list of action-log entries
# KEYS[4]  t:{id}:seen:...  idempotency record (a never-written key when unused)
# KEYS[5]  t:{id}:turns     stream of who-acts changes
# KEYS[6]  the turn-clock index, KEYS[7] the house-bot index (sorted sets of
#          table ids); written only with the change itself, so a change that
#          is refused moves no clock
# ARGV[1]  expected version ("-1": the table must not exist yet)
# ARGV[2]  new record JSON, "" to keep
# ARGV[3]  new state JSON, "" to keep
# ARGV[4]  deadline: "" to keep, "-" to clear, else epoch seconds
# ARGV[5]  idempotency record (IdempotencyRecord.to_stored), "" for none
# ARGV[6]  idempotency TTL in seconds
# ARGV[7]  the seats to act once this change is written ("0,2"; "-" nobody;
#          "" unknown). When it differs from the table's last ``to_act`` (or is
#          unknown) the change adds ``<seq>-<version + 1>`` to the turn stream
#          (increasing ids: seq never falls and version always rises; the + 1
#          keeps a new table's entry above the smallest id, 0-0), so a seat
#          waiting for its turn wakes once per turn, not on every event
# ARGV[8]  the table's score in the clock index, "" to leave it
# ARGV[9]  the table's score in the house-bot index, "" to leave it
# ARGV[10] the table id (the member of both indexes)
# ARGV[11] N, the number of events; then N pairs (audience, event JSON)
# then     M, the number of log entries; then M entries
# then     the seconds after which KEYS[1], KEYS[2], KEYS[3] and KEYS[5] expire ("": never;
#          given by the change that finishes the table: the retention of finished tables)
# then     PUBLISH, or SPUBLISH on a cluster: the change is told on the channels of
#          KEYS[2] and (when it added a turn entry) KEYS[5], the new version as the
#          message (gateway.store.waits)
#
# Returns {1, new_version, last_seq, 1 if it added a turn entry else 0} when written,
# {0, current_version} when the version moved on, {2, stored idempotency record} when
# the key was used meanwhile.
_COMMIT_LUA = """
local seen = redis.call('GET', KEYS[4])
if seen then
  return {2, seen}
end
local current = redis.call('HGET', KEYS[1], 'version')
if current then current = tonumber(current) else current = -1 end
if current ~= tonumber(ARGV[1]) then
  return {0, current}
end
local version = current + 1
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
redis.call('HSET', KEYS[1], 'version', version)
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'record', ARGV[2]) end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'state', ARGV[3]) end
if ARGV[4] == '-' then
  redis.call('HDEL', KEYS[1], 'deadline')
elseif ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'deadline', ARGV[4])
end
local n = tonumber(ARGV[11])
local i = 12
for _ = 1, n do
  seq = seq + 1
  redis.call('XADD', KEYS[2], seq .. '-0', 'audience', ARGV[i], 'event', ARGV[i + 1])
  i = i + 2
end
redis.call('HSET', KEYS[1], 'seq', seq)
local turn = ARGV[7]
if turn == '' then turn = '?' end
local turned = 0
if turn == '?' or turn ~= redis.call('HGET', KEYS[1], 'to_act') then
  redis.call('XADD', KEYS[5], seq .. '-' .. (version + 1), 'to_act', turn)
  redis.call('HSET', KEYS[1], 'to_act', turn)
  turned = 1
end
local m = tonumber(ARGV[i])
for j = 1, m do
  redis.call('RPUSH', KEYS[3], ARGV[i + j])
end
local expire = ARGV[i + m + 1]
if expire and expire ~= '' then
  for _, key in ipairs({KEYS[1], KEYS[2], KEYS[3], KEYS[5]}) do
    redis.call('EXPIRE', key, tonumber(expire))
  end
end
if ARGV[5] ~= '' then
  redis.call('SET', KEYS[4], ARGV[5], 'EX', tonumber(ARGV[6]))
end
if ARGV[8] ~= '' then redis.call('ZADD', KEYS[6], ARGV[8], ARGV[10]) end
if ARGV[9] ~= '' then redis.call('ZADD', KEYS[7], ARGV[9], ARGV[10]) end
local publish = ARGV[i + m + 2]
redis.call(publish, KEYS[2], version)
if turned == 1 then redis.call(publish, KEYS[5], version) end
return {1, version, seq, turned}
"""

_COMMIT_SHA = hashlib.sha1(_COMMIT_LUA.encode()).hexdigest()  # the name Redis caches it under

# Drops listed ids whose table was never written (a create that stopped between
# indexing its table and writing it), once they are older than a create can take.
#
# KEYS[1]  tables:public; KEYS[2] tables:open
# ARGV[1]  indexed before this instant (epoch seconds); then the candidate ids
# Returns how many were dropped.
_PRUNE_UNWRITTEN_LUA = """
local dropped = 0
for i = 2, #ARGV do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) < tonumber(ARGV[1]) then
    redis.call('ZREM', KEYS[1], ARGV[i])
    redis.call('ZREM', KEYS[2], ARGV[i])
    dropped = dropped + 1
  end
end
return dropped
"""

# Names the table of a create with an Idempotency-Key, unless a request with the same
# key named one first (SET NX GET in one step; that form needs Redis 7).
#
# KEYS[1]  creates:<agent>:<key>
# ARGV[1]  the claim (JSON: table id, fingerprint); ARGV[2] its TTL in seconds
# Returns the earlier claim, or false when this one was stored.
_CLAIM_CREATE_LUA = """
local earlier = redis.call('GET', KEYS[1])
if earlier then return earlier end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2]))
return false
"""


class TableStore:
    """Every Redis operation on tables (one instance per app, shared by requests)."""

    def __init__(
        self, redis: RedisClient, keys: Keys, *, replica_wait: tuple[int, int] | None = None
    ) -> None:
        """``replica_wait``: ``(replicas, timeout_ms)``: a commit is answered only once that
        many replicas have it (``WAIT``, on the commit's own connection), else it raises
        :class:`ReplicasBehind` (a 503: a retry with the same key is applied at most once)."""
        self.redis = redis
        self.keys = keys
        self.replica_wait = replica_wait
        self._leases = Leases(redis)
        self._prune_unwritten = redis.register_script(_PRUNE_UNWRITTEN_LUA)
        self._claim_create = redis.register_script(_CLAIM_CREATE_LUA)
        self._publish = publish_command(redis)  # isinstance on redis-py's client is slow

    # -- keys ---------------------------------------------------------------

    def _hash(self, table_id: str) -> str:
        return self.keys.table(table_id, "table")

    def _log(self, table_id: str) -> str:
        return self.keys.table(table_id, "log")

    def events_key(self, table_id: str) -> str:
        """The table's event stream: a held wait watches it for any change."""
        return self.keys.table(table_id, "events")

    def turns_key(self, table_id: str) -> str:
        """The table's turn stream: a seat's held observation watches it for its turn."""
        return self.keys.table(table_id, "turns")

    def _listing(self, bucket: int, which: Literal["public", "open"]) -> str:
        return self.keys.indexed(bucket, "tables", which)

    def _near(self, table_id: str, revoked_key: str | None) -> str | None:
        """The copy of a revocation mark on ``table_id``'s slot (itself on one Redis)."""
        return None if revoked_key is None else self.keys.near_table(table_id, revoked_key)

    # -- reads --------------------------------------------------------------

    async def load(self, table_id: str) -> TableSnapshot | None:
        """Read a table's hash in one round trip; ``None`` when it does not exist."""
        snapshot, _seen, _revoked = await self.load_for_action(table_id, None)
        return snapshot

    async def load_for_action(
        self, table_id: str, idempotency_scope: str | None, revoked_key: str | None = None
    ) -> tuple[TableSnapshot | None, IdempotencyRecord | None, bool]:
        """The table, its stored idempotent answer for ``idempotency_scope`` (when given)
        and whether ``revoked_key`` exists (when given): one round trip. The caller's
        token revocation check rides on the table read instead of costing its own."""
        revoked_key = self._near(table_id, revoked_key)
        commands: list[tuple[str, ...]] = [("HMGET", self._hash(table_id), *SNAPSHOT_FIELDS)]
        if idempotency_scope is not None:
            commands.append(("GET", self.keys.table(table_id, f"seen:{idempotency_scope}")))
        if revoked_key is not None:
            commands.append(("EXISTS", revoked_key))
        replies = no_errors(await round_trip(self.redis, *commands, key=self._hash(table_id)))
        seen = replies[1] if idempotency_scope is not None else None
        revoked = bool(replies[-1]) if revoked_key is not None else False
        stored = IdempotencyRecord.from_stored(seen) if seen is not None else None
        return snapshot_from_row(table_id, replies[0]), stored, revoked

    async def events_then_table(
        self, table_id: str, after: int, revoked_key: str | None = None
    ) -> tuple[bool, list[StoredEvent], TableSnapshot | None]:
        """The events after ``after``, whether ``revoked_key`` exists (when given, else
        False) and the table, as of one moment: one round trip.

        A held observation reads this way after every wake
        (:mod:`gateway.services.waiters`): the revocation is asked before the
        table it read is told, so a token revoked while it waited is refused.
        """
        revoked, reply, (row,) = await self._read_after(
            table_id, self.events_key(table_id), f"{after}-0", revoked_key,
            ("HMGET", self._hash(table_id), *SNAPSHOT_FIELDS))
        return revoked, stored_events(reply), snapshot_from_row(table_id, row)

    async def turns_then_table(
        self, table_id: str, after: TableSnapshot, revoked_key: str | None = None,
        *, history: tuple[int, int] | None = None,
    ) -> TurnsRead:
        """Like :meth:`events_then_table`, but on the turn stream: the changes of who acts
        after the read ``after``, then the table.

        A seat waiting for its turn reads the table only when this shows a change
        of who acts. A held observation that starts from the table as its worker
        wrote it learns the answer to its first revocation question here.
        ``history`` (log entries, events): :meth:`recent_history` too, read just after
        the table in the same round trip (a woken seat is usually answered from this
        read, and its answer tells what happened since its last move).
        """
        extra = [] if history is None else self._history_commands(table_id, *history)
        revoked, reply, (row, *rest) = await self._read_after(
            table_id, self.turns_key(table_id), f"{after.seq}-{after.version + 1}", revoked_key,
            ("HMGET", self._hash(table_id), *SNAPSHOT_FIELDS), *extra)
        turns = []
        for entry_id, fields in stream_entries(reply):
            seq, version = decoded(entry_id).split("-", 1)
            to_act = parse_to_act(decoded(fields[b"to_act"]))
            turns.append(TurnEntry(int(seq), int(version) - 1, to_act))
        recent = None if history is None else self._history(table_id, *rest)
        return TurnsRead(revoked, turns, snapshot_from_row(table_id, row), recent)

    async def _read_after(
        self, table_id: str, stream: str, after: str, revoked_key: str | None,
        *then: tuple[str | int, ...],
    ) -> tuple[bool, Any, list[Any]]:
        """An ``XREAD`` on ``stream`` after the id ``after``, then whether ``revoked_key``
        exists (when given; its copy in the table's bucket on a cluster), then the
        commands ``then``, in one round trip; returns the answer, the ``XREAD`` reply
        and the replies of ``then``."""
        revoked_key = self._near(table_id, revoked_key)
        commands: list[tuple[str | int, ...]] = [
            ("XREAD", "COUNT", 500, "STREAMS", stream, after)]
        if revoked_key is not None:
            commands.append(("EXISTS", revoked_key))
        replies = no_errors(await round_trip(
            self.redis, *commands, *then, key=self._hash(table_id)))
        return revoked_key is not None and bool(replies[1]), replies[0], replies[len(commands):]

    async def checked_events_after(
        self, table_id: str, after: int, revoked_key: str | None
    ) -> tuple[bool, list[StoredEvent]]:
        """Whether ``revoked_key`` exists (when given, else False) and :meth:`events_after`,
        in one round trip, so a reader whose token was revoked while it waited is refused
        before it is told what came."""
        revoked, reply, _ = await self._read_after(
            table_id, self.events_key(table_id), f"{after}-0", revoked_key)
        return revoked, stored_events(reply)

    async def load_records(self, table_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The records (no state) of several tables, in one pipeline; missing ones skipped."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id in table_ids:
                pipe.hmget(self._hash(table_id), ["record", "version"])
            rows = await pipe.execute()
        return [{**json.loads(record), "version": int(version)}
                for record, version in rows if record is not None]

    async def action_log(self, table_id: str, last: int = 0) -> list[dict[str, Any]]:
        """The last ``last`` action-log entries of a table (0: all of them), oldest first."""
        entries = await self.redis.lrange(self._log(table_id), -last, -1)
        return [json.loads(entry) for entry in entries]

    async def recent_history(
        self, table_id: str, *, log_entries: int, events: int
    ) -> RecentHistory:
        """The last ``log_entries`` action-log entries and the last ``events`` events,
        oldest first, in one lean round trip (an observation's "since your last move")."""
        log, newest_first = no_errors(await round_trip(
            self.redis, *self._history_commands(table_id, log_entries, events),
            key=self._hash(table_id),
        ))
        return self._history(table_id, log, newest_first)

    def _history_commands(
        self, table_id: str, log_entries: int, events: int
    ) -> list[tuple[str | int, ...]]:
        """The commands of :meth:`recent_history`; :meth:`_history` reads their replies."""
        return [("LRANGE", self._log(table_id), -log_entries, -1),
                ("XREVRANGE", self.events_key(table_id), "+", "-", "COUNT", events)]

    def _history(self, table_id: str, log: Any, newest_first: Any) -> RecentHistory:
        stream = self.events_key(table_id)
        return RecentHistory([json.loads(entry) for entry in log or []],
                             stored_events([[stream, list(reversed(newest_first or []))]]))

    async def events_after(
        self, table_id: str, after: int, *, count: int = 500
    ) -> list[StoredEvent]:
        """Events with id greater than ``after``, oldest first (it never waits: held
        waits wait through :mod:`gateway.services.waiters`, holding no connection)."""
        reply = await self.redis.xread({self.events_key(table_id): f"{after}-0"}, count=count)
        return stored_events(reply)

    # -- the compare-and-set --------------------------------------------------

    async def commit(
        self,
        table_id: str,
        *,
        expected_version: int,
        record: dict[str, Any] | None = None,
        state: str | None = None,
        deadline: float | bool | None = False,
        events: Sequence[tuple[tuple[int, ...] | None, dict[str, Any]]] = (),
        log: Sequence[dict[str, Any]] = (),
        idempotency_scope: str | None = None,
        idempotency: IdempotencyRecord | None = None,
        index_clock: float | None = None,
        index_bots: float | None = None,
        to_act: Sequence[int] | None = None,
        expire_s: int | None = None,
        history: tuple[int, int] | None = None,
    ) -> CommitResult:
        """Write a change only if the table's version is still ``expected_version``.

        ``expire_s``: the change ends the table; its keys (hash, events, log, turns)
        expire that many seconds later (the retention of finished tables).

        ``deadline``: ``False`` keeps it, ``None`` clears it, a number sets it.
        ``events`` are ``(audience, body)`` pairs appended in order with the
        next sequence ids. ``expected_version=-1`` creates the table.
        ``index_clock`` / ``index_bots`` put the table in the clock or house-bot
        index, in the same script: only with the change, so a refused commit
        (a lost race) never moves a clock. ``to_act``, the seats to act once the
        change is written (when the caller knows them), feeds the turn stream
        (:meth:`turns_then_table`). ``history`` (log entries, events): the table's
        :meth:`recent_history` just after the change, read in the same round trip.
        """
        if deadline is False:
            deadline_arg = ""
        elif deadline is None or deadline is True:
            deadline_arg = "-"
        else:
            deadline_arg = repr(float(deadline))
        argv: list[str | int | bytes] = [
            expected_version,
            json.dumps(record) if record is not None else "",
            state if state is not None else "",
            deadline_arg,
            idempotency.to_stored() if idempotency is not None else "",
            IDEMPOTENCY_TTL_S,
            to_act_field(to_act),
            repr(float(index_clock)) if index_clock is not None else "",
            repr(float(index_bots)) if index_bots is not None else "",
            table_id,
            len(events),
        ]
        for audience, body in events:
            argv += [audience_field(audience), json.dumps(body)]
        argv += [len(log), *map(json.dumps, log), "" if expire_s is None else expire_s,
                 self._publish]
        # Without a scope: a never-written key in the table's slot.
        seen_key = self.keys.table(table_id, f"seen:{idempotency_scope or 'seen:-'}")
        if idempotency is not None and idempotency_scope is None:
            raise ValueError("an idempotency record needs its scope")
        bucket = self.keys.bucket_of(table_id)
        keys = [self._hash(table_id), self.events_key(table_id), self._log(table_id), seen_key,
                self.turns_key(table_id), self.keys.indexed(bucket, "clock"),
                self.keys.indexed(bucket, "bots")]
        after = [] if history is None else self._history_commands(table_id, *history)
        reply, read = await self._run_commit(keys, argv, after)
        outcome = int(reply[0])
        if outcome == 1:
            return CommitResult(applied=True, version=int(reply[1]), last_seq=int(reply[2]),
                                turn_written=int(reply[3]) == 1,
                                history=self._history(table_id, *no_errors(read)) if read else None)
        if outcome == 2:
            stored = IdempotencyRecord.from_stored(reply[1])
            return CommitResult(applied=False, version=-1, replayed=stored)
        return CommitResult(applied=False, version=int(reply[1]))

    async def _run_commit(
        self, keys: list[str], argv: list[str | int | bytes],
        after: Sequence[tuple[str | int, ...]] = (),
    ) -> tuple[Any, list[Any]]:
        """EVALSHA the commit script, then the reads ``after`` (their replies second): one
        round trip.

        A Redis that lost its script cache answers NOSCRIPT; nothing of the
        script ran then, so it is loaded and sent again.
        """
        command: Sequence[str | int | bytes] = ("EVALSHA", _COMMIT_SHA, len(keys), *keys, *argv)
        commands: list[Sequence[str | int | bytes]] = [command]
        if self.replica_wait is not None:
            commands.append(("WAIT", *self.replica_wait))
        commands.extend(after)
        for _attempt in range(2):
            replies = await round_trip(self.redis, *commands, key=keys[0])
            read = replies[len(replies) - len(after):]
            reply, *waited = replies[:len(replies) - len(after)]
            if isinstance(reply, NoScriptError):  # loaded where the table lives
                no_errors(await round_trip(
                    self.redis, ("SCRIPT", "LOAD", _COMMIT_LUA), key=keys[0]))
                continue
            if isinstance(reply, Exception):
                raise reply
            if waited and self.replica_wait is not None and int(reply[0]) == 1:
                if isinstance(waited[0], Exception):
                    raise waited[0]
                if int(waited[0]) < self.replica_wait[0]:
                    raise ReplicasBehind(
                        f"{int(waited[0])} of {self.replica_wait[0]} replicas have the commit")
            return reply, read
        raise RuntimeError("the commit script could not be loaded")

    # -- indexes --------------------------------------------------------------

    async def index_public(self, table_id: str, created_at: float, *, open_: bool) -> None:
        """List a table in the public index, and in the open index while it has free seats."""
        bucket = self.keys.bucket_of(table_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(self._listing(bucket, "public"), {table_id: created_at})
            if open_:
                pipe.zadd(self._listing(bucket, "open"), {table_id: created_at})
            await pipe.execute()

    async def create_claim(self, scope: str) -> tuple[str, str] | None:
        """The ``(table id, fingerprint)`` a create with idempotency ``scope`` claimed, if any."""
        earlier = await self.redis.get(self.keys.global_("creates", scope))
        return None if earlier is None else _claim_of(earlier)

    async def claim_create(
        self, scope: str, table_id: str, fingerprint: str
    ) -> tuple[str, str] | None:
        """Name ``table_id`` as the table of the create with idempotency ``scope``
        (``<agent>:<key>``), unless a request with that scope named one first: then
        ``(its table id, its fingerprint)``. One script on one key, so two racing
        retries agree on one table id."""
        key = self.keys.global_("creates", scope)
        claim = json.dumps({"table_id": table_id, "fingerprint": fingerprint})
        earlier = await self._claim_create(keys=[key], args=[claim, IDEMPOTENCY_TTL_S])
        return _claim_of(earlier) if isinstance(earlier, bytes | str) else None  # None: ours

    async def listed_before(self, created_before: float, limit: int) -> list[str]:
        """The oldest listed table ids created before ``created_before`` (at most ``limit``),
        over every bucket."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for bucket in self.keys.buckets():
                pipe.zrangebyscore(self._listing(bucket, "public"), "-inf", repr(created_before),
                                   start=0, num=limit, withscores=True)
            shares = await pipe.execute()
        return _merged(shares, limit, newest_first=False)

    async def prune_unwritten(self, table_ids: Sequence[str], indexed_before: float) -> int:
        """Drop ``table_ids`` (found listed without a table) from the listing indexes when
        they were indexed before ``indexed_before``; returns how many went."""
        by_bucket: dict[int, list[str]] = {}
        for table_id in table_ids:
            by_bucket.setdefault(self.keys.bucket_of(table_id), []).append(table_id)
        dropped = 0
        for bucket, ids in sorted(by_bucket.items()):
            dropped += int(await self._prune_unwritten(
                keys=[self._listing(bucket, "public"), self._listing(bucket, "open")],
                args=[repr(indexed_before), *ids]))
        return dropped

    async def cached_replay(self, table_id: str) -> bytes | None:
        cached = await self.redis.get(self.keys.table(table_id, "replay"))
        return cached if isinstance(cached, bytes) else None

    async def cache_replay(self, table_id: str, replay_json: bytes, ttl_s: int) -> None:
        await self.redis.set(self.keys.table(table_id, "replay"), replay_json, ex=ttl_s)

    async def unindex_open(self, table_id: str) -> None:
        """Take a table that started out of the open index (idempotent)."""
        await self.redis.zrem(self._listing(self.keys.bucket_of(table_id), "open"), table_id)

    async def public_table_ids(
        self, *, offset: int = 0, limit: int = 50, open_only: bool = False
    ) -> list[str]:
        """Listed table ids (all, or only those still open), newest first, over every
        bucket (each bucket's newest ``offset + limit``, merged)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for bucket in self.keys.buckets():
                index = self._listing(bucket, "open" if open_only else "public")
                pipe.zrevrange(index, 0, offset + limit - 1, withscores=True)
            shares = await pipe.execute()
        return _merged(shares, offset + limit, newest_first=True)[offset:]

    async def claim(
        self, queue: Literal["clock", "bots"], now: float, lease_end: float, limit: int = 20
    ) -> list[str]:
        """Claim tables due in ``queue`` (a clock ran out, a house bot is to act): one
        worker each until ``lease_end``."""
        indexes = [self.keys.indexed(bucket, queue) for bucket in self.keys.buckets()]
        return await self._leases.claim(indexes, now, lease_end, limit)

    async def release(
        self, queue: Literal["clock", "bots"], table_id: str, lease_end: float,
        next_due: float | None,
    ) -> bool:
        """Release a claim, re-indexing at ``next_due`` (``None``: remove)."""
        return await self._leases.release(
            self.keys.indexed(self.keys.bucket_of(table_id), queue), table_id, lease_end, next_due)


class ReplicasBehind(RedisTimeoutError):
    """A commit was written on the primary but fewer replicas than asked had it within the
    replica-wait timeout: not acknowledged (an outage answer, 503); a retry with the same
    idempotency key is told the stored answer once it applied."""


def _claim_of(stored: bytes | str) -> tuple[str, str]:
    """A create's claim as stored (JSON): ``(table id, fingerprint)``."""
    claim = json.loads(decoded(stored))
    return str(claim["table_id"]), str(claim["fingerprint"])


def _merged(shares: Sequence[Any], limit: int, *, newest_first: bool) -> list[str]:
    """Members of several ``withscores`` sorted-set reads, merged by score, at most ``limit``."""
    rows = sorted(((score, member) for share in shares
                   for member, score in decoded_scores(share).items()), reverse=newest_first)
    return [member for _score, member in rows[:limit]]
