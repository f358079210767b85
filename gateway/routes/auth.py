"""Tokens: the public keys, organiser-minted tokens, revocation and "who am I".

Admission (``POST /v1/admission/...``) and ``POST /v1/auth/token`` (agent id +
secret) mint the same tokens through :class:`~gateway.security.TokenService`
and answer with :class:`AccessToken`. An agent's public metadata is set when the
organiser registers it and by the agent itself (:mod:`gateway.services.agents`).
"""

from __future__ import annotations

from fastapi import APIRouter, Body, Response

from agents.wire.auth import (
    AccessToken,
    AgentMeta,
    AgentProfile,
    Jwks,
    OrganiserTokenRequest,
    Revoked,
    RevokeRequest,
)
from gateway.deps import (
    ORGANISER_ID,
    AnyCaller,
    AuthStoreDep,
    CurrentToken,
    OrganiserPrincipal,
    SettingsDep,
    TokenServiceDep,
)
from gateway.errors import ProblemError
from gateway.openapi_docs import TOKEN_PROBLEMS, problem_responses
from gateway.security import ORGANISER_SCOPE, game_scope
from gateway.services.agents import agent_named, change_meta, profile
from gateway.services.records import game_or_problem, problem

__all__ = ["router"]

router = APIRouter(tags=["auth"])


@router.get(
    "/.well-known/jwks.json",
    summary="Public keys that verify our tokens",
    response_model=Jwks,
    responses=problem_responses(),
)
async def get_jwks(tokens: TokenServiceDep, response: Response) -> Jwks:
    """The Ed25519 public keys (current and still-accepted previous ones), by ``kid``."""
    response.headers["Cache-Control"] = "public, max-age=300"
    return Jwks.model_validate(tokens.keyring.jwks())


@router.post(
    "/v1/auth/organiser/tokens",
    summary="Organiser: mint a token for an agent",
    response_model=AccessToken,
    status_code=201,
    responses=problem_responses(*TOKEN_PROBLEMS, "auth/organiser_only", "game/not_found",
                                "agent/name_taken", "agent/invalid_predecessor",
                                "request/invalid"),
)
async def mint_organiser_token(
    _organiser: OrganiserPrincipal,
    request: OrganiserTokenRequest,
    tokens: TokenServiceDep,
    store: AuthStoreDep,
    settings: SettingsDep,
) -> AccessToken:
    """Mint a token for house bots, tests and tournaments (no admission needed).

    The agent ``name`` is created on first use and reused afterwards (its id stays
    the same); ``games`` are added to its scopes, and the fields given in ``meta``
    (model, provider, version, link, predecessor) are set. A new version of an agent
    is a new name whose ``meta.predecessor`` is the earlier version's id. Authenticate
    with the organiser key, as the bearer or in `X-Organiser-Key`.
    """
    for game in request.games:
        game_or_problem(game)
    ttl = min(request.ttl_s or settings.access_token_ttl_s, settings.max_token_ttl_s)
    scopes = {game_scope(game) for game in request.games}
    if request.kind == "organiser":
        agent_id, name = ORGANISER_ID, request.name
        scopes.add(ORGANISER_SCOPE)
    else:
        record = await agent_named(store, name=request.name, scopes=scopes, meta=request.meta,
                                   owner=ORGANISER_ID)
        agent_id, name = record.agent_id, record.name
        scopes = set(record.scopes)
    issued = tokens.issue(agent_id=agent_id, name=name, scopes=scopes, kind=request.kind, ttl_s=ttl)
    return AccessToken(
        access_token=issued.token, expires_in=ttl, expires_at=issued.expires_at,
        agent_id=agent_id, name=name, scopes=sorted(scopes),
    )


@router.post(
    "/v1/auth/revoke",
    summary="Revoke a token",
    response_model=Revoked,
    responses=problem_responses(*TOKEN_PROBLEMS, "auth/wrong_scope", "request/invalid"),
)
async def revoke_token(
    caller: AnyCaller,
    tokens: TokenServiceDep,
    store: AuthStoreDep,
    request: RevokeRequest = Body(default_factory=RevokeRequest),  # noqa: B008 - FastAPI idiom
) -> Revoked:
    """Revoke your own token (empty body), or any token when you are the organiser.

    A revoked token is refused with `auth/revoked` by every worker from now on.
    """
    principal, own = caller
    if request.token is None:
        if own is None:
            raise problem("request/invalid",
                          "The organiser key is not a token; name the token to revoke.")
        target = own
    else:
        try:
            target = tokens.verify(request.token)
        except ProblemError as refused:
            raise problem("request/invalid",
                          f"That token cannot be revoked ({refused.code}).") from None
        if target.principal.agent_id != principal.agent_id and principal.kind != "organiser":
            raise problem("auth/wrong_scope",
                          "Only the organiser may revoke another agent's token.")
    await store.revoke(target.principal.token_id, expires_at=target.expires_at,
                       agent_id=target.principal.agent_id)
    return Revoked(token_id=target.principal.token_id, expires_at=target.expires_at)


@router.get(
    "/v1/agents/me",
    summary="Who am I",
    response_model=AgentProfile,
    responses=problem_responses(*TOKEN_PROBLEMS),
)
async def get_me(token: CurrentToken, store: AuthStoreDep) -> AgentProfile:
    """The caller's agent id, name, scopes, token expiry and public metadata."""
    principal = token.principal
    record = None if principal.kind == "organiser" else await store.get_agent(principal.agent_id)
    return await profile(store, token, record)


@router.patch(
    "/v1/agents/me",
    summary="Change my public metadata",
    response_model=AgentProfile,
    responses=problem_responses(*TOKEN_PROBLEMS, "auth/wrong_scope", "agent/not_found",
                                "agent/invalid_predecessor", "request/invalid"),
)
async def update_me(token: CurrentToken, store: AuthStoreDep, changes: AgentMeta) -> AgentProfile:
    """Set the fields sent (model, provider, version, link, predecessor); ``null`` clears
    one, a field left out is kept. Only the agent itself changes its metadata; it is
    public, shown with its results, leaderboard rows and tournaments created from now on.
    """
    principal = token.principal
    if principal.kind != "agent":
        raise problem("auth/wrong_scope", "Only an agent has metadata; use an agent's token.")
    record = await store.get_agent(principal.agent_id)
    if record is None:
        raise problem("agent/not_found", "Your agent record is gone; register again.")
    return await profile(store, token, await change_meta(store, record, changes))
