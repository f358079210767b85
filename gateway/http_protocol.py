"""uvicorn's HTTP protocols with ``TCP_NODELAY`` on every connection, and the choice between them.

With ``--workers`` above 1, uvicorn's workers accept on a socket rebuilt from a
file descriptor whose ``proto`` is 0, so asyncio skips ``TCP_NODELAY`` on the
accepted connections. The response then leaves in two writes (head, body), the
second one waits for the client's delayed ACK, and every request costs about
40 ms. Setting the option in ``connection_made`` (the asyncio protocol's public
hook; uvicorn takes a protocol class through its ``http`` setting) restores
sub-millisecond answers.

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

__all__ = ["NoDelayH11Protocol", "NoDelayHttpToolsProtocol", "ServerOptions", "server_options"]


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


if importlib.util.find_spec("httptools") is not None:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class NoDelayHttpToolsProtocol(HttpToolsProtocol):
        """The httptools protocol, with Nagle's algorithm switched off per connection."""

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            """Set ``TCP_NODELAY`` on the connection's socket, then carry on as httptools does."""
            _no_delay(transport)
            super().connection_made(transport)  # type: ignore[arg-type]

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
