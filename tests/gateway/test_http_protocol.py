"""The gateway's uvicorn protocols: ``TCP_NODELAY`` on each connection, answers as uvicorn's.

Each protocol, handed a real accepted TCP connection, switches Nagle's
algorithm off on it; a real uvicorn server with
:class:`gateway.http_protocol.GatewayHttpToolsProtocol` still streams, and
answers HEAD and pipelined requests in order.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("httptools")

import uvicorn

from gateway.embedded_redis import free_port
from gateway.http_protocol import GatewayH11Protocol, GatewayHttpToolsProtocol, OneSendPerTurn


class AcceptedTransport:
    """A transport over a real accepted socket, as far as ``connection_made`` looks at it."""

    def __init__(self, accepted: socket.socket) -> None:
        self.socket = accepted
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"socket": self.socket, "sockname": self.socket.getsockname(),
                "peername": self.socket.getpeername()}.get(name, default)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    if scope["path"] == "/stream":
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")]})
        await asyncio.sleep(0.6)
        await send({"type": "http.response.body", "body": b"data: 1\n\n", "more_body": True})
        await send({"type": "http.response.body", "body": b""})
        return
    body = b'{"answer": "%s"}' % scope["path"].encode()
    await send({"type": "http.response.start", "status": 200, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    chosen = free_port()
    config = uvicorn.Config(_app, host="127.0.0.1", port=chosen, http=GatewayHttpToolsProtocol,
                            loop="asyncio", log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    yield chosen
    server.should_exit = True
    thread.join(10)


def _connect(port: int) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=5)
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return connection


def _read_until(connection: socket.socket, needle: bytes, count: int = 1) -> bytes:
    data = b""
    while data.count(needle) < count:
        chunk = connection.recv(65536)
        assert chunk, "the server closed the connection"
        data += chunk
    return data


def _protocol(protocol_class: type[Any]) -> Any:
    """A fresh instance of ``protocol_class`` serving :func:`_app`, as uvicorn makes one per
    accepted connection."""
    config = uvicorn.Config(_app, http=protocol_class, lifespan="off", log_level="warning")
    config.load()
    return protocol_class(config=config, server_state=uvicorn.server.ServerState(), app_state={})


@pytest.mark.parametrize("protocol_class", [GatewayHttpToolsProtocol, GatewayH11Protocol])
def test_each_accepted_connection_gets_tcp_nodelay(protocol_class: type[Any]) -> None:
    """As uvicorn's workers accept with ``--workers`` above 1: asyncio left the option off."""

    async def scenario() -> tuple[int, int]:
        with socket.create_server(("127.0.0.1", 0)) as listener:
            client = socket.create_connection(listener.getsockname())
            accepted, _address = listener.accept()
            with client, accepted:
                before = accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
                protocol = _protocol(protocol_class)
                transport = AcceptedTransport(accepted)
                protocol.connection_made(transport)
                after = accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
                protocol.connection_lost(None)
                return before, after

    assert asyncio.run(scenario()) == (0, 1)


def test_a_stream_sends_its_head_before_its_first_chunk(port: int) -> None:
    with _connect(port) as connection:
        started = time.monotonic()
        connection.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        head = _read_until(connection, b"\r\n\r\n")
        assert time.monotonic() - started < 0.5
        assert b"text/event-stream" in head and b"data: 1" not in head
        assert b"data: 1" in _read_until(connection, b"data: 1")


def test_head_and_pipelined_requests_are_answered_in_order(port: int) -> None:
    with _connect(port) as connection:
        connection.sendall(b"HEAD /h HTTP/1.1\r\nHost: x\r\n\r\n"
                           b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                           b"GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        data = _read_until(connection, b"HTTP/1.1 200 OK", 3)
        data += _read_until(connection, b'"/b"}') if b'"/b"}' not in data else b""
        assert data.index(b'"/a"}') < data.index(b'"/b"}')
        assert b'"/h"}' not in data  # HEAD: the head alone


class RecordingTransport(AcceptedTransport, asyncio.Transport):
    """:class:`AcceptedTransport` as an asyncio transport (what uvicorn hands a protocol)."""

    def __init__(self, accepted: socket.socket) -> None:
        asyncio.Transport.__init__(self)
        AcceptedTransport.__init__(self, accepted)


@pytest.mark.parametrize("transport_class", [AcceptedTransport, RecordingTransport])
@pytest.mark.parametrize("protocol_class", [GatewayHttpToolsProtocol, GatewayH11Protocol])
def test_an_answer_leaves_in_one_write(protocol_class: type[Any], transport_class: type[Any]) -> None:
    """uvicorn writes a response's head and body separately: they leave in one send (a
    system call and a packet less per request), head first, before the next turn ends.
    Whether the transport is an ``asyncio.Transport`` or, like uvloop's, only acts as one."""

    async def scenario() -> list[bytes]:
        with socket.create_server(("127.0.0.1", 0)) as listener:
            client = socket.create_connection(listener.getsockname())
            accepted, _address = listener.accept()
            with client, accepted:
                protocol = _protocol(protocol_class)
                transport = transport_class(accepted)
                protocol.connection_made(transport)
                protocol.data_received(b"GET /one HTTP/1.1\r\nHost: x\r\n\r\n")
                for _ in range(50):  # the app's task, then the gathered send
                    await asyncio.sleep(0)
                    if transport.writes:
                        break
                protocol.connection_lost(None)
                return transport.writes

    writes = asyncio.run(scenario())
    assert len(writes) == 1, writes
    head, _, body = writes[0].partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and body == b'{"answer": "/one"}'


def test_uvloops_own_connections_send_through_one_send_per_turn() -> None:
    """On uvloop (what ``serve`` runs), a real connection's transport is wrapped, and
    answers as before: keep-alive requests, answered in order."""
    uvloop = pytest.importorskip("uvloop")
    made: list[Any] = []

    async def scenario() -> bytes:
        config = uvicorn.Config(_app, http=GatewayHttpToolsProtocol, lifespan="off",
                                log_level="warning")
        config.load()
        state = uvicorn.server.ServerState()

        def factory() -> Any:
            protocol = GatewayHttpToolsProtocol(config=config, server_state=state, app_state={})
            made.append(protocol)
            return protocol

        server = await asyncio.get_running_loop().create_server(factory, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while data.count(b'{"answer"') < 2:
            data += await asyncio.wait_for(reader.read(65536), 5)
        writer.close()
        server.close()
        await server.wait_closed()
        return data

    data = uvloop.run(scenario())
    assert isinstance(made[0].transport, OneSendPerTurn)
    assert data.index(b'"/a"') < data.index(b'"/b"')


def test_a_closed_connection_leaves_no_cycle_for_the_collector(port: int) -> None:
    """A closed connection's protocol, transport and last request are freed at once (by
    reference counting), not left as a cycle for a full collection minutes away: agents
    that reconnect after thinking made a worker grow by tens of MB a minute."""
    import gc

    gc.collect()
    gc.disable()
    try:
        for _ in range(20):
            with _connect(port) as connection:
                connection.sendall(b"GET /one HTTP/1.1\r\nHost: x\r\n\r\n")
                _read_until(connection, b'"/one"')
        time.sleep(0.3)  # the server sees each close
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = [kind for kind in (type(found).__name__ for found in gc.garbage)
                if kind in ("GatewayHttpToolsProtocol", "HeadGuard", "RequestResponseCycle")]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == []
