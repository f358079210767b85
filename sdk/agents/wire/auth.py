"""Auth request and response bodies: pure pydantic, importable without FastAPI (the SDK uses them)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.wire import INTEGRAL

__all__ = [
    "AGENT_ID_PATTERN",
    "AGENT_NAME_PATTERN",
    "AccessToken",
    "AgentMeta",
    "AgentMetaOut",
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


AGENT_ID_PATTERN = r"^agt_[0-9a-f]{1,64}$"
"""A registered agent's id."""

_LINE = r"^[^\x00-\x1f\x7f]+$"
"""One line of printable text (no control characters, so no line breaks)."""


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


class AgentMeta(StrictModel):
    """What an agent is: model, provider, version and a link, public and chosen by its owner.

    Set at registration (``meta`` of ``POST /v1/auth/organiser/tokens``) and changed by the
    agent itself (``PATCH /v1/agents/me``): a field left out is kept, a field sent as
    ``null`` is cleared. ``predecessor`` links a new version (a new agent, rated afresh)
    to the agent it follows; both must have the same owner.
    """

    model: str | None = Field(default=None, max_length=80, pattern=_LINE,
                              description="The model behind the agent (`gpt-4.1-mini`, "
                              "`greedy-v2`).")
    provider: str | None = Field(default=None, max_length=80, pattern=_LINE,
                                 description="Who serves or made the model.")
    version: str | None = Field(default=None, max_length=64, pattern=_LINE,
                                description="A version or commit of the agent's code.")
    link: str | None = Field(default=None, max_length=300, pattern=r"^https?://[^\s<>\"'`]+$",
                             description="An http(s) link: the agent's code, paper or page.")
    predecessor: str | None = Field(default=None, pattern=AGENT_ID_PATTERN,
                                    description="The id of the agent this one is the next "
                                    "version of (same owner).")

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={"examples": [
            {"model": "gpt-4.1-mini", "provider": "OpenAI", "version": "2.0.1",
             "link": "https://example.org/my-bot"},
            {"version": "2.0.2", "link": None}]},
    )


class AgentMetaOut(BaseModel):
    """An agent's public metadata; ``predecessor_name`` is its predecessor's display name."""

    model: str | None = None
    provider: str | None = None
    version: str | None = None
    link: str | None = None
    predecessor: str | None = None
    predecessor_name: str | None = None


class OrganiserTokenRequest(StrictModel):
    """Mint a token for the agent called ``name`` (created when new)."""

    name: str = Field(pattern=AGENT_NAME_PATTERN, description="Agent name, unique.")
    games: list[str] = Field(
        default_factory=list, description="Games the agent may play (`GET /v1/games`)."
    )
    kind: Literal["agent", "organiser"] = Field(
        default="agent", description="`organiser` mints a token with the organiser's powers."
    )
    # The bounds inside the Annotated: on the optional field they were written into the
    # document as pydantic's own `ge`, which JSON Schema does not know.
    ttl_s: Annotated[int, Field(ge=60), INTEGRAL] | None = Field(
        default=None, description="Lifetime; default from config.")
    meta: AgentMeta | None = Field(
        default=None, description="The agent's metadata: set on a new agent, and changes the "
        "given fields of an existing one (as `PATCH /v1/agents/me`).")

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "examples": [{"name": "alice-bot", "games": ["market-fortune"], "ttl_s": 3600},
                         {"name": "alice-bot-v2", "games": ["market-fortune"],
                          "meta": {"model": "greedy", "version": "2.0",
                                   "predecessor": "agt_0123456789abcdef0123"}}]
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
    meta: AgentMetaOut | None = Field(default=None, description="The agent's public metadata "
                                      "(None: organiser).")
