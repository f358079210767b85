"""ASGI middleware: ``HEAD`` is answered like ``GET``, without the body (RFC 9110, 9.3.2).

FastAPI registers a ``GET`` route for ``GET`` only, so ``HEAD /healthz`` would
be a 405; load balancers and uptime probes often send ``HEAD``. This runs the
request as ``GET`` and passes on the status and headers (``Content-Length``
included) with an empty body. A streaming answer (the SSE stream) is ended
after its head: the app is told the client left, so its generator stops.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HeadAsGetMiddleware"]


class HeadAsGetMiddleware:

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        head_sent = False

        async def receive_until_answered() -> Message:
            # Once the head has gone out nothing more will be sent: a streaming
            # response listening for the client must hear that it is gone.
            if head_sent:
                return {"type": "http.disconnect"}
            return await receive()

        async def send_head_only(message: Message) -> None:
            nonlocal head_sent
            if message["type"] == "http.response.start":
                await send(message)
            elif message["type"] == "http.response.body" and not head_sent:
                head_sent = True
                await send({"type": "http.response.body", "body": b"", "more_body": False})

        await self.app({**scope, "method": "GET"}, receive_until_answered, send_head_only)
