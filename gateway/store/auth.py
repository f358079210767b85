"""Agent records and revoked token ids in Redis.

Keys (under the app's namespace ``<ns>``)::

    <ns>:agent:<agent_id>        hash: name, scopes (space-separated), secret (hash),
                                 created_at, secret_rotated_at, owner (``organiser``
                                 or the agent's own id), meta (JSON: public metadata)
    <ns>:agent-name:<folded>     string: the agent id owning a name (names are unique,
                                 compared case-insensitively)
    <ns>:agent-tokens:<agent_id> sorted set: the ``jti`` of each token admission or the
                                 agent's secret issued, scored by its ``exp`` (what a
                                 secret rotation revokes); expires with the last of them
    <ns>:revoked:<jti>           string "1", expiring when the token itself expires

On a Redis Cluster the agent's keys carry its id as hash tag
(``<ns>:agent:{<agent_id>}``, ``<ns>:agent-tokens:{<agent_id>}``), so the
script noting a token touches one slot; a revocation mark is written, besides
``<ns>:revoked:<jti>``, into every table bucket (``<ns>:{b07}:revoked:<jti>``,
checked by the table commit on its own slot) and into the agent's slot
(``<ns>:agent-revoked:{<agent_id>}:<jti>``, checked when a token is noted).
:meth:`AuthStore.revoke` answers once every copy is written.

An agent's secret is stored only as a salted scrypt hash
(``scrypt$<n>$<r>$<p>$<salt>$<hash>``, base64url); the plain secret is returned
once, by :meth:`AuthStore.create_agent` and :meth:`AuthStore.rotate_secret`.
Hashing runs in a worker thread so it never stalls the event loop.

Rotating the secret revokes every token issued to the agent before: whoever
learnt the old secret may have exchanged it for tokens whose ids the agent
never saw. A token is noted in the agent's set in the same script that checks
the proof it was issued on (the secret's hash is still the one verified, the
token that asked is not revoked), so a rotation racing an exchange leaves no
token alive that was issued on the old secret.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable, Iterable
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from gateway.security import IssuedToken, revoked_key
from gateway.store.connection import Keys, RedisClient, decoded, decoded_scores, round_trip
from gateway.store.table_rows import no_errors
from gateway.store.waits import publish_command

__all__ = [
    "AgentNameTaken",
    "AgentNotFound",
    "AgentRecord",
    "AuthStore",
    "SecretRotation",
    "hash_secret",
    "secret_matches",
]

_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1
SECRET_PREFIX = "acs_"
"""Agent secrets start with this, so log scrubbing and secret scanners recognise them."""
REVOCATION_MARGIN_S = 300
"""A revocation mark outlives its token by this much (the verifier's leeway is smaller)."""

_NOTE_ISSUED = """
-- KEYS[1] the agent, KEYS[2] its token set, KEYS[3] the revocation mark of the token
-- the new one was asked with (KEYS[1] again when none); ARGV[1] the secret hash the
-- caller proved ('' when none was asked for), ARGV[2] jti, ARGV[3] exp, ARGV[4] now,
-- ARGV[5] how long the set outlives its last token. 0: the proof no longer holds.
if ARGV[1] ~= '' and redis.call('HGET', KEYS[1], 'secret') ~= ARGV[1] then return 0 end
if KEYS[3] ~= KEYS[1] and redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('EXPIREAT', KEYS[2], math.floor(tonumber(last[2])) + tonumber(ARGV[5]))
return 1
"""


_TAKE_TOKENS = """
-- A secret rotation, on the agent's slot. KEYS[1] the agent's token set;
-- ARGV[1] now, ARGV[2] the margin a mark outlives its token by, ARGV[3] the prefix of
-- the agent's revocation marks (on KEYS[1]'s slot). Marks every live token revoked
-- on this slot, deletes the set and returns the live tokens with their exp (flat).
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'WITHSCORES')
for i = 1, #live, 2 do
  local ttl = math.floor(tonumber(live[i + 1])) - tonumber(ARGV[1]) + tonumber(ARGV[2])
  redis.call('SET', ARGV[3] .. live[i], '1', 'EX', ttl)
end
redis.call('DEL', KEYS[1])
return live
"""


_GRANT = """
-- KEYS[1] the agent; ARGV the scopes to grant (those it holds already are skipped).
-- Returns the agent's fields once granted (HGETALL, flat); none when there is no agent.
local scopes = redis.call('HGET', KEYS[1], 'scopes')
if not scopes then return {} end
for _, scope in ipairs(ARGV) do
  if not string.find(' ' .. scopes .. ' ', ' ' .. scope .. ' ', 1, true) then
    scopes = scopes == '' and scope or scopes .. ' ' .. scope
  end
end
redis.call('HSET', KEYS[1], 'scopes', scopes)
return redis.call('HGETALL', KEYS[1])
"""


class AgentNameTaken(Exception):
    """Another agent already holds that name (names are unique, case-insensitively)."""


class AgentNotFound(KeyError):
    """No agent has that id."""


class SecretRotation(NamedTuple):
    """A rotated secret (the plain text, shown once) and how many live tokens it revoked."""

    secret: str
    revoked_tokens: int


class AgentRecord(BaseModel):
    """What the gateway remembers about an agent (never its secret)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agent_id: str
    name: str
    scopes: frozenset[str]
    created_at: int
    """Unix seconds."""
    owner: str
    """Who registered it: ``organiser`` (minted with the organiser key), or the agent's own
    id (admitted, or made before owners were recorded)."""
    meta: dict[str, str] = {}
    """Public metadata (:class:`agents.wire.auth.AgentMeta`), only the fields set."""


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_agent_secret() -> str:
    """A fresh random agent secret (256 bits, ``acs_`` prefix)."""
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    """The salted scrypt hash of ``secret`` in our self-describing text form."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(
        secret.encode("utf-8"), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P, dklen=32
    )
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${_b64(salt)}${_b64(digest)}"


