"""uvicorn's h11 HTTP protocol with ``TCP_NODELAY`` on every connection.

With ``--workers`` above 1, uvicorn's workers accept on a socket rebuilt from a
file descriptor whose ``proto`` is 0, so asyncio skips ``TCP_NODELAY`` on the
accepted connections. The response then leaves in two writes (head, body), the
second one waits for the client's delayed ACK, and every request costs about
40 ms. Setting the option in ``connection_made`` restores sub-millisecond
answers. Use with ``uvicorn --http gateway.http_protocol:NoDelayH11Protocol``
(or ``http=NoDelayH11Protocol`` in ``uvicorn.run``).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["NoDelayH11Protocol"]


class NoDelayH11Protocol(H11Protocol):
    """The h11 protocol, with Nagle's algorithm switched off per connection."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Set ``TCP_NODELAY`` on the connection's socket, then carry on as h11 does."""
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):  # not a TCP socket after all: nothing to tune
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)  # type: ignore[arg-type]
