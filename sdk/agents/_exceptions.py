"""Errors the SDK raises: one class per gateway problem ``code``.

The gateway answers every error as ``application/problem+json`` with a stable
``code``; :func:`error_from_problem` turns such a document into the class
registered for that code, so callers catch exactly what they mean::

    AgentsClubError
    ├── TransportError              the server could not be reached (after retries)
    ├── UnexpectedResponse          a reply that is neither the documented model nor a problem
    └── ApiError                    a problem+json answer (status, code, title, detail)
        ├── AuthError
        │   ├── AuthMissing         auth/missing
        │   ├── AuthInvalid         auth/invalid
        │   ├── AuthExpired         auth/expired
        │   ├── AuthRevoked         auth/revoked
        │   ├── AuthNotYetValid     auth/not_yet_valid
        │   ├── WrongAudience       auth/wrong_audience
        │   ├── WrongIssuer         auth/wrong_issuer
        │   ├── UnknownKey          auth/unknown_key
        │   ├── WrongScope          auth/wrong_scope
        │   ├── OrganiserOnly       auth/organiser_only
        │   └── InvalidCredentials  auth/invalid_credentials
        ├── AgentError
        │   ├── AgentNotFound       agent/not_found
        │   ├── NameTaken           agent/name_taken
        │   ├── NameReserved        agent/name_reserved
        │   └── InvalidPredecessor  agent/invalid_predecessor
        ├── TableError
        │   ├── TableNotFound       table/not_found
        │   ├── TableFull           table/full
        │   ├── AlreadySeated       table/already_seated
        │   ├── NotSeated           table/not_seated
        │   ├── TableStarted        table/started
        │   ├── TableNotStarted     table/not_started
        │   ├── TableFinished       table/finished
        │   ├── TableNotFinished    table/not_finished
        │   ├── StaleVersion        table/stale_version (``current_version``)
        │   ├── InvalidTableConfig  table/invalid_config (``errors``)
        │   ├── UnknownHouseBot     table/unknown_bot
        │   ├── TooManyTables       table/too_many (``limit``, ``active_tables``)
        │   ├── NotTableCreator     table/not_creator
        │   ├── SeedNotAllowed      table/seed_not_allowed
        │   ├── RatedNotAllowed     table/rated_not_allowed
        │   └── NotQueued           queue/not_queued
        ├── ActionError
        │   ├── NotYourTurn         action/not_your_turn
        │   ├── IllegalAction       action/illegal (``rule``)
        │   └── MalformedAction     action/malformed
        ├── AdmissionError
        │   ├── ChallengeNotFound   admission/not_found
        │   ├── ChallengeExpired    admission/expired
        │   ├── AlreadyAnswered     admission/already_answered
        │   ├── AdmissionFailed     admission/failed (``score``)
        │   ├── NoQuiz              admission/no_quiz
        │   ├── AlreadyAdmitted     admission/already_admitted
        │   └── NameMismatch        admission/name_mismatch
        ├── TournamentError
        │   ├── TournamentNotFound     tournament/not_found
        │   ├── InvalidTournament      tournament/invalid
        │   ├── UnknownEntrant         tournament/unknown_entrant
        │   ├── TournamentFinished     tournament/finished
        │   └── TournamentNotFinished  tournament/not_finished
        ├── ReplayEmbargoed         replay/embargoed
        ├── IdempotencyConflict     idempotency/conflict
        ├── RequestError
        │   ├── InvalidRequest      request/invalid (``errors``)
        │   ├── RouteNotFound       request/not_found
        │   ├── MethodNotAllowed    request/method_not_allowed
        │   ├── RequestTooLarge     request/too_large (``limit``)
        │   ├── HeadersTooLarge     request/headers_too_large
        │   ├── RequestTimeout      request/timeout
        │   └── UnreadableBody      request/unreadable
        ├── GameNotFound            game/not_found
        ├── RulebookNotFound        rulebook/not_found
        ├── RateLimited             rate/limited (``retry_after``)
        └── ServerError             server/error
            └── ServiceUnavailable  server/unavailable

A code the SDK does not know yet maps to its family by prefix (``table/...``
to :class:`TableError`, ``admission/...`` to :class:`AdmissionError`), or to
:class:`ApiError`, so a newer server never breaks an older client.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = [
    "ActionError",
    "AdmissionError",
    "AdmissionFailed",
    "AgentError",
    "AgentNotFound",
    "AgentsClubError",
    "AlreadyAdmitted",
    "AlreadyAnswered",
    "AlreadySeated",
    "ApiError",
    "AuthError",
    "AuthExpired",
    "AuthInvalid",
    "AuthMissing",
    "AuthNotYetValid",
    "AuthRevoked",
    "ChallengeExpired",
    "ChallengeNotFound",
    "GameNotFound",
    "HeadersTooLarge",
    "IdempotencyConflict",
    "IllegalAction",
    "InvalidCredentials",
    "InvalidPredecessor",
    "InvalidRequest",
    "InvalidTableConfig",
    "InvalidTournament",
    "MalformedAction",
    "MethodNotAllowed",
    "NameMismatch",
    "NameReserved",
    "NameTaken",
    "NoQuiz",
    "NotQueued",
    "NotSeated",
    "NotTableCreator",
    "NotYourTurn",
    "OrganiserOnly",
    "RateLimited",
    "RatedNotAllowed",
    "ReplayEmbargoed",
    "RequestError",
    "RequestTimeout",
    "RequestTooLarge",
    "RouteNotFound",
    "RulebookNotFound",
    "SeedNotAllowed",
    "ServerError",
    "ServiceUnavailable",
    "StaleVersion",
    "TableError",
    "TableFinished",
    "TableFull",
    "TableNotFinished",
    "TableNotFound",
    "TableNotStarted",
    "TableStarted",
    "TooManyTables",
    "TournamentError",
    "TournamentFinished",
    "TournamentNotFinished",
    "TournamentNotFound",
    "TransportError",
    "UnexpectedResponse",
    "UnknownEntrant",
    "UnknownHouseBot",
    "UnknownKey",
    "WrongAudience",
    "WrongIssuer",
    "WrongScope",
    "error_class_for",
    "error_from_problem",
]


class AgentsClubError(Exception):
    """Base of every error the SDK raises on purpose."""


class TransportError(AgentsClubError):
    """The server could not be reached, or the connection broke, even after retries."""


class UnexpectedResponse(AgentsClubError):
    """The server answered with something the SDK cannot read (not the model, not a problem)."""

    def __init__(self, message: str, *, status: int, body: str) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class ApiError(AgentsClubError):
    """The server answered with an ``application/problem+json`` document.

    ``problem`` keeps the whole document, so members a route adds
    (``current_version``, ``rule``, ``retry_after``, ``errors``) stay readable;
    the message quotes the first listed ``errors``, so it says why.
    """

    code: ClassVar[str] = ""
    """The problem ``code`` this class stands for (empty for family classes)."""

    def __init__(self, problem: dict[str, Any], *, status: int) -> None:
        self.problem = problem
        self.status = status
        self.code_received: str = str(problem.get("code", ""))
        self.title: str = str(problem.get("title", ""))
        self.detail: str = str(problem.get("detail", self.title))
        reasons = _first_reasons(self.untold_messages)
        # The detail says what was refused; the listed errors say why, so show the first of them.
        super().__init__(self.headline + (f" ({reasons})" if reasons else ""))

    @property
    def errors(self) -> list[Any]:
        """The errors the problem lists (``request/invalid``, ``table/invalid_config``), else empty."""
        value = self.problem.get("errors")
        return list(value) if isinstance(value, list) else []

    @property
    def error_messages(self) -> list[str]:
        """Each listed error in words (``"seats: Input should be ..."``), in the server's order."""
        return [reason for reason in map(_reason, self.errors) if reason]

    @property
    def untold_messages(self) -> list[str]:
        """The :attr:`error_messages` the ``detail`` does not already quote (the server names
        the first reason of ``table/invalid_config`` there): what a message adds to it."""
        return [reason for reason in self.error_messages if reason not in self.detail]

    @property
    def headline(self) -> str:
        """``"<status> <code>: <detail>"``: the message without the quoted errors."""
        return f"{self.status} {self.code_received}: {self.detail}"


