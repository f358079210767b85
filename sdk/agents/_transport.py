"""What both clients share around HTTP: headers, error decoding and retry notices.

Kept apart from the clients so the sync and async loops differ only in
``await`` and in how they sleep.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from agents._endpoints import Call
from agents._exceptions import AgentsClubError, UnexpectedResponse, error_from_problem

__all__ = [
    "DEFAULT_BASE_URL",
    "AgentCredentials",
    "RetryNotice",
    "RetryObserver",
    "always_resendable",
    "error_for",
    "needs_first_token",
    "request_headers",
    "token_expired",
]

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
"""Where ``agents-club serve`` listens by default."""

USER_AGENT = "agents-club-sdk/0.1"


@dataclass(frozen=True)
class AgentCredentials:
    """An admitted agent's id and secret, which buy new tokens (``POST /v1/auth/token``)."""

    agent_id: str
    secret: str

    def __repr__(self) -> str:
        return f"AgentCredentials(agent_id={self.agent_id!r}, secret=<hidden>)"

    def as_body(self) -> dict[str, str]:
        """The fields of the token request."""
        return {"agent_id": self.agent_id, "secret": self.secret}


@dataclass(frozen=True)
class RetryNotice:
    """Told to ``on_retry`` before the SDK waits and sends a request again."""

    method: str
    path: str
    attempt: int
    """1 for the first retry."""
    wait_s: float
    status: int | None
    """The answer's status, or ``None`` when the connection failed."""
    reason: str


RetryObserver = Callable[[RetryNotice], None]
"""A callback receiving each :class:`RetryNotice` (logging, tests, the CLI)."""


def request_headers(call: Call[Any], token: str | None) -> dict[str, str]:
    """The headers of ``call``: its own, plus the bearer token when it needs one."""
    headers = dict(call.headers)
    if call.authenticated and token:
        headers["Authorization"] = f"Bearer {token}"
    return headers


def needs_first_token(authenticated: bool, token: str | None, credentials: AgentCredentials | None) -> bool:
    """True when a request that carries the token would go without one that credentials can buy.

    A client given only ``credentials`` (an agent coming back later) must get
    its first token before asking: the server answers a missing token with
    ``auth/missing``, never ``auth/expired``, so renewal on refusal cannot help.
    """
    return authenticated and not token and credentials is not None


def token_expired(response: httpx.Response) -> bool:
    """True when ``response`` refuses the request because the bearer token expired."""
    if response.status_code != 401:
        return False
    try:
        problem = response.json()
    except ValueError:
        return False
    return isinstance(problem, dict) and problem.get("code") == "auth/expired"


def always_resendable(failure: httpx.TransportError) -> bool:
    """True when the request surely never reached the server (connecting failed)."""
    return isinstance(failure, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout)


def error_for(response: httpx.Response) -> AgentsClubError:
    """The exception for an error answer: its problem's class, or :class:`UnexpectedResponse`."""
    try:
        problem = response.json()
    except ValueError:
        problem = None
    if isinstance(problem, dict) and "code" in problem:
        return error_from_problem(problem, status=response.status_code)
    if response.status_code >= 500:
        # A proxy in front of the gateway may answer 502/503 without a problem document.
        synthetic = {"code": "server/error", "title": response.reason_phrase, "status": response.status_code}
        return error_from_problem(synthetic, status=response.status_code)
    return UnexpectedResponse(
        f"{response.request.method} {response.request.url.path} answered {response.status_code} "
        "without a problem document",
        status=response.status_code,
        body=response.text[:2000],
    )
