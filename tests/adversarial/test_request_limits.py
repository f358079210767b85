"""Header and slow-client limits, probed with raw sockets through the proxy that
``compose.yaml`` puts in front of the gateway (nginx, ``deploy/nginx.conf``, its time limits
shortened) to a real ``agents-club serve`` on loopback: a huge header, a flood of headers and
a head that never ends are refused (431 ``request/headers_too_large``); a head trickled in a
byte at a time, a connection that sends nothing and a body that stalls are closed at the
deadline; an oversized body is refused (413 ``request/too_large``); an idle
keep-alive connection is closed; and an address past its open connections is refused (429
``rate/limited``). The gateway leaves these to the proxy (docs/deploy.md)."""

from __future__ import annotations

import contextlib
import select
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .servers import proxied, served

TIMEOUT_S = 1.0
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
    """A head trickled in a byte every 0.3 s: closed at its deadline, never held."""
    slow, took = trickle(port, head(b"X-Slow: " + b"a" * 100 + b"\r\n\r\n"))
    assert slow == b"" or slow.startswith(b"HTTP/1.1 408"), slow
    assert TIMEOUT_S - 0.1 < took < TIMEOUT_S + SLACK_S, took


def probe_silent_connection(port: int) -> None:
    """A connection that never sends a byte: closed at the deadline, without an answer."""
    silent, took = exchange(port, b"")
    assert silent == b"" and took < TIMEOUT_S + SLACK_S, (silent, took)


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
        assert time.monotonic() - started < TIMEOUT_S + SLACK_S + 1
    finally:
        for conn in slow_ones:
            conn.close()


def probe_trickled_body(port: int) -> None:
    """A body announced as 100 bytes of which 10 come: closed after the deadline, and the
    gateway never saw the request (the proxy reads a body whole first)."""
    slow, took = exchange(port, head(
        b"Content-Type: application/json\r\nContent-Length: 100\r\nConnection: keep-alive\r\n\r\n"
        + b'{"agent_na', method=b"POST", path=b"/v1/admission/challenges"))
    assert slow == b"", slow
    assert TIMEOUT_S - 0.1 < took < TIMEOUT_S + SLACK_S, took


def probe_idle_keep_alive(port: int) -> None:
    """An idle keep-alive connection is closed after its timeout."""
    idle, took = exchange(port, head(b"\r\n"))
    assert idle.startswith(b"HTTP/1.1 200") and TIMEOUT_S - 0.1 < took < TIMEOUT_S + SLACK_S + 1


def test_heads_and_bodies_are_bounded_by_the_proxy(
    redis_url: str, signing_key_pem: str, tmp_path: Path
) -> None:
    with served(redis_url, signing_key_pem, tmp_path) as (_, gateway_port), \
            proxied(gateway_port, tmp_path, timeout_s=TIMEOUT_S) as port, \
            ThreadPoolExecutor(max_workers=5) as pool:
        timed = [pool.submit(probe, port) for probe in (
            probe_trickled_head, probe_silent_connection, probe_many_slow_heads,
            probe_trickled_body, probe_idle_keep_alive)]
        # One 200 KB header, 2,000 small ones, 1 MB of a head that never ends: refused.
        many = b"".join(b"X-H%d: v\r\n" % number for number in range(2000))
        for refused in (head(b"X-Big: " + b"a" * 200_000 + b"\r\n\r\n"), head(many + b"\r\n"),
                        head(b"X-Never: " + b"a" * 1_000_000)):
            answer, took = exchange(port, refused)
            assert answer.startswith(b"HTTP/1.1 431"), answer[:200]
            assert b"application/problem+json" in answer and b"request/headers_too_large" in answer
            assert took < 5
        # A body over the gateway's 64 KB: 413 request/too_large, before it is read.
        big_body, _ = exchange(port, head(b"Content-Type: application/json\r\n"
                                          b"Content-Length: 100000\r\n\r\n", method=b"POST",
                                          path=b"/v1/admission/challenges"))
        assert big_body.startswith(b"HTTP/1.1 413") and b"request/too_large" in big_body
        # A normal request passes.
        fine, _ = exchange(port, head(b"Connection: close\r\n\r\n"))
        assert fine.startswith(b"HTTP/1.1 200"), fine[:200]
        for probe in timed:
            probe.result()


def test_an_address_past_its_open_connections_is_refused_with_a_problem(
    redis_url: str, signing_key_pem: str, tmp_path: Path
) -> None:
    """Two requests in progress (their bodies still coming) hold the proxy's two
    connections for this address: a third request gets 429 ``rate/limited`` as a problem
    document with ``Retry-After``, and is served again once one of them closed."""
    body_head = head(b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n",
                     method=b"POST", path=b"/v1/admission/challenges") + b'{"agent_na'
    with served(redis_url, signing_key_pem, tmp_path) as (_, gateway_port), \
            proxied(gateway_port, tmp_path / "proxy", timeout_s=10,
                    connections_per_address=2) as port:
        holding = [socket.create_connection(("127.0.0.1", port), timeout=6) for _ in range(2)]
        try:
            for conn in holding:
                conn.sendall(body_head)
            time.sleep(0.3)  # both heads read: each connection now counts
            refused, _ = exchange(port, head(b"Connection: close\r\n\r\n"))
            assert refused.startswith(b"HTTP/1.1 429"), refused[:300]
            assert b"Retry-After: 1" in refused and b"application/problem+json" in refused
            assert b'"code":"rate/limited"' in refused
        finally:
            for conn in holding:
                conn.close()
        time.sleep(0.3)
        fine, _ = exchange(port, head(b"Connection: close\r\n\r\n"))
        assert fine.startswith(b"HTTP/1.1 200"), fine[:200]