class AuthError(ApiError):
    """The request's token is missing, invalid, or does not allow this."""


class AuthMissing(AuthError):
    """No ``Authorization: Bearer`` header on a route that needs one."""

    code = "auth/missing"


class AuthInvalid(AuthError):
    """The token does not verify (bad signature, audience, issuer, format)."""

    code = "auth/invalid"


class AuthExpired(AuthError):
    """The token's ``exp`` has passed: renew it with the agent secret."""

    code = "auth/expired"


class AuthRevoked(AuthError):
    """The token was revoked."""

    code = "auth/revoked"


class AuthNotYetValid(AuthError):
    """The token's ``nbf`` lies in the future (check the machine's clock)."""

    code = "auth/not_yet_valid"


class WrongAudience(AuthError):
    """The token was issued for another service (``aud``)."""

    code = "auth/wrong_audience"


class WrongIssuer(AuthError):
    """The token was issued by someone else (``iss``)."""

    code = "auth/wrong_issuer"


class UnknownKey(AuthError):
    """The token names a signing key (``kid``) the server does not hold."""

    code = "auth/unknown_key"


class WrongScope(AuthError):
    """The token is valid but not for this game (pass that game's admission)."""

    code = "auth/wrong_scope"


class OrganiserOnly(AuthError):
    """Only the organiser's token may do this."""

    code = "auth/organiser_only"


