"""The Redis client and the key builder every store module shares.

Keys live under a namespace (``ac`` by default; tests use one per test) and
keys that belong to one table share a hash tag, so a Redis Cluster keeps a
table on one slot: ``<ns>:t:{<table_id>}:state``.

:func:`round_trip`, the path of every table read, commit and held wait, runs
on connections of its own (raw asyncio protocols and a hiredis reader) rather
than through redis-py's pool, whose per-call machinery cost more CPU than the
round trip; everything else uses redis-py as it is.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterable, Sequence
from typing import Any, cast

import hiredis
import redis.asyncio as aioredis
from redis._parsers import _AsyncHiredisParser
from redis.asyncio.connection import Connection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import InvalidResponse, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.typing import EncodableT
from redis.utils import format_error_message

__all__ = [
    "Keys",
    "RedisClient",
    "connect",
    "decoded",
    "decoded_members",
    "decoded_scores",
    "pack_commands",
    "pooled_round_trip",
    "round_trip",
    "stream_entries",
]

RedisClient = aioredis.Redis
"""The asyncio client type, for annotations outside the store (which must not import redis)."""


class Keys:
    """Builds every Redis key of one namespace."""

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace

    def table(self, table_id: str, part: str) -> str:
        """A key of one table (``state``, ``events``, ``seen:<key>``, ...)."""
        return f"{self.namespace}:t:{{{table_id}}}:{part}"

    def global_(self, *parts: str) -> str:
        """A key outside any table (``tables:open``, ``clock``, ``agent:<id>`` ...)."""
        return ":".join((self.namespace, *parts))


def connect(url: str) -> aioredis.Redis:
    """An asyncio Redis client for ``url`` (responses as bytes; callers decode).

    Its :func:`round_trip` calls go through lean connections of its own when
    the URL allows (see :func:`_lean_pool_for`); ``aclose`` closes them too.
    """
    # socket_timeout=None: redis-py 6+ defaults to 5 s, which breaks every blocking XREAD
    # (long-poll waits up to long_poll_max_wait_s, SSE blocks 15 s between keep-alives).
    client = _LeanClient.from_url(url, health_check_interval=30, socket_timeout=None)
    assert isinstance(client, _LeanClient)  # from_url builds its cls, typed as the base class
    client._lean_pool = _lean_pool_for(client.connection_pool)
    return client


# Reply helpers. redis-py types a reply as what any client configuration could
# answer (``bytes | str``, RESP2 lists or RESP3 maps). The client of ``connect``
# answers without decoding (RESP3, redis-py 8's default), so replies are bytes; these
# narrow them once.


def decoded(raw: bytes | str) -> str:
    """A reply's bytes as text (a str, from a decoding client, passes through)."""
    return raw.decode() if isinstance(raw, bytes) else raw


def pack_commands(commands: Sequence[Sequence[EncodableT]]) -> bytes:
    """``commands`` in the Redis protocol (RESP), as one buffer.

    What redis-py's ``pack_commands`` writes for the same arguments (a test
    compares them), in a fraction of its CPU: a table commit carries the
    state's JSON and every event, and redis-py encodes argument by argument
    through several layers. Text is UTF-8, an int in decimal, a float by
    ``repr``, as redis-py does; anything else (a bool, None) is refused.
    """
    parts: list[bytes] = []
    for command in commands:
        parts.append(b"*%d\r\n" % len(command))
        for argument in command:
            if isinstance(argument, bytes):
                data = argument
            elif isinstance(argument, str):
                data = argument.encode()
            elif isinstance(argument, bool):
                raise TypeError("Redis arguments cannot be bools")
            elif isinstance(argument, int):
                data = b"%d" % argument
            elif isinstance(argument, float):
                data = repr(argument).encode()
            else:
                raise TypeError(f"not a Redis argument: {type(argument).__name__}")
            parts.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(parts)


