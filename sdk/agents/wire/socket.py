"""Wire models of the WebSocket for bots (``/v1/ws``): what each side sends.

Every frame is one JSON text message with a ``type``. The client authenticates
once (the ``Authorization`` header of the upgrade, or an ``auth`` message first),
subscribes to its tables and its tournament assignments, and sends actions; the
server pushes the seat's observation whenever it must decide, the table's events
(when asked for) and the end, and answers each action with ``accepted`` or a
``problem`` (the same problem document HTTP answers).

Client messages are strict (unknown fields refused, like every request);
server messages are read leniently by the SDK (a server that grows a field must
not break a deployed client). ``openapi/asyncapi.json`` is made from these.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.wire import WholeNumber
from agents.wire.tables import ActionObject, ActionResult, EventOut, ObservationOut
from agents.wire.tournaments import AssignmentOut

__all__ = [
    "CLOSE_AUTH_EXPIRED",
    "CLOSE_AUTH_FAILED",
    "CLOSE_AUTH_REVOKED",
    "CLOSE_AUTH_TIMEOUT",
    "CLOSE_CODES",
    "CLOSE_PROTOCOL",
    "CLOSE_UNAVAILABLE",
    "SOCKET_PATH",
    "AcceptedMessage",
    "ActMessage",
    "AssignmentsMessage",
    "AuthMessage",
    "ClientMessage",
    "EndMessage",
    "EventsMessage",
    "ObservationMessage",
    "ProblemMessage",
    "ServerMessage",
    "SubscribeAssignmentsMessage",
    "SubscribeMessage",
    "UnsubscribeMessage",
    "WelcomeMessage",
]

SOCKET_PATH = "/v1/ws"
"""Where the socket is served, beside the HTTP API."""

CLOSE_PROTOCOL = 4400
"""The first message of a connection without a token in its upgrade was not ``auth``."""
CLOSE_AUTH_FAILED = 4401
"""The token was refused when the connection began (the reason is its ``auth/...`` code)."""
CLOSE_AUTH_TIMEOUT = 4408
"""No ``auth`` message came in time after an upgrade without a token."""
CLOSE_AUTH_EXPIRED = 4440
"""The connection's token expired: get a new one and reconnect (or send ``auth`` before)."""
CLOSE_AUTH_REVOKED = 4441
"""The connection's token was revoked: nothing more is told on it."""
CLOSE_UNAVAILABLE = 1013
"""Redis does not answer (RFC 6455 "try again later"): reconnect and resume."""

CLOSE_CODES: dict[int, str] = {
    CLOSE_PROTOCOL: "request/invalid: the first message must be `auth`",
    CLOSE_AUTH_FAILED: "auth/...: the token was refused (the reason names its code)",
    CLOSE_AUTH_TIMEOUT: "auth/missing: no `auth` message came in time",
    CLOSE_AUTH_EXPIRED: "auth/expired: the token expired; reconnect with a fresh one",
    CLOSE_AUTH_REVOKED: "auth/revoked: the token was revoked",
    CLOSE_UNAVAILABLE: "server/unavailable: Redis does not answer; reconnect and resume",
    1012: "the worker is restarting; reconnect and resume",
}
"""Every close code the server sends, and what it means (the AsyncAPI document lists them)."""

_Ref = Annotated[str, Field(min_length=1, max_length=200, description=(
    "Any string of yours, echoed by the answer to this message."))]
_TableId = Annotated[str, Field(min_length=1, max_length=200)]


