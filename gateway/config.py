"""Gateway settings from the environment (prefix ``AGENTS_CLUB_``, plus ``REDIS_URL``).

One :class:`Settings` object per app; :func:`get_settings` reads the
environment once. Outside ``development`` the settings refuse to start with
default or generated secrets (see :meth:`Settings.refuse_default_secrets`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Settings", "get_settings"]


class Settings(BaseSettings):
    """Everything the gateway can be configured with."""

    model_config = SettingsConfigDict(env_prefix="AGENTS_CLUB_", extra="forbid")

    environment: Literal["development", "test", "production"] = "development"
    redis_url: str | None = Field(
        default=None, validation_alias=AliasChoices("REDIS_URL", "AGENTS_CLUB_REDIS_URL")
    )
    """None: ``agents-club serve`` starts an embedded Redis in ``data_dir``."""
    redis_namespace: str = "ac"
    data_dir: Path = Path(".data")

    jwt_issuer: str = "agents-club"
    jwt_audience: str = "agents-club-api"
    access_token_ttl_s: int = Field(default=3600, ge=60)
    signing_key_pem: str | None = None
    """Ed25519 private key (PEM). None in development: generated once into ``data_dir``."""
    organiser_key: str | None = None
    """Shared secret that lets the operator mint agent tokens (tests, bots, tournaments)."""

    default_turn_timeout_s: float = Field(default=120.0, gt=0)
    sweeper_interval_s: float = Field(default=0.2, gt=0)
    house_bot_delay_s: float = Field(default=0.0, ge=0)
    long_poll_max_wait_s: float = Field(default=30.0, gt=0)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings read from the environment (cached)."""
    return Settings()
