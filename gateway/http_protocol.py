"""uvicorn's HTTP protocols as the gateway serves them: ``TCP_NODELAY`` on every connection,
and a request head bounded in time and in bytes, whichever parser reads it.

``TCP_NODELAY``: with ``--workers`` above 1, uvicorn's workers accept on a
socket rebuilt from a file descriptor whose ``proto`` is 0, so asyncio skips
``TCP_NODELAY`` on the accepted connections. The response then leaves in two
writes (head, body), the second one waits for the client's delayed ACK, and
every request costs about 40 ms. Setting the option in ``connection_made``
restores sub-millisecond answers.

The head: the ASGI app only sees a request once its head is parsed
(:mod:`gateway.request_limits` bounds what it then sees), and uvicorn bounds
neither how long a head may take to arrive nor, under httptools, how large an
unfinished one may grow: a client trickling a byte at a time held its
connection for ever, and twenty unterminated 25 MB headers cost a worker about
590 MB. :class:`HeadGuard` is the one mechanism for both parsers. A head is
*open* from the connection's opening, and from the first byte of each later
request, until its last header was read; while one is open:

- it must complete within ``AGENTS_CLUB_HEAD_TIMEOUT_S`` of when it opened, or
  the connection is answered 408 ``request/timeout`` (when some of the head had
  come and no answer is being written) and closed; a connection that never sent
  a byte is closed without an answer;
- the bytes it has taken may not exceed ``AGENTS_CLUB_MAX_HEADER_BYTES`` plus
  :data:`REQUEST_LINE_BYTES`, or it is answered 431
  ``request/headers_too_large`` and closed (the parser has buffered no more
  than that and one read of the socket).

Between requests the keep-alive timeout (uvicorn's own) closes an idle
connection. Each parser only says when a head is open: httptools through its
parser callbacks ``on_message_begin`` and ``on_headers_complete``, h11 through
its connection's public state (``their_state`` is ``IDLE`` until a request's
head is read). Everything here overrides public methods of uvicorn's protocol
classes (an asyncio ``Protocol``'s hooks and httptools' callbacks), which
uvicorn takes through its ``http`` setting.

:func:`server_options` picks the fastest pair installed: the ``httptools``
parser on ``uvloop`` (both are dependencies on Linux and macOS; in
``bench/gateway.py`` they cut the gateway's CPU per request by about a third)
or, where they are missing or ``AGENTS_CLUB_HTTP_PARSER=h11`` asks for it, the
pure-Python ``h11`` parser.
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import importlib.util
import json
import socket
from collections.abc import Callable
from typing import Any, Literal, NamedTuple, TypedDict

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from gateway.config import get_settings
from gateway.errors import PROBLEM_CONTENT_TYPE, ProblemError
from gateway.request_limits import head_too_slow, headers_too_large

__all__ = [
    "REQUEST_LINE_BYTES",
    "SEND_AT_ONCE_BYTES",
    "GatewayH11Protocol",
    "GatewayHttpToolsProtocol",
    "HeadGuard",
    "HeadLimits",
    "OneSendPerTurn",
    "ServerOptions",
    "head_limits",
    "server_options",
]

REQUEST_LINE_BYTES = 8 * 1024
"""Bytes a head may take beyond ``max_header_bytes`` (which counts header names and
values only): the request line, and each header's ``: `` and line end."""


class HeadLimits(NamedTuple):
    """How long a request head may take to arrive, how many bytes it may take, and the
    header limits its 431 names."""

    timeout_s: float
    max_bytes: int
    header_count: int
    header_bytes: int


def head_limits() -> HeadLimits:
    """The limits of this process's settings (``AGENTS_CLUB_HEAD_TIMEOUT_S``,
    ``AGENTS_CLUB_MAX_HEADER_BYTES``): uvicorn makes the protocol, so it reads them itself."""
    settings = get_settings()
    return HeadLimits(settings.head_timeout_s, settings.max_header_bytes + REQUEST_LINE_BYTES,
                      settings.max_header_count, settings.max_header_bytes)