class _ClientMessage(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _ServerMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")


class AuthMessage(_ClientMessage):
    """The bearer token, for a client that cannot set the upgrade's ``Authorization``
    header (a browser): the first message. Sent later on an authenticated connection, a
    fresh token of the same agent replaces the one about to expire."""

    type: Literal["auth"]
    token: str = Field(min_length=1, max_length=4096)


class SubscribeMessage(_ClientMessage):
    """Follow a table: its observation is pushed whenever your seat must decide at a
    version after ``after_version``, and ``end`` when it is over; with ``events_after``,
    every event you may see after that id too. With ``after_version`` -1 (a first
    subscription) the current observation comes at once, decision or not, so the client
    learns its seat (null: it sits nowhere). Subscribing again to the same table replaces
    the earlier subscription (how a client resumes on the same connection)."""

    type: Literal["subscribe"]
    table_id: _TableId
    after_version: WholeNumber = Field(default=-1, ge=-1, description=(
        "The last version you decided at (resume after a reconnect); -1: push the "
        "current decision, if any."))
    events_after: WholeNumber | None = Field(default=None, ge=0, le=2**63 - 1, description=(
        "Push the events after this id (0: all); null: no events."))


class UnsubscribeMessage(_ClientMessage):
    """Stop following a table."""

    type: Literal["unsubscribe"]
    table_id: _TableId


class SubscribeAssignmentsMessage(_ClientMessage):
    """Follow your tournament assignments after the stream id ``after``."""

    type: Literal["subscribe_assignments"]
    after: str = Field(default="0", pattern=r"^[0-9]{1,20}(-[0-9]{1,20})?$")


class ActMessage(_ClientMessage):
    """One decision for your seat, as ``POST /v1/tables/{id}/actions`` takes it."""

    type: Literal["act"]
    ref: _Ref
    table_id: _TableId
    version: WholeNumber = Field(ge=0)
    action: str | ActionObject
    idempotency_key: str | None = Field(default=None, min_length=1, max_length=200, description=(
        "Send one (the SDK does): a retry after a reconnect is then applied at most once."))


ClientMessage = Annotated[
    AuthMessage | SubscribeMessage | UnsubscribeMessage | SubscribeAssignmentsMessage
    | ActMessage,
    Field(discriminator="type"),
]
"""Any message a client sends."""


class WelcomeMessage(_ServerMessage):
    """The connection is authenticated (also after a fresh ``auth``)."""

    type: Literal["welcome"] = "welcome"
    agent_id: str
    expires_at: float = Field(description="When the token expires (Unix seconds): the "
                              "connection closes then with 4440 unless a fresh `auth` came.")


class ObservationMessage(_ServerMessage):
    """Your seat must decide: act on ``observation.version``."""

    type: Literal["observation"] = "observation"
    table_id: str
    observation: ObservationOut


class EventsMessage(_ServerMessage):
    """Events you may see, in order, each once; resume after ``last_id``."""

    type: Literal["events"] = "events"
    table_id: str
    events: list[EventOut]
    last_id: int


class EndMessage(_ServerMessage):
    """The table is over (or you may no longer see it): the last message of its subscription."""

    type: Literal["end"] = "end"
    table_id: str
    observation: ObservationOut | None = Field(
        default=None, description="The final observation (with the outcome).")


class AssignmentsMessage(_ServerMessage):
    """Tables you must play, or the end of a tournament; resume after ``last_id``."""

    type: Literal["assignments"] = "assignments"
    assignments: list[AssignmentOut]
    last_id: str


class AcceptedMessage(_ServerMessage):
    """An ``act`` was applied (or answered again for its idempotency key)."""

    type: Literal["accepted"] = "accepted"
    ref: str
    table_id: str
    result: ActionResult


class ProblemMessage(_ServerMessage):
    """A message was refused, or a subscription ended by an error: the same problem
    document HTTP answers (``code`` and all)."""

    type: Literal["problem"] = "problem"
    ref: str | None = None
    table_id: str | None = None
    problem: dict[str, Any] = Field(description="An RFC 9457 problem document with `code`.")


ServerMessage = Annotated[
    WelcomeMessage | ObservationMessage | EventsMessage | EndMessage | AssignmentsMessage
    | AcceptedMessage | ProblemMessage,
    Field(discriminator="type"),
]
"""Any message the server sends."""
