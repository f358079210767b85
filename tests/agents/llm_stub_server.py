"""Local OpenAI-compatible chat endpoints for arena tests: real HTTP servers on 127.0.0.1.

Each :class:`StubLlm` serves ``POST /v1/chat/completions`` for one agent name:
admission questions and the puzzle are answered right, from the server's own
stored challenge (read on the test side, as ``ScriptedLlm`` does), and turns by
its ``policy``: ``first``, ``last`` or ``random`` legal action, or ``dead``
(every turn answered 500, as an endpoint that broke after admission). Every
reply reports 100 prompt and 10 completion tokens, so a test can check the sums,
and ``most_in_flight`` keeps the most requests it was answering at once.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.agents.conftest import (
    _LEGAL_LINE,
    _QUESTION,
    RunningGateway,
    right_answer,
    stored_challenge,
)

PROMPT_TOKENS = 100
COMPLETION_TOKENS = 10


@dataclass
class StubLlm:
    """One agent's endpoint; ``url`` once serving, ``turns``, ``failures`` and the most
    requests in flight at once counted."""

    gateway: RunningGateway
    agent_name: str
    policy: str
    delay_s: float = 0.0
    url: str = ""
    turns: int = 0
    failures: int = 0
    in_flight: int = 0
    most_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The status and JSON body for one chat-completions request."""
        with self.lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            return self._answer(body)
        finally:
            with self.lock:
                self.in_flight -= 1

    def _answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        messages = body["messages"]
        prompt = next(m["content"] for m in messages if m["role"] == "user")
        question = _QUESTION.match(prompt)
        if question is not None:
            stored = stored_challenge(self.gateway, self.agent_name).issued
            issued = next(q for q in stored.questions if q.question.id == question.group(1))
            return 200, _completion(json.dumps({"answer": right_answer(issued)}))
        if prompt.startswith("Admission puzzle:"):
            from quiz import get_bank

            stored = stored_challenge(self.gateway, self.agent_name).issued
            kind = get_bank(stored.game).puzzle_kind(stored.puzzle.puzzle.kind)
            return 200, _completion("```json\n" + json.dumps(kind.solve(stored.puzzle)) + "\n```")
        time.sleep(self.delay_s)
        with self.lock:
            if self.policy == "dead":
                self.failures += 1
                return 500, {"error": {"message": "the model server is down"}}
            self.turns += 1
            legal = _LEGAL_LINE.findall(prompt)
            chosen = {"first": legal[0], "last": legal[-1]}.get(self.policy) or self.rng.choice(legal)
        return 200, _completion(f'{{"action": "{chosen}"}}')


def _completion(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS,
                      "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS}}


@contextmanager
def serving(stub: StubLlm) -> Iterator[StubLlm]:
    """Serve ``stub`` on a free 127.0.0.1 port until the block ends."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path != "/v1/chat/completions":
                self.send_error(404)
                return
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            status, answer = stub.answer(body)
            payload = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            if status >= 500:
                self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stub.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
