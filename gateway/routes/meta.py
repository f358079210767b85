"""Operational endpoints: liveness, readiness and Prometheus metrics."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4
from pydantic import BaseModel, ConfigDict, Field

from gateway import __version__
from gateway.deps import RedisDep
from gateway.metrics import exposition
from gateway.openapi_docs import problem_responses
from gateway.services.records import problem
from gateway.store.outage import ping

__all__ = ["router"]

router = APIRouter(tags=["operations"])


class Health(BaseModel):
    """The process is ready to serve (``/readyz``)."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["ok"] = "ok"


class Liveness(Health):
    """The process is up, and which release it runs."""

    version: str = Field(description="The gateway's release (see CHANGELOG.md), for example `0.1.0`.")


@router.get(
    "/healthz",
    summary="Liveness: the process answers, with its release",
    response_model=Liveness,
    responses=problem_responses(),
)
async def get_health() -> Liveness:
    """Always ``ok`` while the worker runs, with the release it runs (a rolling upgrade
    shows which workers have it); it does not touch Redis (see ``/readyz``)."""
    return Liveness(version=__version__)


@router.get(
    "/readyz",
    summary="Readiness: Redis answers",
    response_model=Health,
    responses=problem_responses("server/unavailable"),
)
async def get_readiness(redis: RedisDep) -> Health:
    """``ok`` when Redis answers ``PING``; 503 ``server/unavailable`` otherwise."""
    if not await ping(redis):
        raise problem("server/unavailable", "Redis does not answer.", headers={"Retry-After": "1"})
    return Health()


@router.get(
    "/metrics",
    summary="Prometheus metrics of all workers",
    response_class=Response,
    responses={
        200: {"content": {CONTENT_TYPE_PLAIN_0_0_4: {"example": "agents_club_workers 2.0\n"}},
              "description": "Prometheus text exposition format 0.0.4."},
        **problem_responses(),
    },
)
async def get_metrics() -> Response:
    """The counters of every worker of this server added up (requests, latencies, problems
    by code, workers serving). They do not live in Redis, so they stay readable during an
    outage."""
    return Response(exposition(), media_type=CONTENT_TYPE_PLAIN_0_0_4)
