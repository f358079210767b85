"""A lean HTTP/1.1 client for load generation: one keep-alive connection per simulated agent.

Why not httpx: on this project's 2-core machine an httpx ``AsyncClient``
spent about 2.5 ms of client CPU per request, so the load generator saturated
a whole core at a few hundred requests per second and the latencies it
reported were mostly its own queueing. A benchmark has to measure the server,
so the load generator must be cheap: this one writes each request with one
``write`` and reads the answer with ``readuntil`` + ``readexactly`` (tens of
microseconds). It speaks exactly what the gateway answers (``Content-Length``
or chunked bodies, keep-alive) and nothing more; it is not a general client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from websockets.exceptions import ConnectionClosed

__all__ = ["AgentConnection", "Answer", "LeanConnection"]


@dataclass(frozen=True)
class Answer:
    """A response: status code and raw body."""

    status: int
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)


class LeanConnection:
    """One persistent HTTP/1.1 connection, used by one coroutine at a time."""

    def __init__(self, base_url: str, headers: dict[str, str] | None = None) -> None:
        """Connect lazily to ``base_url`` (``http://host:port``); ``headers`` go on every request."""
        parts = urlsplit(base_url)
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port or 80
        common = {"Host": f"{self._host}:{self._port}", **(headers or {})}
        self._common = "".join(f"{name}: {value}\r\n" for name, value in common.items())
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def request(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        """Send one request and read its whole answer; reconnects once if the server closed."""
        if params:
            path = f"{path}?{urlencode(params)}"
        body = b"" if json_body is None else json.dumps(json_body).encode()
        head = f"{method} {path} HTTP/1.1\r\n{self._common}"
        if headers:
            head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        if json_body is not None:
            head += "Content-Type: application/json\r\n"
        head += f"Content-Length: {len(body)}\r\n\r\n"
        payload = head.encode() + body
        for attempt in (1, 2):
            if self._writer is None:
                self._reader, self._writer = await asyncio.open_connection(self._host, self._port)
            try:
                self._writer.write(payload)
                return await self._read_answer()
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def _read_answer(self) -> Answer:
        assert self._reader is not None
        head = await self._reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        length = None
        chunked = False
        close = False
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
            elif name == "connection" and value.strip().lower() == "close":
                close = True
        if chunked:
            body = await self._read_chunks()
        else:
            body = await self._reader.readexactly(length or 0)
        if close:
            await self.close()
        return Answer(status, body)

    async def _read_chunks(self) -> bytes:
        assert self._reader is not None
        parts: list[bytes] = []
        while True:
            size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await self._reader.readuntil(b"\r\n")
                return b"".join(parts)
            parts.append(await self._reader.readexactly(size))
            await self._reader.readexactly(2)

    async def close(self) -> None:
        """Close the connection (the next request opens a new one)."""
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()


class AgentConnection:
    """A simulated agent's keep-alive HTTP connection and, once it plays over one, its
    bot socket (``/v1/ws``, opened by the caller at its first table and kept).

    The two are held side by side, not one inside the other: the HTTP connection
    closes and opens itself again whenever the server ended it (its keep-alive
    timeout, while the agent played a whole table over the socket), and that must
    never close the socket. :meth:`close` ends both, at the end of a run."""

    def __init__(self, url: str, auth: dict[str, str]) -> None:
        self.http = LeanConnection(url, auth)
        self.auth = auth
        self.socket_url = url.replace("http://", "ws://") + "/v1/ws"
        self.socket: Any = None

    async def request(self, *args: Any, **kwargs: Any) -> Answer:
        """:meth:`LeanConnection.request` on the agent's HTTP connection."""
        return await self.http.request(*args, **kwargs)

    async def close(self) -> None:
        """Close the bot socket (if any) and the HTTP connection."""
        socket, self.socket = self.socket, None
        if socket is not None:
            with contextlib.suppress(ConnectionClosed, OSError):
                await socket.close()
        await self.http.close()
