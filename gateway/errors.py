"""Errors the gateway answers with: ``application/problem+json`` and a stable ``code``.

Routes and services raise :class:`ProblemError`; the app's exception handlers
(installed in :mod:`gateway.app`) turn it, and FastAPI's own 404/405/422
errors, into RFC 9457 problem documents. A ``code`` never changes once
published: clients and the SDK map each one to an exception class.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PROBLEM_CONTENT_TYPE", "ProblemError"]

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
        """The problem document for this error."""
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
