"""uvicorn's HTTP protocols with ``TCP_NODELAY`` on every connection, and the choice between them.

With ``--workers`` above 1, uvicorn's workers accept on a socket rebuilt from a
file descriptor whose ``proto`` is 0, so asyncio skips ``TCP_NODELAY`` on the
accepted connections. The response then leaves in two writes (head, body), the
second one waits for the client's delayed ACK, and every request costs about
40 ms. Setting the option in ``connection_made`` restores sub-millisecond
answers. The httptools protocol also sends each response's head and body in
one write (:class:`HeldHead`): on loopback a socket write is the dearest step
of a small request.

:func:`server_options` picks the fastest pair installed: the ``httptools``
parser on ``uvloop`` (both are dependencies on Linux and macOS; in
``bench/gateway.py`` they cut the gateway's CPU per request by about a third)
or, where they are missing, the pure-Python ``h11`` parser on asyncio's loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import socket
from typing import TypedDict

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = [
    "HeldHead", "NoDelayH11Protocol", "NoDelayHttpToolsProtocol", "ServerOptions", "server_options",
]


def _no_delay(transport: asyncio.BaseTransport) -> None:
    """Switch Nagle's algorithm off on ``transport``'s TCP socket (if it is one)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):  # not a TCP socket after all: nothing to tune
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class NoDelayH11Protocol(H11Protocol):
    """The h11 protocol, with Nagle's algorithm switched off per connection."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Set ``TCP_NODELAY`` on the connection's socket, then carry on as h11 does."""
        _no_delay(transport)
        super().connection_made(transport)  # type: ignore[arg-type]


class HeldHead:
    """A connection's transport as one response sees it: its first write is held until the
    next one, so a response's head and body leave in one write instead of two.

    uvicorn writes a response's head and its body separately, and on loopback
    each write to a socket is the dearest step of a small request
    (``bench/gateway.py`` under py-spy: the two writes of every answer cost
    about a seventh of a worker's CPU). The head is held only until the
    body's first write (in the same turn of the event loop for an answer made
    at once) or the end of that turn at the latest, so a streamed response
    (Server-Sent Events) still sends its head at once. ``close`` sends what
    is held first; everything else is the transport's own.
    """

    __slots__ = ("_held", "_transport", "_untouched")

    def __init__(self, transport: asyncio.Transport) -> None:
        self._transport = transport
        self._held: bytes | None = None
        self._untouched = True

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Hold the first write (until the next or the end of this loop turn); send the rest."""
        if self._untouched:
            self._untouched = False
            self._held = bytes(data)
            asyncio.get_running_loop().call_soon(self.flush)
            return
        if self._held is not None:
            data, self._held = self._held + bytes(data), None
        self._transport.write(data)

    def flush(self) -> None:
        """Send what is held, if anything (and the connection is still open)."""
        if self._held is not None:
            held, self._held = self._held, None
            if not self._transport.is_closing():
                self._transport.write(held)

    def close(self) -> None:
        """Send what is held, then close the connection."""
        self.flush()
        self._transport.close()

    def is_closing(self) -> bool:
        """Whether the connection is closing."""
        return self._transport.is_closing()

    def __getattr__(self, name: str) -> object:
        return getattr(self._transport, name)  # any other transport method, as it is


if importlib.util.find_spec("httptools") is not None:
    from uvicorn._types import ASGI3Application
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

    class NoDelayHttpToolsProtocol(HttpToolsProtocol):
        """The httptools protocol, with Nagle's algorithm switched off per connection and each
        response's head and body sent in one write (:class:`HeldHead`)."""

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            """Set ``TCP_NODELAY`` on the connection's socket, then carry on as httptools does."""
            _no_delay(transport)
            super().connection_made(transport)  # type: ignore[arg-type]

        def _start_asgi_task(self, cycle: RequestResponseCycle, app: ASGI3Application) -> None:
            # One response runs at a time on a connection (uvicorn queues pipelined
            # requests until the one before is answered), so each gets its own holder.
            # This is uvicorn's own (private) hook for starting a response; if a
            # release stopped calling it, answers would go out in two writes again,
            # and tests/gateway/test_http_protocol.py would say so.
            cycle.transport = HeldHead(self.transport)  # type: ignore[assignment]
            super()._start_asgi_task(cycle, app)

else:  # pragma: no cover - httptools is a dependency wherever it has wheels
    NoDelayHttpToolsProtocol = NoDelayH11Protocol  # type: ignore[misc,assignment]


class ServerOptions(TypedDict):
    """Keyword arguments of ``uvicorn.run`` (also its ``--http`` and ``--loop`` options)."""

    http: str
    loop: str


def server_options() -> ServerOptions:
    """uvicorn's ``http`` and ``loop`` settings: httptools on uvloop when installed, else h11."""
    fast_parser = importlib.util.find_spec("httptools") is not None
    fast_loop = importlib.util.find_spec("uvloop") is not None
    return {
        "http": "gateway.http_protocol:"
        + ("NoDelayHttpToolsProtocol" if fast_parser else "NoDelayH11Protocol"),
        "loop": "uvloop" if fast_loop else "asyncio",
    }
