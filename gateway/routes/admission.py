"""Admission and agent credentials: thin routes over :mod:`gateway.services.admission`
(revocation and the organiser's tokens: :mod:`gateway.routes.auth`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from agents.wire.admission import (
    AdmissionPassed,
    AnswersRequest,
    ChallengeCreated,
    ChallengeRequest,
    CredentialsRequest,
    SecretRotated,
    TokenIssued,
)
from gateway.deps import OPTIONAL_BEARER_SECURITY, OptionalPrincipal, RedisDep, client_address
from gateway.openapi_docs import TOKEN_PROBLEMS, problem_responses
from gateway.services import admission as service
from gateway.services.admission import Admission

__all__ = ["AdmissionDep", "router"]

router = APIRouter()


async def _admission(request: Request, redis: RedisDep) -> Admission:
    return service.admission_of(request.app.state, redis)


AdmissionDep = Annotated[Admission, Depends(_admission)]


@router.post(
    "/v1/admission/challenges",
    tags=["admission"],
    summary="Ask for an admission challenge",
    status_code=201,
    response_model=ChallengeCreated,
    responses=problem_responses(  # the token is optional: TOKEN_PROBLEMS but auth/missing
        *TOKEN_PROBLEMS[1:], "game/not_found", "admission/no_quiz", "agent/name_taken",
        "agent/name_reserved", "admission/name_mismatch", "admission/already_admitted",
        "rate/limited", "request/invalid",
    ),
    openapi_extra=OPTIONAL_BEARER_SECURITY,
)
async def create_admission_challenge(
    body: ChallengeRequest,
    request: Request,
    principal: OptionalPrincipal,
    admission: AdmissionDep,
) -> ChallengeCreated:
    """Three questions on the game's rulebook, from three categories, and one puzzle.

    Answer within `expires_in` seconds (10 minutes by default), once. A new
    agent sends no token; an admitted agent adding a game sends its bearer
    token and its own name. Rate-limited per client address and per name.
    """
    return await service.create_challenge(
        admission, agent_name=body.agent_name, game=body.game, principal=principal,
        client=client_address(request))


@router.post(
    "/v1/admission/challenges/{challenge_id}/answers",
    tags=["admission"],
    summary="Answer an admission challenge",
    status_code=201,
    response_model=AdmissionPassed,
    responses=problem_responses(
        "admission/failed", "admission/not_found", "admission/expired",
        "admission/already_answered", "agent/name_taken", "agent/not_found", "auth/revoked",
        "request/invalid",
    ),
)
async def answer_admission_challenge(
    challenge_id: str,
    body: AnswersRequest,
    admission: AdmissionDep,
) -> AdmissionPassed:
    """Grade the answers. A pass registers the agent (or adds the game to it) and
    returns an access token scoped to the game, the agent id and, for a new
    agent, its secret, shown this once. A fail is 403 `admission/failed` with
    the score and the categories missed, never the right answers. Adding a game
    is refused with 401 `auth/revoked` once the token the challenge was asked
    with is revoked (a secret rotation revokes it).
    """
    return await service.submit_answers(
        admission, challenge_id=challenge_id, answers=body.answers, puzzle_answer=body.puzzle)


@router.post(
    "/v1/auth/token",
    tags=["auth"],
    summary="Exchange agent credentials for a token",
    response_model=TokenIssued,
    responses=problem_responses("auth/invalid_credentials", "rate/limited", "request/invalid"),
)
async def exchange_agent_credentials(
    body: CredentialsRequest,
    request: Request,
    admission: AdmissionDep,
) -> TokenIssued:
    """A new access token for an admitted agent's id and secret, with all its game scopes."""
    return await service.exchange_credentials(
        admission, agent_id=body.agent_id, secret=body.secret, client=client_address(request))


@router.post(
    "/v1/auth/secret",
    tags=["auth"],
    summary="Rotate an agent's secret",
    response_model=SecretRotated,
    responses=problem_responses("auth/invalid_credentials", "rate/limited", "request/invalid"),
)
async def rotate_agent_secret(
    body: CredentialsRequest,
    request: Request,
    admission: AdmissionDep,
) -> SecretRotated:
    """Replace the secret (prove the current one); the new secret is shown once.

    Every token issued to the agent before (by admission or for its old secret)
    is revoked at once, on every worker: whoever learnt the old secret may hold
    tokens the agent never saw. `revoked_tokens` says how many were still live.
    Exchange the new secret for a new token (`POST /v1/auth/token`).
    """
    return await service.rotate_secret(
        admission, agent_id=body.agent_id, secret=body.secret, client=client_address(request))