async def round_trip(client: RedisClient, *commands: Sequence[EncodableT]) -> list[Any]:
    """Send ``commands`` in one write and read their raw replies: one round trip.

    The lean twin of a non-transactional pipeline, for the requests every
    turn of every table makes (table reads, the commit, the held wait).
    redis-py's ``Pipeline`` spends about as much CPU around a round trip as
    the round trip itself (a pipeline object, a retry wrapper, a shielded
    task, observability hooks, a reset), and even its bare pool costs a
    connection health check, a retry wrapper and a parser layer per reply;
    on a client of :func:`connect` this goes through the client's own small
    pool of raw connections instead (:class:`_LeanConnection`). Replies are
    as the connection's protocol sends them (RESP3, parsed by hiredis as
    redis-py 8 parses them): no redis-py response callbacks.

    An error reply (say ``NOSCRIPT``) comes back as the exception redis-py
    would raise (``NoScriptError``), in its place, and the other replies are
    still read; an error reply of the connection kind (``NOAUTH``,
    ``LOADING``) is raised, as redis-py raises it. A connection that fails or
    is interrupted mid-exchange (a cancelled blocked ``XREAD``) is closed,
    never reused with replies out of step. A connection Redis closed while
    idle is known closed (the event loop reports it) and never picked,
    which replaces redis-py's health check of idle connections; a
    connection error (a close that raced the write, a Redis that restarted)
    is retried once on a fresh connection, as redis-py's client retries: a
    commit that had applied before its connection broke then meets its own
    new version (a stale version) or its idempotency record (the stored
    answer), never a double write.

    A client whose URL the lean path does not handle (a unix socket,
    ``rediss://``, RESP2, a socket timeout; see :func:`_lean_pool_for`), or
    one not made by :func:`connect`, goes through redis-py's pool as before,
    with the same guarantees.
    """
    lean = client._lean_pool if isinstance(client, _LeanClient) else None
    if lean is None:
        return await pooled_round_trip(client, *commands)
    if not commands:
        return []  # no reply to wait for (the pooled path sends nothing and reads nothing too)
    packed = pack_commands(commands)
    connection = await lean.acquire()
    for attempt in range(2):
        try:
            replies = await connection.exchange(packed, len(commands))
            _raise_connection_errors(replies)
        except (RedisConnectionError, RedisTimeoutError):
            connection.abort()
            if attempt:
                raise
            connection = await lean.open()  # fresh: after a restart every pooled one is gone
            continue
        except BaseException:  # cancelled mid-exchange: its replies would come to the next caller
            connection.abort()
            raise
        lean.release(connection)
        return replies
    raise AssertionError("unreachable: the second attempt returns or raises")


def _raise_connection_errors(replies: list[Any]) -> None:
    """Raise a reply that redis-py's parser raises rather than returns.

    redis-py raises an error reply of the connection kind (``NOAUTH``,
    ``LOADING``, too many clients), bare or first in a list, and its client
    closes the connection and retries; every other error reply is an
    exception object in its place.
    """
    for reply in replies:
        if isinstance(reply, RedisConnectionError):
            raise reply
        if isinstance(reply, list) and reply and isinstance(reply[0], RedisConnectionError):
            raise reply[0]


async def pooled_round_trip(client: RedisClient, *commands: Sequence[EncodableT]) -> list[Any]:
    """:func:`round_trip` through redis-py's connection pool (its per-call machinery
    included): the path for a client the lean connections do not serve, and the
    baseline of ``bench/redis_round_trip.py``."""
    pool = client.connection_pool
    packed = pack_commands(commands)
    for attempt in range(2):
        connection = await pool.get_connection()  # type: ignore[no-untyped-call]  # unannotated in redis-py
        try:
            await connection.send_packed_command(packed)
            replies: list[Any] = []
            for _command in commands:
                try:
                    replies.append(await connection.read_response())
                except ResponseError as error:  # that reply was read whole: the rest follow
                    replies.append(error)
            return replies
        except (RedisConnectionError, RedisTimeoutError):
            if attempt:
                raise
        finally:
            await pool.release(connection)
    raise AssertionError("unreachable: the second attempt returns or raises")


