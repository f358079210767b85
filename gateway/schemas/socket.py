"""Wire models of the WebSocket for bots (``/v1/ws``).

Defined in the SDK (``agents._wire.socket``) and re-exported: one definition of the wire
contract for the gateway and every SDK install.
"""

from agents._wire.socket import (
    CLOSE_AUTH_EXPIRED,
    CLOSE_AUTH_FAILED,
    CLOSE_AUTH_REVOKED,
    CLOSE_AUTH_TIMEOUT,
    CLOSE_CODES,
    CLOSE_PROTOCOL,
    CLOSE_UNAVAILABLE,
    SOCKET_PATH,
    AcceptedMessage,
    ActMessage,
    AssignmentsMessage,
    AuthMessage,
    ClientMessage,
    EndMessage,
    EventsMessage,
    ObservationMessage,
    ProblemMessage,
    ServerMessage,
    SubscribeAssignmentsMessage,
    SubscribeMessage,
    UnsubscribeMessage,
    WelcomeMessage,
)

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
