"""ASGI middleware: a request body longer than the configured limit is refused before it is read.

Without it a client could send any number of bytes and the gateway would hold
them all in memory to parse them (and answer 422 only after that). The
longest body any route takes, an admission answer, is a few KB.

- A ``Content-Length`` over the limit is answered at once with 413
  ``request/too_large``; the body is never read.
- A chunked body (no length announced) is read up to the limit before the
  app sees it: one byte more and it is refused the same way; within the
  limit the app reads the same bytes as it would have.
- Anything else (every request with a length within the limit, every
  ``GET``) passes through untouched, so the hot routes pay one header look-up.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.errors import ProblemError

__all__ = ["BodyLimitMiddleware", "too_large"]


def too_large(limit: int) -> ProblemError:
    """The problem a body over ``limit`` bytes is answered with."""
    return ProblemError(413, "request/too_large", "Request too large",
                        f"The request body is larger than {limit} bytes; send at most {limit}.",
                        limit=limit)


class BodyLimitMiddleware:
    """Refuses request bodies longer than ``max_bytes`` with a 413 problem document."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_bytes: int,
        answer: Callable[[Request, ProblemError], Response | Awaitable[Response]],
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.answer = answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one ASGI call: refuse an oversized body, pass everything else on."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length, chunked = _announced(scope)
        if length is not None:
            if length > self.max_bytes:
                await self._refuse(scope, receive, send)
                return
            await self.app(scope, receive, send)
            return
        if not chunked:
            await self.app(scope, receive, send)
            return
        body: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left while sending: nobody to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._refuse(scope, receive, send)
                return
            body.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(b"".join(body), receive), send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        answered = self.answer(Request(scope, receive), too_large(self.max_bytes))
        response = answered if isinstance(answered, Response) else await answered
        # The unread body stays on the connection: tell the server to close it
        # rather than read the rest as the next request.
        response.headers["connection"] = "close"
        await response(scope, receive, send)


def _announced(scope: Scope) -> tuple[int | None, bool]:
    """The body's ``Content-Length`` (``None``: not sent or not a number) and whether it is chunked."""
    length: int | None = None
    chunked = False
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                length = int(value)
            except ValueError:
                length = None  # the server refuses a malformed length itself
        elif name == b"transfer-encoding":
            chunked = b"chunked" in value.lower()
    return length, chunked


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body already read, then defers to the client's."""
    pending = True

    async def replayed() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
