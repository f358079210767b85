"""FastAPI dependencies as ``Annotated`` aliases: what a route function may ask for.

The app-state aliases come from :func:`gateway.app.create_app` and its lifespan; each
caller alias below says what it verifies. :func:`table_context_of` and
:func:`client_address` serve route bodies.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from gateway.config import Settings
from gateway.principal import Principal
from gateway.security import (
    ORGANISER_SCOPE,
    PendingRevocation,
    TokenService,
    VerifiedToken,
    auth_problem,
)
from gateway.services.context import TableContext
from gateway.services.records import problem
from gateway.services.runtime import table_context
from gateway.store.auth import AuthStore
from gateway.store.connection import RedisClient

__all__ = [
    "BEARER_SECURITY",
    "OPTIONAL_BEARER_SECURITY",
    "AnyCaller",
    "AuthStoreDep",
    "CurrentPrincipal",
    "CurrentToken",
    "OptionalCaller",
    "OptionalPrincipal",
    "OptionalTableCaller",
    "OrganiserPrincipal",
    "RedisDep",
    "SettingsDep",
    "TableCaller",
    "TokenServiceDep",
    "client_address",
    "table_context_of",
]

_T = TypeVar("_T")

ORGANISER_ID = "organiser"
"""The ``agent_id`` of a principal authenticated with the organiser key itself."""
_ORGANISER = Principal(agent_id=ORGANISER_ID, name="organiser", kind="organiser",
                       scopes=frozenset({ORGANISER_SCOPE}))

_bearer = HTTPBearer(
    auto_error=False,
    bearerFormat="JWT",
    description="An access token (from admission, `POST /v1/auth/token`, or the organiser).",
)
_organiser_header = APIKeyHeader(
    name="X-Organiser-Key",
    auto_error=False,
    description="The organiser key from the gateway's configuration (or send it as the bearer).",
)


def _from_state(attribute: str) -> Any:
    """A dependency on ``app.state.<attribute>`` (set by :func:`gateway.app.create_app`)."""

    async def read(request: Request) -> Any:
        return getattr(request.app.state, attribute)

    return Depends(read)


def _redis_of(request: Request) -> RedisClient:
    client: RedisClient | None = getattr(request.app.state, "redis", None)
    if client is None:  # only before the lifespan ran (a TestClient used without `with`)
        raise problem("server/unavailable", "Redis is not connected.")
    return client


def table_context_of(request: Request) -> TableContext:
    """The worker's table context, for a route to hand its service; 503 before Redis is
    connected. Called in the route's body, after its parameters were validated."""
    _redis_of(request)
    return table_context(request.app)


def client_address(request: Request) -> str:
    """The caller's address, the subject of per-address rate limits."""
    return request.client.host if request.client is not None else "unknown"


async def _redis(request: Request) -> RedisClient:
    return _redis_of(request)


SettingsDep = Annotated[Settings, _from_state("settings")]
RedisDep = Annotated[RedisClient, Depends(_redis)]
TokenServiceDep = Annotated[TokenService, _from_state("tokens")]


async def _auth_store(request: Request) -> AuthStore:
    return table_context_of(request).agents


AuthStoreDep = Annotated[AuthStore, Depends(_auth_store)]


_Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]

# The token dependencies below each take the raw credentials themselves instead
# of depending on one another: FastAPI solves every level of a dependency tree
# on every request, and these run on every authenticated call (bench/gateway.py).


def _token_of(request: Request, credentials: HTTPAuthorizationCredentials | None) -> str | None:
    """The bearer token sent, ``None`` when no ``Authorization`` header was; 401 for another
    scheme (a bad credential is never taken for no credential)."""
    if credentials is None:
        if request.headers.get("authorization"):
            raise auth_problem("auth/invalid", "Use `Authorization: Bearer <token>`.")
        return None
    return credentials.credentials


async def _authenticate(request: Request, token: str) -> VerifiedToken:
    """``token`` verified, revocation included; 401 when it is bad."""
    state = request.app.state
    tokens: TokenService = state.tokens
    verified = await tokens.authenticate(token, table_context_of(request).agents.is_revoked)
    request.state.principal = verified.principal  # for the request log's agent id
    return verified


async def _verify(request: Request, credentials: HTTPAuthorizationCredentials | None) -> VerifiedToken | None:
    """The verified bearer token, ``None`` when none was sent; 401 when it is bad."""
    token = _token_of(request, credentials)
    return None if token is None else await _authenticate(request, token)


def _required(sent: _T | None) -> _T:
    if sent is None:
        raise auth_problem("auth/missing", "Send `Authorization: Bearer <token>`.")
    return sent


async def _current_token(request: Request, credentials: _Credentials) -> VerifiedToken:
    return _required(await _verify(request, credentials))


CurrentToken = Annotated[VerifiedToken, Depends(_current_token)]
"""The verified bearer token (principal and expiry); 401 when missing or bad."""


async def _current_principal(request: Request, credentials: _Credentials) -> Principal:
    return _required(await _verify(request, credentials)).principal


