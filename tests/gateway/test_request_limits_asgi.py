"""The request-limits guard at the ASGI level: a request without a body reaches the app with
the server's own ``receive`` (nothing to time out, nothing wrapped around a held wait), and a
body that stalls past the deadline is answered 408 on a closing connection."""

from __future__ import annotations

import asyncio

import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Message, Receive, Scope, Send

from gateway.errors import ProblemError
from gateway.request_limits import RequestLimitsMiddleware


def _answer(request: Request, problem: ProblemError) -> Response:
    return JSONResponse({"code": problem.code}, status_code=problem.status)


def _scope(headers: list[tuple[bytes, bytes]], method: str = "GET") -> Scope:
    return {"type": "http", "method": method, "path": "/", "headers": headers,
            "query_string": b"", "server": ("127.0.0.1", 80), "scheme": "http"}


async def _server_receive() -> Message:
    await asyncio.sleep(3600)  # a body that never comes
    raise AssertionError("unreachable")


async def _discard(message: Message) -> None:
    pass


def _given(headers: list[tuple[bytes, bytes]]) -> tuple[Receive, Send]:
    """What the app was called with, for a request with ``headers``."""
    seen: list[tuple[Receive, Send]] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append((receive, send))

    guard = RequestLimitsMiddleware(app, max_header_count=10, max_header_bytes=1000,
                                    body_timeout_s=0.05, answer=_answer)
    asyncio.run(guard(_scope(headers), _server_receive, _discard))
    return seen[0]


@pytest.mark.parametrize("headers", [[], [(b"content-length", b"0")], [(b"host", b"x")]],
                         ids=["no headers", "length 0", "no length"])
def test_a_request_without_a_body_gets_the_server_receive_and_send(
    headers: list[tuple[bytes, bytes]],
) -> None:
    assert _given(headers) == (_server_receive, _discard)


@pytest.mark.parametrize("headers", [[(b"content-length", b"5")],
                                     [(b"transfer-encoding", b"chunked")]],
                         ids=["length", "chunked"])
def test_a_request_with_a_body_gets_the_guarded_receive(
    headers: list[tuple[bytes, bytes]],
) -> None:
    receive, send = _given(headers)
    assert receive is not _server_receive and send is not _discard


def test_a_body_that_stalls_past_the_deadline_is_answered_408_and_closed() -> None:
    sent: list[Message] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()  # waits for the body that never comes
        raise AssertionError("the guard should have cut the read")

    async def record(message: Message) -> None:
        sent.append(message)

    guard = RequestLimitsMiddleware(app, max_header_count=10, max_header_bytes=1000,
                                    body_timeout_s=0.05, answer=_answer)
    asyncio.run(guard(_scope([(b"content-length", b"5")], "POST"), _server_receive, record))
    start = sent[0]
    assert start["status"] == 408
    assert (b"connection", b"close") in start["headers"]
    assert b"request/timeout" in sent[1]["body"]
