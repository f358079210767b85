"""Header and slow-client limits, probed with raw sockets against a real ``agents-club
serve`` on loopback: a huge header or a flood of headers is refused (431), a body that
trickles in is cut (408, connection closed), an idle keep-alive connection is closed; and,
under the default httptools parser as under h11, a head trickled in a byte at a time is cut
at ``head_timeout_s`` (408), a connection that sends nothing is closed, and a head that
never ends is cut once it passes ``max_header_bytes`` (431 or 400)."""

from __future__ import annotations

import contextlib
import select
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .servers import served

HEAD_TIMEOUT_S = 1.0
LIMITS = {
    "AGENTS_CLUB_BODY_TIMEOUT_S": "1",
    "AGENTS_CLUB_KEEP_ALIVE_TIMEOUT_S": "1",
    "AGENTS_CLUB_HEAD_TIMEOUT_S": str(HEAD_TIMEOUT_S),
}
SLACK_S = 1.5
"""Time a loaded machine may add to a deadline."""


def exchange(port: int, request: bytes, *, wait_s: float = 6.0) -> tuple[bytes, float]:
    """Send ``request`` and read until the server closes (or ``wait_s`` passes); returns what
    came back and the seconds it took."""
    started = time.monotonic()
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=wait_s) as conn:
        # The server may refuse and close before the end: then read its answer.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            conn.sendall(request)
        conn.settimeout(max(wait_s - (time.monotonic() - started), 0.1))
        try:
            while chunk := conn.recv(65536):
                answer += chunk
        except TimeoutError:
            return answer, float("inf")  # still open: held
        except ConnectionResetError:
            pass
    return answer, time.monotonic() - started


def head(extra: bytes = b"", *, method: bytes = b"GET", path: bytes = b"/v1/games") -> bytes:
    return method + b" " + path + b" HTTP/1.1\r\nHost: probe\r\n" + extra


def trickle(port: int, request: bytes, *, every_s: float = 0.3, wait_s: float = 6.0
            ) -> tuple[bytes, float]:
    """Send ``request`` one byte every ``every_s`` until the server answers or closes (or
    ``wait_s`` passes); returns what came back and the seconds it took."""
    started = time.monotonic()
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=wait_s) as conn:
        for byte in request:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                conn.sendall(bytes([byte]))
            readable, _, _ = select.select([conn], [], [], every_s)
            if readable or time.monotonic() - started > wait_s:
                break
        conn.settimeout(max(wait_s - (time.monotonic() - started), 0.1))
        try:
            while chunk := conn.recv(65536):
                answer += chunk
        except TimeoutError:
            return answer, float("inf")
        except ConnectionResetError:
            pass
    return answer, time.monotonic() - started


def probe_trickled_head(port: int) -> None:
    """A head trickled in a byte every 0.3 s: answered 408 and closed at its deadline."""
    slow, took = trickle(port, head(b"X-Slow: " + b"a" * 100 + b"\r\n\r\n"))
    assert slow.startswith(b"HTTP/1.1 408") and b"request/timeout" in slow, slow
    assert b"application/problem+json" in slow
    assert HEAD_TIMEOUT_S - 0.1 < took < HEAD_TIMEOUT_S + SLACK_S, took


def probe_silent_connection(port: int) -> None:
    """A connection that never sends a byte: closed at the deadline, without an answer."""
    silent, took = exchange(port, b"")
    assert silent == b"" and took < HEAD_TIMEOUT_S + SLACK_S, (silent, took)


def probe_second_head(port: int) -> None:
    """A second request on a kept-alive connection trickles its head: the same deadline."""
    with socket.create_connection(("127.0.0.1", port), timeout=6) as conn:
        conn.sendall(head(b"\r\n"))
        assert conn.recv(65536).startswith(b"HTTP/1.1 200")
        started = time.monotonic()
        conn.sendall(b"GET /v1/games HTTP/1.1\r\nX-Slow: a")
        rest = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := conn.recv(65536):
                rest += chunk
        assert b"HTTP/1.1 408" in rest, rest  # after the end of the first answer
        assert time.monotonic() - started < HEAD_TIMEOUT_S + SLACK_S


def probe_many_slow_heads(port: int, count: int = 50) -> None:
    """Many slow heads at once: each is cut at its deadline, none is held."""
    slow_ones = [socket.create_connection(("127.0.0.1", port), timeout=6) for _ in range(count)]
    try:
        started = time.monotonic()
        for conn in slow_ones:
            conn.sendall(b"GET /v1/games HTTP/1.1\r\nX-Slow: ")
        for conn in slow_ones:
            with contextlib.suppress(ConnectionResetError):
                while conn.recv(65536):
                    pass
        assert time.monotonic() - started < HEAD_TIMEOUT_S + SLACK_S + 1
    finally:
        for conn in slow_ones:
            conn.close()


def assert_heads_are_bounded(port: int) -> None:
    """The head limits of :mod:`gateway.http_protocol`, whichever parser serves ``port``
    (the timed probes run side by side)."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        timed = [pool.submit(probe, port) for probe in (
            probe_trickled_head, probe_silent_connection, probe_second_head,
            probe_many_slow_heads)]
        # 1 MB of one header with no end of the head: cut long before it is all read.
        cut, took = exchange(port, head(b"X-Never: " + b"a" * 1_000_000))
        assert cut.startswith((b"HTTP/1.1 431", b"HTTP/1.1 400")) and took < 5, (cut[:200], took)
        # A normal request is untouched.
        normal, _ = exchange(port, head(b"Connection: close\r\n\r\n"))
        assert normal.startswith(b"HTTP/1.1 200")
        for probe in timed:
            probe.result()


def test_heads_and_bodies_are_bounded(redis_url: str, signing_key_pem: str, tmp_path: Path) -> None:
    with served(redis_url, signing_key_pem, tmp_path, **LIMITS) as (_, port):
        # One 200 KB header, then 2,000 small ones: both refused, connection closed.
        big, took = exchange(port, head(b"X-Big: " + b"a" * 200_000 + b"\r\n\r\n"))
        assert big.startswith(b"HTTP/1.1 431") and b"request/headers_too_large" in big
        assert took < 5
        many = b"".join(b"X-H%d: v\r\n" % number for number in range(2000))
        flood, took = exchange(port, head(many + b"\r\n"))
        assert flood.startswith(b"HTTP/1.1 431") and took < 5
        # A body announced as 100 bytes of which 10 come: cut after the 1 s deadline.
        slow, took = exchange(port, head(
            b"Content-Type: application/json\r\nContent-Length: 100\r\nConnection: keep-alive\r\n\r\n"
            + b'{"agent_na', method=b"POST", path=b"/v1/admission/challenges"))
        assert slow.startswith(b"HTTP/1.1 408") and b"request/timeout" in slow
        assert 0.9 < took < 4
        # An idle keep-alive connection is closed after its timeout.
        idle, took = exchange(port, head(b"\r\n"))
        assert idle.startswith(b"HTTP/1.1 200") and 0.9 < took < 4
        # A normal request is untouched.
        fine, _ = exchange(port, head(b"Connection: close\r\n\r\n"))
        assert fine.startswith(b"HTTP/1.1 200")
        # The default parser (httptools) bounds the head too.
        assert_heads_are_bounded(port)


def test_the_h11_parser_bounds_heads_alike(
    redis_url: str, signing_key_pem: str, tmp_path: Path
) -> None:
    settings = {**LIMITS, "AGENTS_CLUB_HTTP_PARSER": "h11"}
    with served(redis_url, signing_key_pem, tmp_path, **settings) as (_, port):
        assert_heads_are_bounded(port)
