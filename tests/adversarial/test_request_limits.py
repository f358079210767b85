"""Header and slow-client limits, probed with raw sockets against a real ``agents-club
serve`` on loopback: a huge header or a flood of headers is refused (431), a body that
trickles in is cut (408, connection closed), an idle keep-alive connection is closed, and
with the h11 parser a head that never ends is cut at ``max_header_bytes``."""

from __future__ import annotations

import contextlib
import socket
import time
from pathlib import Path

from .servers import served

LIMITS = {
    "AGENTS_CLUB_BODY_TIMEOUT_S": "1",
    "AGENTS_CLUB_KEEP_ALIVE_TIMEOUT_S": "1",
}


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


def test_the_h11_parser_cuts_a_head_that_never_ends(
    redis_url: str, signing_key_pem: str, tmp_path: Path
) -> None:
    settings = {**LIMITS, "AGENTS_CLUB_HTTP_PARSER": "h11"}
    with served(redis_url, signing_key_pem, tmp_path, **settings) as (_, port):
        # 1 MB of one header with no end of the head: the server stops reading at 16 KB.
        cut, took = exchange(port, head(b"X-Never: " + b"a" * 1_000_000))
        assert cut.startswith(b"HTTP/1.1 4") and took < 5