def secret_matches(secret: str, stored: str) -> bool:
    """True when ``secret`` hashes to ``stored`` (constant-time; False on a malformed hash)."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        candidate = hashlib.scrypt(
            secret.encode("utf-8"), salt=_unb64(salt), n=int(n), r=int(r), p=int(p), dklen=32
        )
    except ValueError:
        return False
    return hmac.compare_digest(candidate, _unb64(digest))


def _record_of(agent_id: str, fields: dict[str, str]) -> AgentRecord:
    """The record an agent's hash describes (never its secret)."""
    return AgentRecord(
        agent_id=agent_id,
        name=fields["name"],
        scopes=frozenset(fields["scopes"].split()),
        created_at=int(fields["created_at"]),
        owner=fields.get("owner") or agent_id,
        meta=json.loads(fields.get("meta") or "{}"),
    )


class AuthStore:
    """Agent records and token revocations of one namespace. Building one registers three
    scripts, so the per-request checks share the table context's (``agents``)."""

    def __init__(self, redis: RedisClient, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self._note_issued = redis.register_script(_NOTE_ISSUED)
        self._take_tokens = redis.register_script(_TAKE_TOKENS)
        self._grant = redis.register_script(_GRANT)

    # keys --------------------------------------------------------------------

    def _agent_tag(self, agent_id: str) -> str:
        """The agent id as its keys name it: a hash tag on a cluster (one slot per agent)."""
        return f"{{{agent_id}}}" if self.keys.cluster else agent_id

    def agent_key(self, agent_id: str) -> str:
        return self.keys.global_("agent", self._agent_tag(agent_id))

    def _proof_prefix(self, agent_id: str) -> str:
        """Where the marks of ``agent_id``'s revoked tokens are read on its slot (a cluster
        keeps copies there); the marks themselves on one Redis."""
        if self.keys.cluster:
            return self.keys.global_("agent-revoked", self._agent_tag(agent_id), "")
        return revoked_key(self.keys, "")

    def _name_key(self, name: str) -> str:
        return self.keys.global_("agent-name", name.strip().casefold())

    def tokens_key(self, agent_id: str) -> str:
        return self.keys.global_("agent-tokens", self._agent_tag(agent_id))

    # agents ------------------------------------------------------------------

    async def create_agent(
        self, *, name: str, scopes: Iterable[str] = (), owner: str | None = None,
        meta: dict[str, str] | None = None,
    ) -> tuple[AgentRecord, str]:
        """Register a new agent called ``name``; returns its record and its plain secret.

        The secret is fresh (:func:`new_agent_secret`), not stored and cannot be
        recovered later (only rotated). ``owner`` defaults to the new agent's own id.

        :raises AgentNameTaken: when the name (case-insensitively) is held already.
        """
        plain = new_agent_secret()
        agent_id = f"agt_{secrets.token_hex(10)}"
        if not await self.redis.set(self._name_key(name), agent_id, nx=True):
            raise AgentNameTaken(name)
        hashed = await asyncio.to_thread(hash_secret, plain)
        now = str(int(time.time()))
        fields = {
            "name": name,
            "scopes": " ".join(sorted(frozenset(scopes))),
            "secret": hashed,
            "created_at": now,
            "secret_rotated_at": now,
            "owner": owner or agent_id,
            "meta": json.dumps(meta or {}),
        }
        # A copy: redis-py's ``mapping`` is typed invariant in its keys, wider than str.
        await self.redis.hset(self.agent_key(agent_id),
                              mapping={field: value for field, value in fields.items()})
        return _record_of(agent_id, fields), plain

    async def set_meta(self, record: AgentRecord, meta: dict[str, str]) -> AgentRecord:
        """``record`` with its public metadata replaced by ``meta``, stored (agents are never
        deleted: the one a record was read for is still there)."""
        await self.redis.hset(self.agent_key(record.agent_id), "meta", json.dumps(meta))
        return record.model_copy(update={"meta": meta})

    async def get_agent(self, agent_id: str) -> AgentRecord | None:
        found = await self._agent_fields(agent_id)
        return _record_of(agent_id, found) if found is not None else None

    async def _agent_fields(self, agent_id: str) -> dict[str, str] | None:
        """Every field of the agent's hash as text (its secret hash included), or None."""
        fields = await self.redis.hgetall(self.agent_key(agent_id))
        if not fields:
            return None
        return {decoded(key): decoded(value) for key, value in fields.items()}

    async def find_agent_by_name(self, name: str) -> AgentRecord | None:
        """The record of the agent called ``name`` (case-insensitively), or None."""
        agent_id = await self.redis.get(self._name_key(name))
        if agent_id is None:
            return None
        return await self.get_agent(decoded(agent_id))

    async def verify_secret(self, agent_id: str, secret: str) -> AgentRecord | None:
        proven = await self._proven(agent_id, secret)
        return proven[0] if proven is not None else None

    async def exchange_secret(
        self, agent_id: str, secret: str, issue: Callable[[AgentRecord], IssuedToken]
    ) -> tuple[AgentRecord, IssuedToken] | None:
        """The agent and a token ``issue`` made for it when ``secret`` is its current secret,
        the token noted as issued on it (a rotation revokes it); None for a wrong secret or
        an unknown agent, and when the secret was rotated before the token could be noted."""
        proven = await self._proven(agent_id, secret)
        if proven is None:
            return None
        record, proof = proven
        issued = issue(record)
        noted = await self.note_issued(agent_id, issued, secret_hash=proof)
        return (record, issued) if noted else None

    async def note_issued(
        self, agent_id: str, issued: IssuedToken, *, secret_hash: str = "",
        asked_with: str | None = None,
    ) -> bool:
        """Note a token issued to ``agent_id``, so that a secret rotation revokes it.

        False (and nothing noted) when the proof it was issued on no longer holds:
        ``secret_hash`` is not the agent's secret any more, or the token ``asked_with``
        (the ``jti`` the request was made with) was revoked meanwhile.
        """
        agent_key = self.agent_key(agent_id)
        proof_key = agent_key if asked_with is None else self._proof_prefix(agent_id) + asked_with
        noted = await self._note_issued(
            keys=[agent_key, self.tokens_key(agent_id), proof_key],
            args=[secret_hash, issued.token_id, issued.expires_at, int(time.time()),
                  REVOCATION_MARGIN_S],
        )
        return bool(noted)

    async def _proven(self, agent_id: str, secret: str) -> tuple[AgentRecord, str] | None:
        """The agent's record and the stored hash of its secret when ``secret`` matches
        it, else None (one read of the agent's hash).

        Unknown agents cost the same hashing time as wrong secrets, so timing
        does not reveal which agent ids exist.
        """
        found = await self._agent_fields(agent_id)
        if found is None or "secret" not in found:
            await asyncio.to_thread(hash_secret, secret)
            return None
        hashed = found["secret"]
        if not await asyncio.to_thread(secret_matches, secret, hashed):
            return None
        return _record_of(agent_id, found), hashed

    async def rotate_secret(self, agent_id: str) -> SecretRotation:
        """Give ``agent_id`` a fresh secret; the old one stops working, and every token
        issued to the agent before (by admission or on the old secret) is revoked.

        :raises AgentNotFound: when there is no such agent.
        """
        key = self.agent_key(agent_id)
        if not await self.redis.exists(key):
            raise AgentNotFound(agent_id)
        plain = new_agent_secret()
        hashed = await asyncio.to_thread(hash_secret, plain)
        # First the secret: from here on no token is noted on the old one. Then every
        # token noted before, and any noted between the two steps.
        await self.redis.hset(
            key, mapping={"secret": hashed, "secret_rotated_at": int(time.time())}
        )
        return SecretRotation(plain, await self._revoke_noted(agent_id))

    async def _revoke_noted(self, agent_id: str) -> int:
        """Copy the marks of every token noted for ``agent_id`` to everywhere a revocation
        is checked, then mark them on the agent's slot while taking the set (one script),
        then copy the marks of any token noted meanwhile; returns how many were live."""
        now = int(time.time())
        tokens = self.tokens_key(agent_id)
        # The marks go everywhere before the set is taken: a worker dying in between
        # leaves the set for the next rotation, never a token marked on one slot only.
        before = decoded_scores(await self.redis.zrangebyscore(
            tokens, f"({now}", "+inf", withscores=True))
        for token_id, expires_at in before.items():
            await self._mark_everywhere(token_id, int(expires_at) - now + REVOCATION_MARGIN_S)
        live = await self._take_tokens(
            keys=[tokens], args=[now, REVOCATION_MARGIN_S, self._proof_prefix(agent_id)])
        for token_id, expires_at in zip(live[::2], live[1::2], strict=True):
            if decoded(token_id) not in before:  # noted meanwhile
                await self._mark_everywhere(decoded(token_id), int(float(expires_at)) - now
                                            + REVOCATION_MARGIN_S)
        return len(live) // 2

    async def _mark_everywhere(
        self, token_id: str, ttl_s: int, agent_id: str | None = None
    ) -> None:
        """Write ``token_id``'s revocation mark and, on a cluster, its copies in every
        table bucket (and on ``agent_id``'s slot): answered once all are written."""
        mark = revoked_key(self.keys, token_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in (mark, *self.keys.bucket_copies(mark)):
                pipe.set(key, "1", ex=ttl_s)
            if agent_id is not None and self.keys.cluster:
                pipe.set(self._proof_prefix(agent_id) + token_id, "1", ex=ttl_s)
            await pipe.execute()
        # Once written everywhere: a held wait woken by it reads the mark (gateway.store.waits).
        no_errors(await round_trip(
            self.redis, (publish_command(self.redis), mark, "revoked"), key=mark))

    async def add_scopes(self, agent_id: str, *scopes: str) -> AgentRecord:
        """Grant ``scopes`` (``game:<name>`` ...) to ``agent_id``; returns the new record.

        :raises AgentNotFound: when there is no such agent.
        """
        granted = await self._grant(keys=[self.agent_key(agent_id)], args=list(scopes))
        if not granted:
            raise AgentNotFound(agent_id)
        fields = dict(zip(map(decoded, granted[::2]), map(decoded, granted[1::2]), strict=True))
        return _record_of(agent_id, fields)

    # revocation --------------------------------------------------------------

    async def revoke(
        self, token_id: str, *, expires_at: int, agent_id: str
    ) -> None:
        """Remember that ``token_id`` (issued to ``agent_id``) is revoked until ``expires_at``
        (the token's ``exp``)."""
        remaining = expires_at - int(time.time())
        if remaining <= 0:
            return  # already expired: verification refuses it anyway
        # The margin keeps the mark a little longer than the token can live.
        await self._mark_everywhere(token_id, remaining + REVOCATION_MARGIN_S, agent_id)

    async def is_revoked(self, token_id: str) -> bool:
        """True when ``token_id`` was revoked and has not expired yet."""
        return bool(await self.redis.exists(revoked_key(self.keys, token_id)))
