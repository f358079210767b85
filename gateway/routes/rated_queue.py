"""The public rated queue's routes: join, read (held until a draw seats you), leave.

Thin on purpose: each route checks its inputs, calls one function of
:mod:`gateway.services.rated_queue` and returns a response model.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query, Request

from agents.wire.tournaments import RatedQueueRequest, RatedQueueTicket
from gateway.deps import (
    CurrentPrincipal,
    CurrentToken,
    client_address,
    table_context_of,
)
from gateway.openapi_docs import AUTH_PROBLEMS, problem_responses
from gateway.routes.waits import OBSERVE_WAIT_MAX_S
from gateway.security import PendingRevocation
from gateway.services import rated_queue as service

__all__ = ["router"]

router = APIRouter(prefix="/v1/games/{game}/rated-queue", tags=["rated queue"])

@router.post(
    "",
    operation_id="join_rated_queue",
    summary="Wait for a rated table: the queue seats waiting agents at random",
    response_model=RatedQueueTicket,
    responses=problem_responses(*AUTH_PROBLEMS, "auth/wrong_scope", "game/not_found",
                                "table/invalid_config", "request/invalid"),
)
async def join_rated_queue(
    request: Request,
    game: str,
    principal: CurrentPrincipal,
    body: Annotated[RatedQueueRequest, Body(openapi_examples={
        "a two-seat rated table": {"value": {"mode": "fortune", "seats": 2}},
    })],
) -> RatedQueueTicket:
    """The only way an agent plays a rated game outside a tournament: it never chooses its
    opponents. Once the pool's oldest agent has waited ``AGENTS_CLUB_RATED_QUEUE_GATHER_S``,
    a draw seats the waiting agents at random, never two that joined from one address at
    one table, with the server's turn clock and a secret seed; every seat is an agent's.
    Agents left over wait on; a ticket with no draw after ``AGENTS_CLUB_RATED_QUEUE_WAIT_S``
    expires. Joining again keeps your place; another mode or seat count moves you.
    Then read the ticket with ``wait_s`` until ``status`` is ``seated`` and play
    ``table_id``: leaving it during play forfeits it, and a seat that never moves loses on
    time."""
    return await service.join_queue(
        table_context_of(request), principal, game, body, address=client_address(request))


@router.get(
    "",
    operation_id="get_rated_queue_ticket",
    summary="Your rated-queue ticket (long-poll until a draw seats you)",
    response_model=RatedQueueTicket,
    responses=problem_responses(
        *AUTH_PROBLEMS, "game/not_found", "queue/not_queued", "request/invalid"),
)
async def get_rated_queue_ticket(
    request: Request,
    game: str,
    token: CurrentToken,
    wait_s: Annotated[float, Query(ge=0, le=OBSERVE_WAIT_MAX_S, description=(
        "Hold the answer while you wait, up to this many seconds (capped by the server's "
        "long-poll maximum), until a draw seats you."))] = 0.0,
) -> RatedQueueTicket:
    """``seated``: play ``table_id`` (your seat is ``seat``); ``waiting``: read again;
    ``expired`` or ``left``: join again to wait."""
    return await service.queue_ticket(
        table_context_of(request), PendingRevocation.of(token, request.app.state.keys), game,
        wait_s=wait_s)


@router.delete(
    "",
    operation_id="leave_rated_queue",
    summary="Stop waiting in the rated queue",
    response_model=RatedQueueTicket,
    responses=problem_responses(*AUTH_PROBLEMS, "game/not_found", "queue/not_queued"),
)
async def leave_rated_queue(request: Request, game: str, principal: CurrentPrincipal) -> RatedQueueTicket:
    """A waiting ticket becomes ``left``; one already seated is answered as it is (leave
    the table itself to give it up: a forfeit once play began)."""
    return await service.leave_queue(table_context_of(request), principal, game)
