"""ASGI middleware: caps on a request's headers and on the time its body may take to arrive.

The HTTP server hands the app a request once its head is parsed, and reads the
body as the app asks for it. Without a cap, one client could send 100,000
headers or a 16 MB header and be answered 200, or open hundreds of requests whose
bodies trickle in a byte at a time and hold each for ever. This guard works on
what ASGI shows, so it holds whichever parser the server uses:

- more than ``max_header_count`` headers, or more than ``max_header_bytes`` of
  header names and values together, is answered 431
  ``request/headers_too_large`` before any route runs;
- a body that has not fully arrived ``body_timeout_s`` seconds after the request
  began is answered 408 ``request/timeout`` (when no answer has started), and the
  connection is closed.

What ASGI cannot show, a head that never ends or trickles in, is bounded by the
server's protocol (:mod:`gateway.http_protocol`: 408 after ``head_timeout_s``,
431 beyond ``max_header_bytes`` and the request line, under either parser) and,
in production, also by the reverse proxy in front (``docs/deploy.md``).

Requests without a body, and everything after a body is complete (a long-poll or
an event stream waiting for the client to leave), pass through untouched.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.errors import ProblemError

__all__ = ["RequestLimitsMiddleware", "head_too_slow", "headers_too_large", "too_slow"]


def headers_too_large(max_count: int, max_bytes: int) -> ProblemError:
    """The problem a request with too many or too long headers is answered with."""
    return ProblemError(
        431, "request/headers_too_large", "Request headers too large",
        f"Send at most {max_count} headers of at most {max_bytes} bytes in all.",
        max_count=max_count, max_bytes=max_bytes,
    )


def too_slow(timeout_s: float) -> ProblemError:
    """The problem a body still incomplete after ``timeout_s`` seconds is answered with."""
    return ProblemError(
        408, "request/timeout", "Request too slow",
        f"The request body did not arrive within {timeout_s:g} seconds; send it at once.",
    )


def head_too_slow(timeout_s: float) -> ProblemError:
    """The problem a request head still incomplete after ``timeout_s`` seconds is answered
    with (by the server's protocol: no app saw the request)."""
    return ProblemError(
        408, "request/timeout", "Request too slow",
        f"The request head did not arrive within {timeout_s:g} seconds; send it at once.",
    )


class _BodyTimedOut(Exception):
    """Raised from the guarded ``receive`` when the body's deadline passed."""


class RequestLimitsMiddleware:
    """Refuses oversized heads (431) and bodies slower than the deadline (408)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_header_count: int,
        max_header_bytes: int,
        body_timeout_s: float,
        answer: Callable[[Request, ProblemError], Response | Awaitable[Response]],
    ) -> None:
        self.app = app
        self.max_header_count = max_header_count
        self.max_header_bytes = max_header_bytes
        self.body_timeout_s = body_timeout_s
        self.answer = answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one ASGI call: refuse an oversized head, bound the body's arrival."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = scope["headers"]
        size = 0
        has_body = False
        for name, value in headers:
            size += len(name) + len(value)
            if name == b"transfer-encoding" or (name == b"content-length" and value != b"0"):
                has_body = True
        if len(headers) > self.max_header_count or size > self.max_header_bytes:
            await self._refuse(scope, receive, send,
                               headers_too_large(self.max_header_count, self.max_header_bytes))
            return
        if not has_body:  # HTTP/1.1: no length and no chunks is no body, nothing to wait for
            await self.app(scope, receive, send)
            return
        deadline = asyncio.get_running_loop().time() + self.body_timeout_s
        body_done = False
        timed_out = False
        started = False

        async def guarded_receive() -> Message:
            nonlocal body_done, timed_out
            if body_done:
                return await receive()
            try:
                # asyncio.timeout, not wait_for: no task per read on the hot POST routes.
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                timed_out = True
                raise _BodyTimedOut from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done = True
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            if timed_out and not started:
                return  # the app's answer to the failed read (FastAPI makes it a 400): ours instead
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        with contextlib.suppress(_BodyTimedOut):
            await self.app(scope, guarded_receive, watched_send)
        if timed_out and not started:
            await self._refuse(scope, receive, send, too_slow(self.body_timeout_s))

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, problem: ProblemError) -> None:
        answered = self.answer(Request(scope, receive), problem)
        response = answered if isinstance(answered, Response) else await answered
        # Whatever is left of the request stays unread: close rather than parse it as the next.
        response.headers["connection"] = "close"
        await response(scope, receive, send)
