"""The gateway with the bare baselines ``bench/gateway.py`` compares actions with.

``agents-club serve --app bench.baseline_app:create_app`` runs it: the product's own
app, with two endpoints beside it that are the floor of a durable action in this stack
(validate a body, one ``EVALSHA`` that SETs 5 KB, a 4.7 KB answer), over HTTP
(``POST /v1/tables/_bench/baseline``) and over a socket (``/v1/tables/_bench/ws``).
They are benchmark code, never served by the gateway itself.
"""

from __future__ import annotations

import contextlib
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import Response

from agents.wire.tables import ActionRequest
from gateway.app import create_app as create_gateway

__all__ = ["create_app"]

_STATE = b"s" * 5000
_ANSWER = b'{"answer": "' + b"a" * 4686 + b'"}'  # 4.7 KB
_SET_LUA = "return redis.call('SET', KEYS[1], ARGV[1])"


async def _write(app: Any) -> None:
    """One ``EVALSHA`` that SETs 5 KB (the script registered once per connected client)."""
    state = app.state
    script = getattr(state, "bench_set", None)
    if script is None or script.registered_client is not state.redis:
        script = state.bench_set = state.redis.register_script(_SET_LUA)
    await script(keys=[state.keys.global_("bench", "baseline")], args=[_STATE])


def create_app() -> FastAPI:
    """The gateway app (its settings from the environment) with the two baselines."""
    app = create_gateway()

    @app.post("/v1/tables/_bench/baseline", include_in_schema=False)
    async def bench_baseline(request: Request, body: ActionRequest) -> Response:
        await _write(request.app)
        return Response(_ANSWER, media_type="application/json")

    @app.websocket("/v1/tables/_bench/ws")
    async def bench_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        with contextlib.suppress(WebSocketDisconnect):
            while True:
                ActionRequest.model_validate_json(await websocket.receive_text())
                await _write(websocket.app)
                await websocket.send_bytes(_ANSWER)

    return app
