"""OpenAPI documentation of errors: every operation lists its problem+json answers.

Each stable error ``code`` is registered once with its HTTP status and title
(:data:`PROBLEM_CATALOGUE`): here, or at import time by the module that raises it
(:func:`register_problem`); a route passes the codes it can answer with to
:func:`problem_responses`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from gateway.errors import PROBLEM_CONTENT_TYPE, ProblemError

__all__ = [
    "AUTH_PROBLEMS",
    "OPTIONAL_AUTH_PROBLEMS",
    "PROBLEM_CATALOGUE",
    "TOKEN_PROBLEMS",
    "Problem",
    "ProblemSpec",
    "problem_answer",
    "problem_responses",
    "register_problem",
]

AUTH_PROBLEMS = ("auth/missing", "auth/invalid", "auth/expired", "auth/revoked")
"""What a route that needs a bearer token answers when it is missing or bad."""

OPTIONAL_AUTH_PROBLEMS = AUTH_PROBLEMS[1:]
"""The same for a route that also serves callers without a token (a bad one is refused)."""

TOKEN_PROBLEMS = (
    "auth/missing", "auth/invalid", "auth/expired", "auth/not_yet_valid", "auth/wrong_audience",
    "auth/wrong_issuer", "auth/unknown_key", "auth/revoked",
)
"""Every code a token's verification can fail with, as the token routes list them."""


class Problem(BaseModel):
    """An RFC 9457 problem document with our stable ``code``.

    Some codes add members: ``errors`` (``request/invalid``), ``current_version``
    (``table/stale_version``), ``retry_after`` (``rate/limited``), ``legal_actions``.
    """

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="A URI naming the problem type (ends with the code).")
    title: str = Field(description="A short summary of the problem type.")
    status: int = Field(description="The HTTP status code.")
    detail: str = Field(description="What went wrong in this case, in plain words.")
    code: str = Field(description="Stable machine-readable code, such as `table/full`.")
    instance: str | None = Field(default=None, description="The request path.")


class ProblemSpec(NamedTuple):
    """A registered error code: its status, title and an example detail."""

    status: int
    title: str
    example_detail: str


PROBLEM_CATALOGUE: dict[str, ProblemSpec] = {}
"""Every published error code; codes are never renamed once published."""


def register_problem(code: str, status: int, title: str, example_detail: str) -> None:
    """Publish an error ``code``; re-registering the same code with the same status is a no-op.

    :raises ValueError: when the code is already registered with another status.
    """
    existing = PROBLEM_CATALOGUE.get(code)
    if existing is not None and existing.status != status:
        raise ValueError(f"problem code {code!r} already registered with status {existing.status}")
    PROBLEM_CATALOGUE[code] = ProblemSpec(status, title, example_detail)


for _code, _status, _title, _detail in (
    ("auth/missing", 401, "Authentication required", "Send `Authorization: Bearer <token>`."),
    ("auth/invalid", 401, "Invalid token", "The token failed verification."),
    ("auth/expired", 401, "Token expired",
     "The token has expired; get a new one with POST /v1/auth/token (your agent id and secret)."),
    ("auth/not_yet_valid", 401, "Token not yet valid", "The token is not valid yet."),
    ("auth/wrong_audience", 401, "Token for another audience", "The token is for another service."),
    ("auth/wrong_issuer", 401, "Token from another issuer", "The token was issued elsewhere."),
    ("auth/unknown_key", 401, "Token signed with an unknown key",
     "The token's key id is not in /.well-known/jwks.json."),
    ("auth/revoked", 401, "Token revoked", "The token was revoked; get a new one."),
    ("auth/wrong_scope", 403, "Not allowed", "This token does not allow that."),
    ("auth/organiser_only", 403, "Organiser only", "Only the organiser may do this."),
    ("agent/not_found", 404, "Agent not found", "No agent has that id."),
    ("agent/name_taken", 409, "Agent name taken", "Another agent already uses that name."),
    ("game/not_found", 404, "Game not found", "No game is called `chess`; see GET /v1/games."),
    ("table/not_found", 404, "Table not found", "No table has that id."),
    ("table/full", 409, "Table full", "Every seat at this table is taken."),
    ("table/already_seated", 409, "Already seated", "You already sit at this table."),
    ("table/not_seated", 403, "Not seated", "You do not sit at this table."),
    ("table/started", 409, "Table started", "The table has started; seats are fixed."),
    ("table/not_finished", 409, "Table not finished", "The replay opens when the table ends."),
    ("table/stale_version", 409, "Stale version",
     "The table moved on to version 8; observe again and resend."),
    ("action/not_your_turn", 409, "Not your turn", "Seat 2 is to act, not you."),
    ("action/illegal", 422, "Illegal action", "That action breaks a rule; pick a listed action."),
    ("action/malformed", 422, "Malformed action", "The action id is not one this game knows."),
    ("idempotency/conflict", 409, "Idempotency key reused",
     "This Idempotency-Key was used with another body."),
    ("request/invalid", 422, "Invalid request", "The request does not match its schema."),
    ("request/too_large", 413, "Request too large",
     "The request body is larger than 65536 bytes; send at most 65536."),
    ("request/headers_too_large", 431, "Request headers too large",
     "Send at most 32 KB of request line and headers."),
    ("request/unreadable", 400, "Unreadable body",
     "The body is not UTF-8 text; send JSON encoded as UTF-8."),
    ("request/not_found", 404, "Not found", "No route at this path."),
    ("request/method_not_allowed", 405, "Method not allowed", "This path does not accept DELETE."),
    ("rate/limited", 429, "Too many requests", "Slow down; retry after 2 seconds."),
    ("server/unavailable", 503, "Service unavailable", "Redis does not answer."),
    ("server/error", 500, "Internal error", "Something went wrong on our side; it was logged."),
):
    register_problem(_code, _status, _title, _detail)


def problem_responses(*codes: str) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` value of a route that can answer with the problems ``codes``.

    Codes with the same status share one response with an example per code;
    ``server/error`` (500) is always included.

    :raises KeyError: for a code nobody registered (see :func:`register_problem`).
    """
    by_status: dict[int, list[str]] = {}
    for code in (*codes, "server/error"):
        status = PROBLEM_CATALOGUE[code].status
        listed = by_status.setdefault(status, [])
        if code not in listed:
            listed.append(code)
    return {status: {"model": Problem, **problem_answer(*by_status[status])}
            for status in sorted(by_status)}


def problem_answer(*codes: str) -> dict[str, Any]:
    """One documented answer of the same-status ``codes``: a description naming them and
    a problem+json example of each."""
    examples = {}
    for code in codes:
        spec = PROBLEM_CATALOGUE[code]
        example = ProblemError(spec.status, code, spec.title, spec.example_detail).to_problem()
        examples[code] = {"summary": spec.title, "value": example}
    return {
        "description": "; ".join(f"`{code}`" for code in codes),
        "content": {PROBLEM_CONTENT_TYPE: {"examples": examples}},
    }
