"""The bot socket (``/v1/ws``) from a synchronous program: :class:`BotSocket`.

One connection, authenticated once with the client's token (renewed with its
credentials when the server closes the socket because the token expired). The
messages are the wire models of :mod:`agents.wire.socket`; the server pushes
the seat's observation whenever it must decide, so a bot sends one message per
decision and reads one back. :class:`~agents.Runner` plays over it by default.

Errors: a token the server refuses raises its :class:`~agents.AuthError`
subclass (as HTTP would); a server without the socket (an older gateway, a proxy
that refuses upgrades) raises :class:`SocketUnavailable`, on which callers fall
back to HTTP; a connection lost later raises :class:`SocketLost`, after which a
caller opens a new one and resumes (subscribe with ``after_version`` and
``events_after``; resend an unanswered action with its idempotency key).
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from websockets.exceptions import (
    ConnectionClosed,
    InvalidHandshake,
    InvalidMessage,
    InvalidStatus,
    InvalidURI,
)
from websockets.sync.client import ClientConnection, connect

from agents._client import Client
from agents._exceptions import AgentsClubError, AuthExpired, error_from_problem
from agents.wire.socket import (
    CLOSE_AUTH_EXPIRED,
    CLOSE_AUTH_FAILED,
    CLOSE_AUTH_REVOKED,
    CLOSE_AUTH_TIMEOUT,
    SOCKET_PATH,
    ServerMessage,
    WelcomeMessage,
)

__all__ = ["BotSocket", "SocketLost", "SocketUnavailable", "socket_url"]

_SERVER_MESSAGE: TypeAdapter[Any] = TypeAdapter(ServerMessage)
_UNKNOWN_KIND = frozenset({"union_tag_invalid", "union_tag_not_found"})
"""The errors of a message whose ``type`` this SDK does not know (or that has none): skipped."""

_AUTH_CLOSES = {
    CLOSE_AUTH_FAILED: "auth/invalid",
    CLOSE_AUTH_TIMEOUT: "auth/missing",
    CLOSE_AUTH_EXPIRED: "auth/expired",
    CLOSE_AUTH_REVOKED: "auth/revoked",
}


class SocketUnavailable(AgentsClubError):
    """The server does not serve the socket (or nothing answers at all): use HTTP."""


class SocketLost(AgentsClubError):
    """An open socket closed for a reason a new connection may not share (a restart, a
    dead network, an expired token): open another and resume."""

    def __init__(self, message: str, *, code: int | None) -> None:
        super().__init__(message)
        self.code = code


def socket_url(base_url: str) -> str:
    """The socket's address for an HTTP base URL (``http`` becomes ``ws``, ``https`` ``wss``)."""
    base = base_url.rstrip("/")
    if base.startswith("https://"):
        return "wss://" + base[len("https://"):] + SOCKET_PATH
    if base.startswith("http://"):
        return "ws://" + base[len("http://"):] + SOCKET_PATH
    return base + SOCKET_PATH


