"""Fixtures for gateway tests: settings, the app, a client with its lifespan, tokens.

* ``settings`` — environment ``test``, the session's real Redis (``redis_url``),
  this test's ``redis_namespace``, a temporary ``data_dir``, a fixed test
  signing key and :data:`ORGANISER_KEY`. Override fields with
  ``settings.model_copy(update={...})`` before the ``app`` fixture is built, or
  build your own with :func:`make_settings`.
* ``app`` — ``create_app(settings)``; ``client`` — a ``TestClient`` entered as a
  context manager, so the lifespan (Redis, runtime tasks) runs.
* ``mint_token(agent_id=..., name=..., games=(...), kind=..., ttl_s=...)`` — a
  bearer token string signed by the app's own :class:`TokenService`.
* ``auth(token)`` — the ``Authorization`` header dict for a token;
  ``organiser_headers`` — the header carrying the organiser key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi import FastAPI
from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.config import Settings
from gateway.security import TokenService

ORGANISER_KEY = "test-organiser-key-0123456789abcdefghijklmnop"
"""The organiser key of the ``settings`` fixture."""

MintToken = Callable[..., str]


def new_signing_key_pem() -> str:
    """A fresh Ed25519 private key in PEM (PKCS#8)."""
    return (
        Ed25519PrivateKey.generate()
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        .decode("ascii")
    )


@pytest.fixture(scope="session")
def signing_key_pem() -> str:
    """The test signing key (one per session: key generation is cheap but pointless to repeat)."""
    return new_signing_key_pem()


def make_settings(
    *, redis_url: str, redis_namespace: str, data_dir: Path, signing_key_pem: str, **overrides: Any
) -> Settings:
    """Test settings; ``overrides`` set any other field."""
    values: dict[str, Any] = {
        "environment": "test",
        "redis_url": redis_url,
        "redis_namespace": redis_namespace,
        "data_dir": data_dir,
        "signing_key_pem": signing_key_pem,
        "organiser_key": ORGANISER_KEY,
        "log_format": "text",
    }
    values.update(overrides)
    return Settings.model_validate(values)


@pytest.fixture()
def settings(
    redis_url: str, redis_namespace: str, tmp_path: Path, signing_key_pem: str
) -> Settings:
    """Settings of a test gateway on the session's Redis and this test's namespace."""
    return make_settings(
        redis_url=redis_url,
        redis_namespace=redis_namespace,
        data_dir=tmp_path / "data",
        signing_key_pem=signing_key_pem,
    )


@pytest.fixture()
def app(settings: Settings) -> FastAPI:
    """The gateway app for ``settings`` (lifespan not started: use ``client``)."""
    return create_app(settings)


@pytest.fixture()
def client(app: FastAPI) -> Iterator[TestClient]:
    """A client of ``app`` with its lifespan running (Redis connected, runtime started)."""
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture()
def token_service(app: FastAPI) -> TokenService:
    """The app's own token service."""
    tokens: TokenService = app.state.tokens
    return tokens


@pytest.fixture()
def mint_token(token_service: TokenService) -> MintToken:
    """Mint a bearer token: ``mint_token(agent_id=, name=, games=(), kind=, ttl_s=)``."""

    def mint(
        *,
        agent_id: str = "agent-1",
        name: str = "alice",
        games: Iterable[str] = (),
        kind: Literal["agent", "organiser"] = "agent",
        ttl_s: int | None = None,
        scopes: Iterable[str] = (),
    ) -> str:
        return token_service.issue(
            agent_id=agent_id,
            name=name,
            scopes={*(f"game:{game}" for game in games), *scopes},
            kind=kind,
            ttl_s=ttl_s,
        ).token

    return mint


@pytest.fixture()
def auth() -> Callable[[str], dict[str, str]]:
    """``auth(token)`` -> the ``Authorization: Bearer`` header dict."""

    def headers(token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    return headers


@pytest.fixture()
def organiser_headers() -> dict[str, str]:
    """Headers that authenticate as the organiser of the ``settings`` fixture."""
    return {"X-Organiser-Key": ORGANISER_KEY}
