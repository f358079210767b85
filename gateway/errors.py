"""Errors the gateway answers with: ``application/problem+json`` and a stable ``code``.

Routes and services raise :class:`ProblemError`; the app's exception handlers
(installed in :mod:`gateway.app`) turn it, and FastAPI's own 404/405/422
errors, into RFC 9457 problem documents. A ``code`` never changes once
published: clients and the SDK map each one to an exception class.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "PROBLEM_CONTENT_TYPE",
    "REDIS_RETRY_AFTER_S",
    "ProblemError",
    "rate_limited",
    "redis_unavailable",
]

PROBLEM_CONTENT_TYPE = "application/problem+json"


class ProblemError(Exception):
    """An error answered as problem+json.

    ``code`` is namespaced (``table/full``, ``action/illegal``, ``auth/expired``);
    ``extra`` adds members to the document (``current_version``, ``retry_after``,
    ``rule``). ``headers`` are sent with the response (``Retry-After``).
    The ``detail`` must never name a card the caller may not see.
    """

    def __init__(
        self,
        status: int,
        code: str,
        title: str,
        detail: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail or title)
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail or title
        self.headers = headers or {}
        self.extra = extra

    def to_problem(self, instance: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": f"https://agents-club.dev/problems/{self.code}",
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        if instance is not None:
            body["instance"] = instance
        body.update(self.extra)
        return body


REDIS_RETRY_AFTER_S = 2
"""``Retry-After`` of a 503 answered while Redis does not answer."""


def redis_unavailable() -> ProblemError:
    """The answer while Redis is down, refusing or silent: 503 ``server/unavailable`` with
    ``Retry-After``. It names no address or error text of the store (HTTP and MCP alike)."""
    return ProblemError(503, "server/unavailable", "Service unavailable",
                        "Redis does not answer; retry in a moment.",
                        headers={"Retry-After": str(REDIS_RETRY_AFTER_S)})


def rate_limited(what: str, retry_after: int) -> ProblemError:
    """429 ``rate/limited`` for too many ``what``: the wait is said in the detail, in the
    ``retry_after`` member and in ``Retry-After``."""
    return ProblemError(429, "rate/limited", "Too many requests",
                        f"Too many {what}; retry after {retry_after} seconds.",
                        headers={"Retry-After": str(retry_after)}, retry_after=retry_after)