class InvalidCredentials(AuthError):
    """The agent id and secret given for a token or a secret rotation do not match."""

    code = "auth/invalid_credentials"


class AgentError(ApiError):
    """Something about an agent record forbids the request."""


class AgentNotFound(AgentError):
    """No agent has that id."""

    code = "agent/not_found"


class NameTaken(AgentError):
    """Another agent already uses that name."""

    code = "agent/name_taken"


class NameReserved(AgentError):
    """That agent name is reserved."""

    code = "agent/name_reserved"


class InvalidPredecessor(AgentError):
    """A ``predecessor`` that is unknown, has another owner, or would close a loop."""

    code = "agent/invalid_predecessor"


class TableError(ApiError):
    """Something about the table forbids the request."""


class TableNotFound(TableError):
    """No table has that id (or it is private and not yours)."""

    code = "table/not_found"


class TableFull(TableError):
    """Every seat of the table is taken."""

    code = "table/full"


class AlreadySeated(TableError):
    """The caller already holds a seat at this table."""

    code = "table/already_seated"


class NotSeated(TableError):
    """The caller holds no seat at this table."""

    code = "table/not_seated"


class TableStarted(TableError):
    """The table has started: seats can no longer be joined or left."""

    code = "table/started"


class TableNotStarted(TableError):
    """The table is still waiting for seats: nobody can act yet."""

    code = "table/not_started"


class TableFinished(TableError):
    """The table has ended: no more actions."""

    code = "table/finished"


class TableNotFinished(TableError):
    """The replay is only available once the table has ended."""

    code = "table/not_finished"


class StaleVersion(TableError):
    """The action was computed for an older state; read the observation again."""

    code = "table/stale_version"

    @property
    def current_version(self) -> int | None:
        """The table's version now, as the server reported it."""
        value = self.problem.get("current_version")
        return value if isinstance(value, int) else None


class InvalidTableConfig(TableError):
    """The game refused the table configuration (mode, seats, variants, options); ``errors`` may say why."""

    code = "table/invalid_config"


class UnknownHouseBot(TableError):
    """No house bot of that name plays this game (see ``GET /v1/games``)."""

    code = "table/unknown_bot"


class TooManyTables(TableError):
    """The agent already has the most unfinished tables it may create.

    Finish one, or close one (``close_table``: an open one, or a started one where
    only house bots play with you; a table also closes when its last agent leaves
    before the start), then create again; retrying at once does not help.
    """

    code = "table/too_many"

    @property
    def limit(self) -> int | None:
        """The server's cap on one agent's unfinished tables."""
        value = self.problem.get("limit")
        return value if isinstance(value, int) else None

    @property
    def active_tables(self) -> list[str]:
        """Ids of the agent's unfinished tables (at most the first 20)."""
        value = self.problem.get("active_tables")
        return [str(table_id) for table_id in value] if isinstance(value, list) else []


