"""The lean connections :func:`gateway.store.connection.round_trip` runs on.

redis-py's pool costs a health check, a retry wrapper, observability hooks
and a parser layer per reply on every call: more CPU than the round trip
itself under ``bench/gateway.py`` (``bench/redis_round_trip.py`` measures
both). :class:`LeanClient` is redis-py's asyncio client plus a small
:class:`LeanPool` of raw connections (:class:`LeanConnection`: an asyncio
protocol feeding a hiredis reader configured as redis-py's), used only for
round trips; everything else goes through redis-py as usual.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Sequence
from typing import Any, cast

import hiredis
import redis.asyncio as aioredis
from redis._parsers import _AsyncHiredisParser
from redis.asyncio.connection import Connection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import InvalidResponse
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.typing import EncodableT
from redis.utils import format_error_message

from gateway.store.resp import pack_commands

__all__ = ["CLOSED_BY_SERVER", "LeanClient", "LeanConnection", "LeanPool", "lean_pool_for"]

_NOT_ENOUGH_DATA = object()
"""What hiredis answers while a reply is incomplete (None and False are replies)."""

CLOSED_BY_SERVER = "Connection closed by server."  # redis-py's words for it

# A RESP3 push (out of band, not a reply); hiredis before 3.2 has no such type (and
# redis-py then takes a push for a reply, as this would).
_PUSH_NOTIFICATION: Any = getattr(hiredis, "PushNotification", ())


class LeanConnection(asyncio.Protocol):
    """One raw connection to Redis: bytes in, exactly N replies out per exchange.

    An ``asyncio.Protocol``, not a stream: what arrives is fed straight to a
    ``hiredis.Reader`` configured as redis-py's hiredis parser configures
    its own (the same error classes), and the caller's future is resolved
    once the N replies are parsed: one wake-up per round trip, no stream
    buffer, no read loop.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._reader = hiredis.Reader(
            protocolError=InvalidResponse,
            replyError=_AsyncHiredisParser.parse_error,
            notEnoughData=_NOT_ENOUGH_DATA,
        )
        self._transport: asyncio.Transport | None = None
        self._waiter: asyncio.Future[list[Any]] | None = None
        self._replies: list[Any] = []
        self._wanted = 0
        self.closed: asyncio.Future[None] = loop.create_future()
        """Done once the socket is closed (``connection_lost``), for a clean shutdown."""

    @property
    def usable(self) -> bool:
        """Open and in step: no exchange under way, nothing unread."""
        return (self._transport is not None and not self._transport.is_closing()
                and self._waiter is None and not self._reader.has_data())

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Keep the transport (a TCP one: uvloop's does not subclass ``asyncio.Transport``)."""
        self._transport = cast(asyncio.Transport, transport)

    async def exchange(self, packed: bytes, count: int) -> list[Any]:
        """Write ``packed`` and wait for its ``count`` replies (error replies as exceptions)."""
        if self._transport is None or self._transport.is_closing():
            raise RedisConnectionError(CLOSED_BY_SERVER)
        self._replies, self._wanted = [], count
        waiter: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self._waiter = waiter
        self._transport.write(packed)
        return await waiter

    def data_received(self, data: bytes) -> None:
        """Parse what came; resolve the exchange once all its replies are in."""
        self._reader.feed(data)
        waiter, replies = self._waiter, self._replies
        try:
            while True:
                if waiter is not None and len(replies) == self._wanted:
                    self._waiter = None
                    if not waiter.done():
                        waiter.set_result(replies)
                    return
                reply = self._reader.gets()
                if reply is _NOT_ENOUGH_DATA:
                    return
                if isinstance(reply, _PUSH_NOTIFICATION):
                    continue  # out of band (RESP3 push): redis-py's parser skips it too
                if waiter is None:  # a reply nobody asked for: out of step, never reuse
                    raise InvalidResponse("unexpected reply from Redis")
                replies.append(reply)
        except InvalidResponse as error:  # the stream cannot be trusted past this
            self._fail(error)

    def eof_received(self) -> bool:
        """Redis closed its side: let the transport close (``connection_lost`` follows)."""
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        """Fail an exchange under way; mark the connection closed."""
        message = CLOSED_BY_SERVER if exc is None else f"Error while reading from Redis: {exc}"
        self._fail(RedisConnectionError(message))
        if not self.closed.done():
            self.closed.set_result(None)

    def abort(self) -> None:
        """Close at once, dropping whatever is in flight (never reused after)."""
        if self._transport is not None:
            self._transport.abort()

    def _fail(self, error: Exception) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(error)
        self.abort()


class LeanPool:
    """The raw connections of one client, opened with the handshake redis-py would make.

    The settings (host, port, credentials, database, client name, driver
    info, keepalive, connect timeout) are read from a redis-py ``Connection``
    built from the client's pool's own arguments (never connected), so the
    URL means exactly what it means to redis-py. The handshake travels as
    one pipeline: ``HELLO 3`` (with ``AUTH`` when a password is set), ``CLIENT
    SETNAME`` when named, ``CLIENT SETINFO`` (its errors ignored, as redis-py
    ignores them on a Redis older than 7.2) and ``SELECT`` when the database
    is not 0. Idle connections are reused last in, first out.
    """

    def __init__(self, template: Connection) -> None:
        self._host, self._port = template.host, template.port
        self._connect_timeout = template.socket_connect_timeout
        self._keepalive: dict[int, int | bytes] | None = (
            dict(template.socket_keepalive_options) if template.socket_keepalive else None)  # type: ignore[call-overload]
        hello: list[EncodableT] = ["HELLO", 3]
        if template.username or template.password:
            hello += ["AUTH", template.username or "default", template.password or ""]
        handshake: list[Sequence[EncodableT]] = [hello]
        self._named = bool(template.client_name)
        if template.client_name:
            handshake.append(("CLIENT", "SETNAME", template.client_name))
        info = template.driver_info
        self._infos = 0
        for field, value in (("LIB-NAME", info and info.formatted_name),
                             ("LIB-VER", info and info.lib_version)):
            if isinstance(value, str) and value:
                handshake.append(("CLIENT", "SETINFO", field, value))
                self._infos += 1
        self._select = bool(template.db)
        if template.db:
            handshake.append(("SELECT", template.db))
        self._handshake, self._handshake_replies = pack_commands(handshake), len(handshake)
        self._idle: list[LeanConnection] = []
        self._open: set[LeanConnection] = set()
        self._closed = False

    async def acquire(self) -> LeanConnection:
        """An idle connection still open (one Redis closed is dropped), else a new one.

        No ``PING`` first, where redis-py's health check pings a connection idle
        for 30 s: its pool cannot tell that Redis closed a socket without reading
        it, while here the event loop tells the protocol (``connection_lost``) as
        soon as Redis closes it, and such a connection is dropped here. A close
        that races the write fails the exchange, which is retried once on a
        fresh connection, as a failed ``PING`` costs redis-py a reconnect; a peer
        gone silent (no FIN) would hang a ``PING`` as it hangs the command (no
        socket timeout) and is found by TCP keepalive, set as redis-py sets it.
        """
        while self._idle:
            connection = self._idle.pop()
            if connection.usable:
                return connection
            connection.abort()
        return await self.open()

    def release(self, connection: LeanConnection) -> None:
        """Back to the idle ones after a whole exchange."""
        if connection.usable:
            self._idle.append(connection)
        else:
            connection.abort()

    async def open(self) -> LeanConnection:
        """A new connection, handshake done; errors as redis-py words them."""
        if self._closed:  # a round trip still retrying as the client closes: open nothing new
            raise RedisConnectionError("the client is closed")
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self._connect_timeout):
                transport, connection = await loop.create_connection(
                    lambda: LeanConnection(loop), self._host, self._port)
        except TimeoutError:
            raise RedisTimeoutError("Timeout connecting to server") from None
        except OSError as error:
            raise RedisConnectionError(
                format_error_message(f"{self._host}:{self._port}", error)) from error
        self._open.add(connection)
        connection.closed.add_done_callback(lambda _: self._open.discard(connection))
        try:
            sock = transport.get_extra_info("socket")
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._keepalive is not None:  # as redis-py: a dead peer is found without a write
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
                for option, value in self._keepalive.items():
                    sock.setsockopt(socket.SOL_TCP, option, value)
            replies = await connection.exchange(self._handshake, self._handshake_replies)
            self._check_handshake(replies)
        except BaseException:
            connection.abort()
            raise
        return connection

    def _check_handshake(self, replies: list[Any]) -> None:
        """Raise what redis-py raises for a failed handshake (a wrong password, a bad db).

        An error reply is raised as it is (``AuthenticationError``, ``DB index is
        out of range``), as redis-py's handshake raises it; the first one wins
        (after a refused ``AUTH`` the others only say ``NOAUTH``).
        """
        hello, rest = replies[0], replies[1:]
        if isinstance(hello, Exception):
            raise hello
        if not isinstance(hello, dict) or hello.get(b"proto") != 3:
            raise RedisConnectionError("Invalid RESP version")
        if self._named:
            if isinstance(rest[0], Exception):
                raise rest[0]
            if rest[0] != b"OK":
                raise RedisConnectionError("Error setting client name")
            rest = rest[1:]
        rest = rest[self._infos:]  # CLIENT SETINFO: an old Redis refuses it, harmlessly
        if self._select:
            if isinstance(rest[0], Exception):
                raise rest[0]
            if rest[0] != b"OK":
                raise RedisConnectionError("Invalid Database")

    async def aclose(self) -> None:
        """Close every connection and wait until their sockets are closed."""
        self._closed = True
        self._idle.clear()
        closing = list(self._open)
        for connection in closing:
            connection.abort()
        await asyncio.gather(*(connection.closed for connection in closing))


def lean_pool_for(pool: ConnectionPool) -> LeanPool | None:
    """The lean pool for a redis-py pool's settings, or None when it cannot do them.

    Plain TCP with RESP3, redis-py's defaults for a ``redis://`` URL. A unix
    socket or TLS (another connection class), RESP2, a credential provider,
    a connect callback, decoded responses or a socket timeout keep to redis-py's
    pool: the lean path would have to redo what redis-py does for them.
    """
    if pool.connection_class is not Connection:
        return None
    template = Connection(**pool.connection_kwargs)
    if (template.protocol != 3 or template.credential_provider is not None
            or template.redis_connect_func is not None or template.encoder.decode_responses
            or template.socket_timeout is not None):
        return None
    return LeanPool(template)


class LeanClient(aioredis.Redis):
    """redis-py's asyncio client, plus the lean connections :func:`round_trip` uses.

    Everything else (single commands, pipelines, scripts) goes through
    redis-py's pool as usual; ``aclose`` closes both.
    """

    _lean_pool: LeanPool | None = None

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        """Close the lean connections, then what redis-py's client closes."""
        if self._lean_pool is not None:
            await self._lean_pool.aclose()
        await super().aclose(close_connection_pool)
