"""Gateway settings from the environment (prefix ``AGENTS_CLUB_``, plus ``REDIS_URL``).

One :class:`Settings` object per app, read from the environment when built
(a refusal is pydantic's ``ValidationError``, which never shows the input). Outside ``development`` and ``test`` the settings refuse to
start with missing or well-known secrets (see :meth:`Settings.refuse_default_secrets`):
a production gateway that silently generated its own signing key would hand
out tokens that no other host can verify, and a guessable organiser key lets
anyone mint tokens.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = [
    "KNOWN_DEFAULT_SECRETS",
    "MIN_ORGANISER_KEY_LENGTH",
    "REPLICA_WAIT_MARGIN_MS",
    "Settings",
]

KNOWN_DEFAULT_SECRETS = frozenset(
    {"", "changeme", "change-me", "changethis", "secret", "organiser", "organizer",
     "password", "admin", "dev", "development", "test", "example"}
)
"""Values that example files and tutorials use; never accepted in production."""

MIN_ORGANISER_KEY_LENGTH = 32
"""Shorter organiser keys are refused in production (brute-force margin)."""

REPLICA_WAIT_MARGIN_MS = 500
"""How much longer than a commit's ``WAIT`` for replicas its read may take (the commit
itself, the network) before the socket timeout cuts it."""


class Settings(BaseSettings):
    """Everything the gateway can be configured with (see the README's table)."""

    # A refusal never shows the input: it holds the organiser key and the signing key.
    model_config = SettingsConfigDict(env_prefix="AGENTS_CLUB_", extra="forbid",
                                      hide_input_in_errors=True)

    environment: Literal["development", "test", "production"] = "development"
    redis_url: str | None = Field(
        default=None, validation_alias=AliasChoices("REDIS_URL", "AGENTS_CLUB_REDIS_URL")
    )
    """None: ``agents-club serve`` starts an embedded Redis in ``data_dir``. A
    ``redis+cluster://host:port`` URL names a Redis Cluster (any of its nodes)."""
    redis_cluster: bool = False
    """True: ``redis_url`` (a plain ``redis://`` URL of any node) names a Redis Cluster;
    the store then uses the cluster key layout (docs/operations.md, "Redis Cluster")."""
    redis_replica_wait: int = Field(default=0, ge=0)
    """Replicas that must have a table commit before its agent is answered (``WAIT``);
    0: answered once the primary has it."""
    redis_replica_wait_timeout_ms: int = Field(default=1000, ge=1)
    """How long a commit waits for ``redis_replica_wait`` replicas before it is answered
    503 (the write may have applied: a retry with the same idempotency key is safe)."""
    redis_namespace: str = "ac"
    redis_max_connections: int = Field(default=16, ge=2, le=1000)
    """Redis connections one worker may hold, whatever the number of waiting agents (held
    waits share one of them: see ``gateway.store.waits``); on a Redis Cluster, per node
    (docs/operations.md). Each worker's connections are named
    ``agents-club:<namespace>:<pid>`` in ``CLIENT LIST``."""
    redis_pool_timeout_s: float = Field(default=10.0, gt=0)
    """How long a request waits for a free Redis connection of the pool before failing."""
    redis_socket_timeout_s: float = Field(default=5.0, gt=0)
    """Longest wait for Redis to accept a connection or to answer a command (and the change
    listener's health-check interval): a Redis that accepts but never answers is answered 503
    ``server/unavailable`` after about twice this, instead of holding the request. No command
    of the gateway blocks in Redis (held waits are woken by publishes), so the one that
    may take long is a commit's ``WAIT``: this must exceed ``redis_replica_wait_timeout_ms`` by
    :data:`REPLICA_WAIT_MARGIN_MS`."""
    data_dir: Path = Path(".data")

    log_level: str = "INFO"
    log_format: Literal["json", "text"] = "json"

    jwt_issuer: str = "agents-club"
    jwt_audience: str = "agents-club-api"
    access_token_ttl_s: int = Field(default=3600, ge=60)
    max_token_ttl_s: int = Field(default=30 * 24 * 3600, ge=60)
    """Upper bound for a ``ttl_s`` the organiser asks for when minting."""
    jwt_leeway_s: int = Field(default=5, ge=0, le=300)
    """Clock skew tolerated on ``exp`` and ``nbf`` between hosts."""
    signing_key_pem: str | None = None
    """Ed25519 private key (PEM). None in development: generated once into ``data_dir``."""
    previous_public_keys_pem: list[str] = Field(default_factory=list)
    """Public keys (PEM) of retired signing keys whose tokens are still accepted (rotation)."""
    organiser_key: str | None = None
    """Shared secret that lets the operator mint agent tokens (tests, bots, tournaments).
    None in development: generated once into ``data_dir/organiser-key``."""

    default_turn_timeout_s: float = Field(default=300.0, gt=0)
    """The turn clock of a table that sets none (``AGENTS_CLUB_DEFAULT_TURN_TIMEOUT_S``):
    five minutes, room for a reasoning model's slow turn."""
    rated_queue_gather_s: float = Field(default=10.0, ge=0)
    """How long the oldest agent of a rated-queue pool waits before a draw
    (``AGENTS_CLUB_RATED_QUEUE_GATHER_S``): everyone who joins meanwhile is in the draw, so
    two agents joining together do not simply meet."""
    rated_queue_wait_s: float = Field(default=600.0, gt=0)
    """Longest an agent waits in a rated-queue pool with no draw (``AGENTS_CLUB_RATED_QUEUE_WAIT_S``);
    its ticket then expires (too few agents came; it may join again)."""
    sweeper_interval_s: float = Field(default=0.2, gt=0)
    house_bot_delay_s: float = Field(default=0.0, ge=0)
    long_poll_max_wait_s: float = Field(default=30.0, gt=0)
    anonymous_mcp_calls_per_address: int = Field(default=600, ge=1)
    """MCP requests one address may send without a token per ``anonymous_replay_window_s``
    (``AGENTS_CLUB_ANONYMOUS_MCP_CALLS_PER_ADDRESS``), counted across workers as the
    anonymous replays are; beyond, 429 ``rate/limited``."""
    assignment_stream_max_s: float = Field(default=3600.0, gt=0)
    """Longest an entrant's assignments stream stays open
    (``AGENTS_CLUB_ASSIGNMENT_STREAM_MAX_S``): it then closes, and the client reconnects
    with ``Last-Event-ID`` (as EventSource and the SDK do), so no connection outlives a
    rolling restart's drain by hours."""
    keep_alive_timeout_s: float = Field(default=5.0, gt=0)
    """Seconds an idle keep-alive connection stays open between requests (``serve``). Slow
    and oversized request heads and bodies are the proxy's to bound
    (``deploy/nginx.conf``, docs/deploy.md)."""
    finished_table_ttl_s: int = Field(default=30 * 24 * 3600, ge=60)
    """How long a finished table (its replay, log, events and state) is kept after its end;
    then Redis drops it. Its cached replay lives as long."""
    retention_sweep_interval_s: float = Field(default=600.0, gt=0)
    """How often each worker drops listed tables that expired from the listing index."""
    anonymous_replays_per_address: int = Field(default=60, ge=1)
    """Replays one address may read without a token per ``anonymous_replay_window_s``
    (429 ``rate/limited`` beyond); a token's bearer is not limited."""
    anonymous_replay_window_s: int = Field(default=60, ge=1)
    forwarded_allow_ips: str = ""
    """Comma-separated addresses or networks of the reverse proxies whose
    ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed (``*``: any; empty: none,
    the default). A caller's address is the subject of per-address rate limits, so a
    trusted hop that does not overwrite the header lets any client choose its own
    address: list only your proxy, never the loopback of a shared host by habit."""
    max_active_tables_per_agent: int = Field(default=10, ge=1)
    """Unfinished (open or playing) tables one agent may have created; more is refused
    with ``table/too_many``. The organiser is exempt. It bounds the house-bot games the
    server plays at one agent's request."""

    @property
    def generates_secrets(self) -> bool:
        """True when missing keys may be generated into ``data_dir`` (development and test)."""
        return self.environment in ("development", "test")

    @model_validator(mode="after")
    def socket_timeout_covers_replica_wait(self) -> Settings:
        """A commit's ``WAIT`` for replicas must end before its read times out, or every
        commit that waits its full time would be cut and answered 503 ``server/unavailable``."""
        if (self.redis_replica_wait > 0 and self.redis_socket_timeout_s * 1000
                < self.redis_replica_wait_timeout_ms + REPLICA_WAIT_MARGIN_MS):
            raise ValueError(
                "AGENTS_CLUB_REDIS_SOCKET_TIMEOUT_S must exceed "
                f"AGENTS_CLUB_REDIS_REPLICA_WAIT_TIMEOUT_MS by {REPLICA_WAIT_MARGIN_MS} ms at "
                "least (a commit's WAIT would time out)")
        return self

    @model_validator(mode="after")
    def refuse_default_secrets(self) -> Settings:
        """Outside development and test, demand a real signing key and organiser key.

        :raises ValueError: naming the setting to provide (never echoing its value).
        """
        if self.generates_secrets:
            return self
        problems: list[str] = []
        if not self.signing_key_pem or not self.signing_key_pem.strip():
            problems.append(
                "AGENTS_CLUB_SIGNING_KEY_PEM is missing: provide an Ed25519 private key in PEM "
                "(for example from `openssl genpkey -algorithm ed25519`)"
            )
        key = self.organiser_key
        if key is None or not key.strip():
            problems.append("AGENTS_CLUB_ORGANISER_KEY is missing")
        elif key.strip().lower() in KNOWN_DEFAULT_SECRETS:
            problems.append("AGENTS_CLUB_ORGANISER_KEY is a well-known default value")
        elif len(key) < MIN_ORGANISER_KEY_LENGTH:
            problems.append(
                f"AGENTS_CLUB_ORGANISER_KEY is shorter than {MIN_ORGANISER_KEY_LENGTH} characters"
            )
        if problems:
            raise ValueError(
                f"refusing to start in {self.environment!r} with default secrets: "
                + "; ".join(problems)
                + " (generate one with `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
            )
        return self