class BotSocket:
    """One connection to ``/v1/ws`` for ``client``'s agent.

    ``open_timeout_s`` bounds the opening handshake. Use it as a context manager, or call
    :meth:`close`.
    """

    def __init__(self, client: Client, *, open_timeout_s: float = 10.0) -> None:
        self.client = client
        self.open_timeout_s = open_timeout_s
        self._connection: ClientConnection | None = None
        self._stack = contextlib.ExitStack()

    def open(self) -> WelcomeMessage:
        """Connect and authenticate (the client's token, got first with its credentials
        when it has none; renewed once when the server says it expired).

        :raises SocketUnavailable: when the server does not serve the socket.
        :raises agents.AuthError: when the server refuses the token.
        """
        if not self.client.token and self.client.credentials is not None:
            self.client.renew_token()
        try:
            return self._open()
        except (AuthExpired, SocketLost) as refused:
            expired = isinstance(refused, AuthExpired) or refused.code == CLOSE_AUTH_EXPIRED
            if not expired or self.client.credentials is None:
                raise
        self.client.renew_token()
        return self._open()

    def _open(self) -> WelcomeMessage:
        self.close()
        headers = {"Authorization": f"Bearer {self.client.token}"} if self.client.token else {}
        try:
            self._connection = self._stack.enter_context(connect(
                socket_url(str(self.client.http.base_url)), additional_headers=headers,
                compression=None, open_timeout=self.open_timeout_s, proxy=None,
                max_size=2**24))
        except InvalidStatus as refused:
            if refused.response.status_code >= 500:  # a server or its proxy restarting
                raise SocketLost(f"{self.client.http.base_url} answered the upgrade with "
                                 f"{refused.response.status_code}", code=None) from refused
            raise SocketUnavailable(f"no socket at {self.client.http.base_url}: {refused!r}") \
                from refused
        except (OSError, TimeoutError, InvalidMessage) as unreachable:
            # Down or restarting (InvalidMessage: the connection ended before a whole HTTP
            # answer, as when the worker that took it died): try again later.
            raise SocketLost(f"cannot reach {self.client.http.base_url}: {unreachable!r}",
                             code=None) from unreachable
        except (InvalidURI, InvalidHandshake) as refused:
            raise SocketUnavailable(f"no socket at {self.client.http.base_url}: {refused!r}") \
                from refused
        first = self.receive()
        if not isinstance(first, WelcomeMessage):
            raise SocketLost(f"the server opened with {first!r}", code=None)
        return first

    def send(self, message: BaseModel | dict[str, Any]) -> None:
        """Send one client message (a model of :mod:`agents.wire.socket` or its dict).

        :raises SocketLost: when the connection is gone.
        """
        text = (message.model_dump_json(exclude_none=True) if isinstance(message, BaseModel)
                else json.dumps(message))
        try:
            self._live().send(text)
        except ConnectionClosed as closed:
            raise self._lost(closed) from None

    def receive(self, timeout_s: float | None = None) -> BaseModel | None:
        """The next server message (``None`` when ``timeout_s`` passed first); messages of a
        kind this SDK does not know yet are skipped.

        :raises SocketLost: when the connection closed (its ``code`` says why).
        :raises agents.AuthError: when the server closed it over the token (revoked,
            or refused when the connection began).
        """
        while True:
            try:
                text = self._live().recv(timeout=timeout_s)
            except TimeoutError:
                return None
            except ConnectionClosed as closed:
                raise self._lost(closed) from None
            try:
                parsed: BaseModel = _SERVER_MESSAGE.validate_json(text)
            except ValidationError as unreadable:
                if unreadable.errors()[0]["type"] in _UNKNOWN_KIND:
                    continue
                raise SocketLost(f"unreadable message: {unreadable}", code=None) from None
            return parsed

    def close(self) -> None:
        """Close the connection (nothing happens when none is open)."""
        self._connection = None
        self._stack.close()

    def __enter__(self) -> BotSocket:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _live(self) -> ClientConnection:
        if self._connection is None:
            raise SocketLost("the socket is not open", code=None)
        return self._connection

    def _lost(self, closed: ConnectionClosed) -> AgentsClubError:
        """The error for a closed connection: the token's own error for a close over it
        (but an expiry, which a new token mends), else :class:`SocketLost`."""
        frame = closed.rcvd
        code = frame.code if frame is not None else None
        reason = frame.reason if frame is not None else ""
        if code in _AUTH_CLOSES and code != CLOSE_AUTH_EXPIRED:
            problem_code = reason if reason.startswith("auth/") else _AUTH_CLOSES[code]
            return error_from_problem({"code": problem_code, "title": "Socket closed",
                                       "detail": f"The server closed the socket: {problem_code}.",
                                       "status": 401}, status=401)
        return SocketLost(f"the socket closed ({code}: {reason or 'no reason'})", code=code)
