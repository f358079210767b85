"""Auth request and response bodies: pure pydantic, importable without FastAPI (the SDK uses them).

Defined in the SDK (``agents._wire.auth``) and re-exported: one definition of the wire
contract for the gateway and every SDK install.
"""

from agents._wire.auth import (
    AGENT_NAME_PATTERN,
    AccessToken,
    AgentMeta,
    AgentMetaOut,
    AgentProfile,
    Jwk,
    Jwks,
    OrganiserTokenRequest,
    Revoked,
    RevokeRequest,
    StrictModel,
)

__all__ = [
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