async def _optional_principal(request: Request, credentials: _Credentials) -> Principal | None:
    verified = await _verify(request, credentials)
    return verified.principal if verified is not None else None


CurrentPrincipal = Annotated[Principal, Depends(_current_principal)]
"""The authenticated caller; 401 ``auth/...`` when the token is missing or bad."""

OptionalPrincipal = Annotated[Principal | None, Depends(_optional_principal)]
"""The authenticated caller, or None when no ``Authorization`` header was sent (a bad
token is still refused)."""


async def _pending(request: Request) -> PendingRevocation | None:
    """The caller of a valid bearer token (``None``: none sent), its revocation still to ask.

    The table routes bots call every turn read the bearer with ``_bearer`` called here, not
    as a dependency (one level less to solve per request), and declare the requirement in
    their OpenAPI operation instead (:data:`BEARER_SECURITY`).
    """
    token = _token_of(request, await _bearer(request))
    if token is None:
        return None
    state = request.app.state
    tokens: TokenService = state.tokens
    verified = tokens.verify_cached(token)
    request.state.principal = verified.principal  # for the request log's agent id only
    return PendingRevocation.of(verified, state.keys)


BEARER_SECURITY: dict[str, Any] = {"security": [{"HTTPBearer": []}]}
"""``openapi_extra`` of a route whose caller comes from :data:`TableCaller`: the same
requirement FastAPI writes for ``_bearer``."""

OPTIONAL_BEARER_SECURITY: dict[str, Any] = {"security": [{"HTTPBearer": []}, {}]}
"""``openapi_extra`` of a route that also answers anonymous callers
(:data:`OptionalPrincipal`, :data:`OptionalTableCaller`): the bearer token, or
nothing (the empty requirement). Generators and schemathesis read a plain
``HTTPBearer`` requirement as mandatory. FastAPI adds this list to the one it
derives from the dependency; the document builder drops the repeated entry."""


OPTIONAL_CALLER_SECURITY: dict[str, Any] = {
    "security": [{"HTTPBearer": []}, {"APIKeyHeader": []}, {}]}
"""``openapi_extra`` of a route whose caller is an :data:`OptionalCaller`: a token, the
organiser key, or nothing (see :data:`OPTIONAL_BEARER_SECURITY`)."""


async def _table_caller(request: Request) -> PendingRevocation:
    return _required(await _pending(request))


TableCaller = Annotated[PendingRevocation, Depends(_table_caller)]
"""The caller of a table route, revocation checked with its table read; 401 when the token
is missing or fails a stateless check. The service must pass ``revoked_key`` to its first
table read and take the principal from :meth:`PendingRevocation.confirm`."""

OptionalTableCaller = Annotated[PendingRevocation | None, Depends(_pending)]
"""Like :data:`TableCaller`, or None when no ``Authorization`` header was sent."""


async def _key_or_token(
    request: Request,
    tokens: TokenServiceDep,
    credentials: _Credentials,
    organiser_key: Annotated[str | None, Depends(_organiser_header)],
) -> tuple[Principal, VerifiedToken | None] | None:
    """The organiser by key (no token), the caller of a verified bearer token, or ``None``
    when neither was sent; 401 for a wrong key or a bad token."""
    if organiser_key is not None:
        if not tokens.is_organiser_key(organiser_key):
            raise auth_problem("auth/invalid", "The organiser key is wrong.")
        # An Authorization header sent beside the key must hold too: a bad credential is
        # never ignored, whatever else the request carries.
        if request.headers.get("authorization") is not None:
            if credentials is None:
                raise auth_problem("auth/invalid", "Send Authorization as `Bearer <token>`.")
            if not tokens.is_organiser_key(credentials.credentials):
                await _authenticate(request, credentials.credentials)
        return _ORGANISER, None
    if credentials is not None and tokens.is_organiser_key(credentials.credentials):
        return _ORGANISER, None
    verified = await _verify(request, credentials)
    return None if verified is None else (verified.principal, verified)


_KeyOrToken = Annotated[tuple[Principal, VerifiedToken | None] | None, Depends(_key_or_token)]


async def _organiser(caller: _KeyOrToken) -> Principal:
    if caller is None:
        raise auth_problem("auth/missing", "Send the organiser key or an organiser token.")
    if caller[0].kind != "organiser":
        raise problem("auth/organiser_only", "Only the organiser may do this.")
    return caller[0]


OrganiserPrincipal = Annotated[Principal, Depends(_organiser)]
"""The organiser (its key as the bearer or in ``X-Organiser-Key``, or an organiser token);
401/403 otherwise."""


async def _caller(caller: _KeyOrToken) -> tuple[Principal, VerifiedToken | None]:
    return _required(caller)


AnyCaller = Annotated[tuple[Principal, VerifiedToken | None], Depends(_caller)]
"""The organiser (by key: no token) or an agent (with its verified token)."""


async def _optional_caller(caller: _KeyOrToken) -> Principal | None:
    return caller[0] if caller is not None else None


OptionalCaller = Annotated[Principal | None, Depends(_optional_caller)]
"""The organiser (by key or token), an agent, or None when no credentials were sent."""