# -- the lean connections ------------------------------------------------------

_NOT_ENOUGH_DATA = object()
"""What hiredis answers while a reply is incomplete (None and False are replies)."""

_CLOSED_BY_SERVER = "Connection closed by server."  # redis-py's words for it

# A RESP3 push (out of band, not a reply); hiredis before 3.2 has no such type (and
# redis-py then takes a push for a reply, as this would).
_PUSH_NOTIFICATION: Any = getattr(hiredis, "PushNotification", ())


class _LeanConnection(asyncio.Protocol):
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
            raise RedisConnectionError(_CLOSED_BY_SERVER)
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
        message = _CLOSED_BY_SERVER if exc is None else f"Error while reading from Redis: {exc}"
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


class _LeanPool:
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
        self._idle: list[_LeanConnection] = []
        self._open: set[_LeanConnection] = set()
        self._closed = False

    async def acquire(self) -> _LeanConnection:
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

    def release(self, connection: _LeanConnection) -> None:
        """Back to the idle ones after a whole exchange."""
        if connection.usable:
            self._idle.append(connection)
        else:
            connection.abort()

    async def open(self) -> _LeanConnection:
        """A new connection, handshake done; errors as redis-py words them."""
        if self._closed:  # a round trip still retrying as the client closes: open nothing new
            raise RedisConnectionError("the client is closed")
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self._connect_timeout):
                transport, connection = await loop.create_connection(
                    lambda: _LeanConnection(loop), self._host, self._port)
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


def _lean_pool_for(pool: ConnectionPool) -> _LeanPool | None:
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
    return _LeanPool(template)


class _LeanClient(aioredis.Redis):
    """redis-py's asyncio client, plus the lean connections :func:`round_trip` uses.

    Everything else (single commands, pipelines, scripts) goes through
    redis-py's pool as usual; ``aclose`` closes both.
    """

    _lean_pool: _LeanPool | None = None

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        """Close the lean connections, then what redis-py's client closes."""
        if self._lean_pool is not None:
            await self._lean_pool.aclose()
        await super().aclose(close_connection_pool)


def _member(raw: object) -> str:
    if isinstance(raw, bytes | str):
        return decoded(raw)
    raise TypeError(f"expected a sorted-set member, got {type(raw).__name__}")


def decoded_members(reply: Iterable[object]) -> list[str]:
    """The members of a sorted-set range read without scores, as text, in order."""
    return [_member(raw) for raw in reply]


def decoded_scores(reply: Iterable[object]) -> dict[str, float]:
    """A sorted-set range read ``withscores=True``: each member as text -> its score, in order."""
    scores: dict[str, float] = {}
    for row in reply:
        if not isinstance(row, tuple | list):
            raise TypeError(f"expected a (member, score) pair, got {type(row).__name__}")
        member, score = row
        scores[_member(member)] = float(score)
    return scores


def stream_entries(reply: object) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """The entries of an ``XREAD`` reply, stream after stream, oldest first.

    redis-py's client answers ``[[stream, [(entry_id, {field: value}), ...]], ...]``.
    A raw reply (:func:`round_trip`) is RESP3's map ``{stream: [[entry_id,
    [field, value, ...]], ...]}``, each entry's fields a flat list. Either
    is nothing (None) when no entry came before the block ran out.
    """
    if reply is None:
        return []
    if isinstance(reply, dict):
        streams = list(reply.items())
    elif isinstance(reply, list):
        streams = reply
    else:
        raise TypeError(f"expected an XREAD reply, got {type(reply).__name__}")
    entries: list[tuple[bytes, dict[bytes, bytes]]] = []
    for _stream, stream in streams:
        for entry_id, fields in stream:
            if isinstance(fields, list):
                fields = dict(zip(fields[::2], fields[1::2], strict=True))
            entries.append((entry_id, fields))
    return entries