def _no_delay(transport: asyncio.BaseTransport) -> None:
    """Switch Nagle's algorithm off on ``transport``'s TCP socket (if it is one)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):  # not a TCP socket after all: nothing to tune
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class OneSendPerTurn(asyncio.Transport):
    """A connection's transport whose writes in one turn of the event loop leave together.

    uvicorn writes a response's head and its body separately, and each write is
    a system call and, with ``TCP_NODELAY``, a packet of its own (the two writes
    were 6-7 % of a worker's profile samples at 3,000 agents). Writes are
    gathered and sent at the end of the turn (``call_soon``), in order; a write
    of :data:`SEND_AT_ONCE_BYTES` or more, a close and an end of file send what
    is gathered first. Everything else is the wrapped transport's own.
    """

    def __init__(self, inner: asyncio.Transport) -> None:
        super().__init__()
        self.inner = inner
        self.loop = asyncio.get_running_loop()
        self.pending: list[bytes] = []
        self.gathered = 0
        self.scheduled = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Gather ``data``; it leaves at the end of this turn of the loop."""
        if not data:
            return
        self.pending.append(bytes(data))
        self.gathered += len(data)
        if self.gathered >= SEND_AT_ONCE_BYTES:
            self.send()
        elif not self.scheduled:
            self.scheduled = True
            self.loop.call_soon(self.send)

    def writelines(self, list_of_data: Any) -> None:
        """Gather each piece, as :meth:`write` does."""
        for data in list_of_data:
            self.write(data)

    def send(self) -> None:
        """Send what was gathered, in one write (nothing once the connection closes)."""
        self.scheduled = False
        if not self.pending:
            return
        data = self.pending[0] if len(self.pending) == 1 else b"".join(self.pending)
        self.pending.clear()
        self.gathered = 0
        if not self.inner.is_closing():
            self.inner.write(data)

    def close(self) -> None:
        """Send what was gathered, then close."""
        self.send()
        self.inner.close()

    def write_eof(self) -> None:
        """Send what was gathered, then end the stream."""
        self.send()
        self.inner.write_eof()

    def abort(self) -> None:
        """Drop what was gathered and close at once."""
        self.pending.clear()
        self.gathered = 0
        self.inner.abort()

    def can_write_eof(self) -> bool:
        return self.inner.can_write_eof()

    def get_write_buffer_size(self) -> int:
        """The wrapped transport's buffer and what is gathered here."""
        return self.inner.get_write_buffer_size() + self.gathered

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self.inner.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self.inner.set_write_buffer_limits(high, low)

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.inner.get_extra_info(name, default)

    def is_closing(self) -> bool:
        return self.inner.is_closing()

    def is_reading(self) -> bool:
        return self.inner.is_reading()

    def pause_reading(self) -> None:
        self.inner.pause_reading()

    def resume_reading(self) -> None:
        self.inner.resume_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.inner.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self.inner.get_protocol()


SEND_AT_ONCE_BYTES = 64 * 1024
"""Gathered bytes that are sent without waiting for the end of the turn (a large body)."""


def refusal(problem: ProblemError) -> bytes:
    """A whole ``Connection: close`` HTTP/1.1 answer carrying ``problem`` (written by the
    protocol itself, before any request reached the app)."""
    body = json.dumps(problem.to_problem(), separators=(",", ":")).encode()
    head = (f"HTTP/1.1 {problem.status} {http.HTTPStatus(problem.status).phrase}\r\n"
            f"content-type: {PROBLEM_CONTENT_TYPE}\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n")
    return head.encode("ascii") + body


def _not_answering() -> bool:
    """What a closed connection's guard is told: no response is being written."""
    return False


class HeadGuard:
    """One connection's open request head: its deadline and its byte count (see the module).

    The protocol tells it when the connection opened (:meth:`opened`), what each read
    did (:meth:`fed`) and when the connection went (:meth:`closed`); ``answering`` says
    whether a response is being written (then no 408 is written in the middle of it).
    """

    __slots__ = ("answering", "has_bytes", "limits", "loop", "size", "timer", "transport")

    def __init__(self, limits: HeadLimits, answering: Callable[[], bool]) -> None:
        self.limits = limits
        self.answering = answering
        self.transport: asyncio.Transport | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.size = 0
        """Bytes counted for the open head."""
        self.has_bytes = False
        """Whether any byte of the open head came (else a deadline closes silently)."""

    def opened(self, transport: asyncio.Transport) -> None:
        """The connection is made: its first head is due within the deadline."""
        self.transport = transport
        self.loop = asyncio.get_running_loop()
        self.arm()

    def fed(self, *, head_open: bool, counted: int, began: bool) -> None:
        """The parser read a chunk. ``head_open``: a head is still incomplete after it;
        ``counted``: the chunk's bytes that surely belong to that head (0 when unsure: a
        chunk that also ended a request is not counted, so pipelined requests are never
        taken for one big head); ``began``: the chunk began a new request."""
        if self.transport is None or self.transport.is_closing():
            self.closed()
            return
        if not head_open:
            self.disarm()
            return
        self.size += counted
        self.has_bytes = self.has_bytes or began or counted > 0
        if self.size > self.limits.max_bytes:
            self.refuse(headers_too_large(self.limits.header_count, self.limits.header_bytes))
            return
        self.arm()

    def arm(self) -> None:
        """Start the deadline of the open head, unless it runs already."""
        if self.timer is None and self.loop is not None:
            self.timer = self.loop.call_later(self.limits.timeout_s, self.expired)

    def disarm(self) -> None:
        """The head is complete: no deadline, no count, until the next one opens."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.size = 0
        self.has_bytes = False

    def expired(self) -> None:
        """The deadline passed with the head still open: 408 (if any of it came), close."""
        self.timer = None
        if self.has_bytes:
            self.refuse(head_too_slow(self.limits.timeout_s))
        elif self.transport is not None:
            self.transport.close()

    def refuse(self, problem: ProblemError) -> None:
        """Answer ``problem`` (unless a response is being written) and close."""
        self.disarm()
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        if not self.answering():
            transport.write(refusal(problem))
        transport.close()

    def closed(self) -> None:
        """The connection went: drop the deadline, and what ties this guard to it.

        ``answering`` is a method of the protocol that holds this guard: kept, that
        cycle left each closed connection (its protocol, transport and last request,
        some 30 objects) to wait for a full collection, minutes away, and a worker
        serving agents that reconnect after thinking grew by tens of MB a minute.
        """
        self.disarm()
        self.transport = None
        self.answering = _not_answering


class _HeadGuarded:
    """What both protocols add the same way: ``TCP_NODELAY``, a :class:`HeadGuard`
    started with the connection and dropped with it. Listed before uvicorn's
    protocol class, so ``super()`` is that class."""

    cycle: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.head_guard = HeadGuard(head_limits(), self.answering)

    def answering(self) -> bool:
        """Whether a response is being written on this connection."""
        return self.cycle is not None and not self.cycle.response_complete

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Set ``TCP_NODELAY``, gather each turn's writes into one send
        (:class:`OneSendPerTurn`), carry on as the parser's protocol does, and start
        the first head's deadline."""
        _no_delay(transport)
        # uvloop's transports are asyncio's in all but name (not its subclasses).
        if callable(getattr(transport, "write", None)):
            transport = OneSendPerTurn(transport)  # type: ignore[arg-type]
        super().connection_made(transport)  # type: ignore[misc]
        self.head_guard.opened(transport)  # type: ignore[arg-type]

    def connection_lost(self, exc: Exception | None) -> None:
        """Drop the head's deadline, then carry on as the parser's protocol does."""
        self.head_guard.closed()
        super().connection_lost(exc)  # type: ignore[misc]


class GatewayH11Protocol(_HeadGuarded, H11Protocol):
    """The h11 protocol with ``TCP_NODELAY`` and a :class:`HeadGuard`."""

    def head_open(self) -> bool:
        """A request head is incomplete: h11 waits for one (``IDLE``) and either some of it
        came or the connection's first one is still due."""
        return self.conn.their_state is h11.IDLE and (
            self.head_guard.timer is not None or bool(self.conn.trailing_data[0]))

    def data_received(self, data: bytes) -> None:
        """Parse as h11 does, then account the chunk to the open head, if any."""
        was_open = self.conn.their_state is h11.IDLE
        began = was_open and not self.conn.trailing_data[0]
        super().data_received(data)
        still_open = self.head_open()
        self.head_guard.fed(head_open=still_open, counted=len(data) if was_open and still_open
                            else 0, began=began)

    def on_response_complete(self) -> None:
        """After an answer h11 may hold the start of a pipelined head: its deadline runs."""
        super().on_response_complete()
        if self.conn.their_state is h11.IDLE and self.conn.trailing_data[0]:
            self.head_guard.fed(head_open=True, counted=0, began=True)



if importlib.util.find_spec("httptools") is not None:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class GatewayHttpToolsProtocol(_HeadGuarded, HttpToolsProtocol):
        """The httptools protocol with ``TCP_NODELAY`` and a :class:`HeadGuard`."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.head_is_open = True
            """A connection's first head is open from its opening."""
            self.head_began = False

        def data_received(self, data: bytes) -> None:
            """Parse as httptools does, then account the chunk to the open head, if any."""
            was_open = self.head_is_open
            self.head_began = False
            super().data_received(data)
            # A chunk in which a request began may hold the end of the one before.
            counted = len(data) if was_open and self.head_is_open and not self.head_began else 0
            self.head_guard.fed(head_open=self.head_is_open, counted=counted,
                                began=self.head_began)

        def on_message_begin(self) -> None:
            """The first byte of a request: its head is open."""
            super().on_message_begin()
            self.head_is_open = True
            self.head_began = True

        def on_headers_complete(self) -> None:
            """The head's last header: it is closed (the body has its own deadline)."""
            self.head_is_open = False
            super().on_headers_complete()

else:  # pragma: no cover - httptools is a dependency wherever it has wheels
    GatewayHttpToolsProtocol = GatewayH11Protocol  # type: ignore[misc,assignment]


class ServerOptions(TypedDict):
    """Keyword arguments of ``uvicorn.run`` (also its ``--http`` and ``--loop`` options)."""

    http: str
    loop: str


def server_options(parser: Literal["auto", "h11"] = "auto") -> ServerOptions:
    """uvicorn's ``http`` and ``loop`` settings: httptools on uvloop when installed (and
    ``parser`` is ``auto``), else h11; the gateway's protocol class either way."""
    fast_parser = parser == "auto" and importlib.util.find_spec("httptools") is not None
    fast_loop = importlib.util.find_spec("uvloop") is not None
    return {
        "http": "gateway.http_protocol:"
        + ("GatewayHttpToolsProtocol" if fast_parser else "GatewayH11Protocol"),
        "loop": "uvloop" if fast_loop else "asyncio",
    }