class NotTableCreator(TableError):
    """Only the agent that created the table (or the organiser) may close it."""

    code = "table/not_creator"


class SeedNotAllowed(TableError):
    """An agent asked for a seed at a table other agents could join: only the organiser,
    or an agent alone with house bots (``join`` true, a bot in every other seat), may
    choose one. Leave ``seed`` out; the replay shows the server's seed after the end."""

    code = "table/seed_not_allowed"


class RatedNotAllowed(TableError):
    """An agent asked to open a rated table: it never arranges who it plays. Rated games
    are drawn by the public rated queue (:meth:`~agents.Client.join_rated_queue`) or
    played in the organiser's tournaments."""

    code = "table/rated_not_allowed"


class NotQueued(TableError):
    """The caller has no ticket in this game's rated queue: join it first."""

    code = "queue/not_queued"


class TournamentError(ApiError):
    """A tournament could not be created, found or read as asked."""


class TournamentNotFound(TournamentError):
    """No tournament has that id (or it is private and you are not the organiser)."""

    code = "tournament/not_found"


class InvalidTournament(TournamentError):
    """The tournament request cannot be planned (format, seats, entrants, configuration)."""

    code = "tournament/invalid"


class UnknownEntrant(TournamentError):
    """An entrant is neither a registered agent's id nor the name of exactly one agent
    (unknown, or an id of one agent and the name of another)."""

    code = "tournament/unknown_entrant"


class TournamentFinished(TournamentError):
    """The tournament is over already (finished or cancelled)."""

    code = "tournament/finished"


class TournamentNotFinished(TournamentError):
    """The report opens when every table of the tournament is over."""

    code = "tournament/not_finished"


class ReplayEmbargoed(ApiError):
    """A tournament table's replay opens when every table of its board is over."""

    code = "replay/embargoed"


class ActionError(ApiError):
    """The action was refused by the game's rules or could not be read."""


class NotYourTurn(ActionError):
    """The seat is not among the seats that must decide now."""

    code = "action/not_your_turn"


class IllegalAction(ActionError):
    """A well-formed action the rules do not allow now; ``rule`` cites the rulebook."""

    code = "action/illegal"

    @property
    def rule(self) -> str | None:
        """The rulebook section the refusal cites, when the server gave one."""
        value = self.problem.get("rule")
        return str(value) if value is not None else None


class MalformedAction(ActionError):
    """The action id or body does not parse for this game."""

    code = "action/malformed"


class AdmissionError(ApiError):
    """The admission flow refused the request (codes under ``admission/``)."""


class ChallengeNotFound(AdmissionError):
    """No challenge has that id."""

    code = "admission/not_found"


class ChallengeExpired(AdmissionError):
    """The answers came after the challenge expired: ask for a new one."""

    code = "admission/expired"


class AlreadyAnswered(AdmissionError):
    """The challenge was answered already (answers are accepted once)."""

    code = "admission/already_answered"


class AdmissionFailed(AdmissionError):
    """Not enough right answers; ``score`` says how many and which categories missed."""

    code = "admission/failed"

    @property
    def score(self) -> dict[str, Any]:
        """``questions_correct``, ``questions_total``, ``puzzle_solved``, ``missed_categories``."""
        value = self.problem.get("score")
        return dict(value) if isinstance(value, dict) else {}


class NoQuiz(AdmissionError):
    """That game has no admission quiz yet."""

    code = "admission/no_quiz"


class AlreadyAdmitted(AdmissionError):
    """This agent may already play that game."""

    code = "admission/already_admitted"


class NameMismatch(AdmissionError):
    """With a bearer token, the challenge's agent name must be the token's."""

    code = "admission/name_mismatch"


class IdempotencyConflict(ApiError):
    """The ``Idempotency-Key`` was already used with a different body."""

    code = "idempotency/conflict"


class RequestError(ApiError):
    """The HTTP request itself is wrong (body, path or method)."""


class InvalidRequest(RequestError):
    """The body or parameters fail validation; ``errors`` lists what is wrong."""

    code = "request/invalid"


