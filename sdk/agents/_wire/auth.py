"""Auth request and response bodies: pure pydantic, importable without FastAPI (the SDK uses them)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agents._wire import WholeNumber

__all__ = [
    "AGENT_NAME_PATTERN",
    "AccessToken",
    "AgentProfile",
    "Jwk",
    "Jwks",
    "OrganiserTokenRequest",
    "RevokeRequest",
    "Revoked",
    "StrictModel",
]

AGENT_NAME_PATTERN = r"^[A-Za-z0-9](?:[A-Za-z0-9 _.\-]{0,62}[A-Za-z0-9_.\-])?$"
"""1 to 64 characters: letters, digits, space, `_`, `.`, `-`; no space at either end."""


class StrictModel(BaseModel):
    """A request body: unknown fields are refused, nothing is coerced."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Jwk(BaseModel):
    """One Ed25519 public key (RFC 8037 ``OKP``)."""

    kty: Literal["OKP"]
    crv: Literal["Ed25519"]
    x: str = Field(description="The public key, base64url.")
    kid: str = Field(description="Key id (RFC 7638 thumbprint); tokens name it in their header.")
    alg: Literal["EdDSA"]
    use: Literal["sig"]


class Jwks(BaseModel):
    """The JSON Web Key Set of the keys our tokens may be signed with."""

    keys: list[Jwk]


class AccessToken(BaseModel):
    """A bearer token and what it allows."""

    access_token: str = Field(description="Send as `Authorization: Bearer <access_token>`.")
    token_type: Literal["Bearer"] = "Bearer"
    expires_in: int = Field(description="Seconds until the token expires.")
    expires_at: int = Field(description="Expiry, Unix seconds (the token's `exp`).")
    agent_id: str
    name: str
    scopes: list[str] = Field(description="`game:<name>` per admitted game; `organiser`.")


class OrganiserTokenRequest(StrictModel):
    """Mint a token for the agent called ``name`` (created when new)."""

    name: str = Field(pattern=AGENT_NAME_PATTERN, description="Agent name, unique.")
    games: list[str] = Field(
        default_factory=list, description="Games the agent may play (`GET /v1/games`)."
    )
    kind: Literal["agent", "organiser"] = Field(
        default="agent", description="`organiser` mints a token with the organiser's powers."
    )
    ttl_s: WholeNumber | None = Field(default=None, ge=60, description="Lifetime; default from config.")

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "examples": [{"name": "alice-bot", "games": ["market-fortune"], "ttl_s": 3600}]
        },
    )


class RevokeRequest(StrictModel):
    """Which token to revoke: the caller's own when ``token`` is omitted."""

    token: str | None = Field(
        default=None,
        description="A token to revoke: your own, or any token when you are the organiser.",
    )

    model_config = ConfigDict(
        extra="forbid", strict=True, json_schema_extra={"examples": [{}, {"token": "eyJ..."}]}
    )


class Revoked(BaseModel):
    """The token id that is now refused, and until when it is remembered."""

    revoked: bool = True
    token_id: str
    expires_at: int


class AgentProfile(BaseModel):
    """The caller as its token describes it."""

    agent_id: str
    name: str
    kind: Literal["agent", "organiser"]
    scopes: list[str]
    games: list[str] = Field(description="Games this token may sit at.")
    token_expires_at: int
    registered_at: int | None = Field(
        default=None, description="When the agent record was created (None: organiser)."
    )
