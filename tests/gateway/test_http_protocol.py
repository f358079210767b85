"""The gateway's uvicorn protocol sends a response's head and body in one write.

A real uvicorn server with :class:`gateway.http_protocol.NoDelayHttpToolsProtocol`
answers over a real socket: an answer made at once arrives as one segment,
a streamed one still sends its head before its first chunk, HEAD and
pipelined requests are answered as before. :class:`HeldHead` itself is
checked against a transport that records its writes.
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
from gateway.http_protocol import HeldHead, NoDelayHttpToolsProtocol


class Recorder:
    """A transport that keeps what it was asked to write."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(
            name, f"info:{name}" if name == "peer" else None)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def test_the_first_write_waits_for_the_next_and_leaves_with_it() -> None:
    async def scenario() -> Recorder:
        recorder = Recorder()
        held = HeldHead(recorder)  # type: ignore[arg-type]
        held.write(b"head ")
        assert recorder.writes == []
        held.write(b"body")
        held.write(b" more")
        assert held.get_extra_info("peer") == "info:peer"  # the rest is the transport's
        await asyncio.sleep(0)
        return recorder

    assert asyncio.run(scenario()).writes == [b"head body", b" more"]


def test_a_lone_first_write_leaves_at_the_end_of_the_loop_turn_or_on_close() -> None:
    async def scenario() -> tuple[Recorder, Recorder, Recorder]:
        alone, closing, closed = Recorder(), Recorder(), Recorder()
        HeldHead(alone).write(b"head")  # type: ignore[arg-type]
        held = HeldHead(closing)  # type: ignore[arg-type]
        held.write(b"bye")
        held.close()
        gone = HeldHead(closed)  # type: ignore[arg-type]
        gone.write(b"late")
        closed.closed = True  # the peer went away first: nothing to send it
        await asyncio.sleep(0)
        return alone, closing, closed

    alone, closing, closed = asyncio.run(scenario())
    assert alone.writes == [b"head"]
    assert closing.writes == [b"bye"] and closing.closed
    assert closed.writes == []


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
    config = uvicorn.Config(_app, host="127.0.0.1", port=chosen, http=NoDelayHttpToolsProtocol,
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


def test_the_protocol_answers_each_request_in_one_write() -> None:
    """uvicorn's own protocol code, fed two keep-alive requests, on a recording transport."""

    async def scenario() -> Recorder:
        config = uvicorn.Config(_app, http=NoDelayHttpToolsProtocol, lifespan="off",
                                log_level="warning")
        config.load()
        protocol = NoDelayHttpToolsProtocol(
            config=config, server_state=uvicorn.server.ServerState(), app_state={})
        recorder = Recorder()
        protocol.connection_made(recorder)  # type: ignore[arg-type]
        for path in (b"/one", b"/two"):
            protocol.data_received(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path)
            for _ in range(20):
                await asyncio.sleep(0)
        protocol.connection_lost(None)
        return recorder

    writes = asyncio.run(scenario()).writes
    assert len(writes) == 2
    for write, path in zip(writes, (b"/one", b"/two"), strict=True):
        assert write.startswith(b"HTTP/1.1 200 OK") and write.endswith(b'{"answer": "%s"}' % path)


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