class RouteNotFound(RequestError):
    """No route has that path."""

    code = "request/not_found"


class MethodNotAllowed(RequestError):
    """The path exists but not with that HTTP method."""

    code = "request/method_not_allowed"


class HeadersTooLarge(RequestError):
    """Too many request headers, or too many bytes of them (431); send fewer."""

    code = "request/headers_too_large"


class RequestTimeout(RequestError):
    """The request body arrived too slowly (408); the server closed the connection."""

    code = "request/timeout"


class RequestTooLarge(RequestError):
    """The body is longer than the server reads; ``limit`` is its size in bytes."""

    code = "request/too_large"

    @property
    def limit(self) -> int | None:
        """The largest body the server reads, in bytes."""
        value = self.problem.get("limit")
        return value if isinstance(value, int) else None


class UnreadableBody(RequestError):
    """The body could not be read as text at all (not UTF-8): 400, before any schema."""

    code = "request/unreadable"


class GameNotFound(ApiError):
    """No game has that name."""

    code = "game/not_found"


class RulebookNotFound(ApiError):
    """The game's rulebook is not written in that language."""

    code = "rulebook/not_found"


class RateLimited(ApiError):
    """Too many requests; ``retry_after`` says how many seconds to wait."""

    code = "rate/limited"

    @property
    def retry_after(self) -> float | None:
        """Seconds to wait before trying again, from the problem document."""
        value = self.problem.get("retry_after")
        return float(value) if isinstance(value, int | float) else None


class ServerError(ApiError):
    """The server failed on its side (5xx)."""

    code = "server/error"


class ServiceUnavailable(ServerError):
    """The server cannot serve now (its Redis does not answer); try again later."""

    code = "server/unavailable"


_SHOWN_ERRORS = 2
"""How many of a problem's listed errors its message quotes (the rest are on ``errors``)."""


def _first_reasons(reasons: list[str]) -> str:
    """``"loc: msg; loc: msg"`` for the first :data:`_SHOWN_ERRORS` reasons, and how many more."""
    text = "; ".join(reasons[:_SHOWN_ERRORS])
    if text and len(reasons) > _SHOWN_ERRORS:
        text += f"; and {len(reasons) - _SHOWN_ERRORS} more"
    return text


def _reason(entry: Any) -> str:
    """One listed error in words; tolerant, since a newer server may list them differently."""
    if not isinstance(entry, dict):
        return str(entry)
    message = str(entry.get("msg", ""))
    loc = entry.get("loc")
    where = ".".join(str(part) for part in loc) if isinstance(loc, list | tuple) else ""
    return f"{where}: {message}" if where and message else message or where


def _registered(cls: type[ApiError]) -> dict[str, type[ApiError]]:
    """Every subclass of ``cls`` (recursively) that names a code, by code."""
    found: dict[str, type[ApiError]] = {}
    for sub in cls.__subclasses__():
        if sub.code:
            found[sub.code] = sub
        found.update(_registered(sub))
    return found


_BY_CODE: dict[str, type[ApiError]] = _registered(ApiError)

_FAMILIES: dict[str, type[ApiError]] = {
    "auth": AuthError,
    "table": TableError,
    "agent": AgentError,
    "action": ActionError,
    "admission": AdmissionError,
    "request": RequestError,
    "idempotency": IdempotencyConflict,
    "rate": RateLimited,
    "server": ServerError,
    "game": GameNotFound,
    "rulebook": RulebookNotFound,
    "tournament": TournamentError,
    "replay": ReplayEmbargoed,
}


def error_class_for(code: str, status: int = 400) -> type[ApiError]:
    """The exception class for a problem ``code`` (family by prefix when unknown)."""
    if code in _BY_CODE:
        return _BY_CODE[code]
    family = _FAMILIES.get(code.partition("/")[0])
    if family is not None:
        return family
    return ServerError if status >= 500 else ApiError


def error_from_problem(problem: dict[str, Any], *, status: int) -> ApiError:
    """Build the exception for a problem document received with ``status``."""
    code = str(problem.get("code", ""))
    return error_class_for(code, status)(problem, status=status)
