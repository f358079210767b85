"""Fixtures for SDK tests: the real gateway app behind a real uvicorn, on a real Redis.

``gateway`` starts ``create_app(settings)`` in a background thread on a free
port (the lifespan runs: Redis, turn-clock sweeper, house-bot driver) and
yields a :class:`RunningGateway` with its base URL and the app's token
service. One server per test module keeps the suite fast; each test creates
its own tables and agents, and the module's Redis namespace is deleted after.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
import redis
import respx
import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi import FastAPI
from starlette.types import ASGIApp

from agents import Client, GameOut
from agents.llm import ChatClient
from gateway.app import create_app
from gateway.config import Settings
from gateway.routes.ws import socket_options
from gateway.security import TokenService

ORGANISER_KEY = "sdk-test-organiser-key-0123456789abcdefghijkl"
PREFERRED_GAME = "market-fortune"


@dataclass
class RunningGateway:
    """A gateway serving on ``base_url``; ``mint`` signs tokens with its own key."""

    base_url: str
    app: FastAPI
    settings: Settings

    @property
    def tokens(self) -> TokenService:
        service: TokenService = self.app.state.tokens
        return service

    def mint(
        self, name: str | None = None, games: Iterable[str] = ("market-fortune",), ttl_s: int | None = None
    ) -> str:
        """A bearer token for a new agent called ``name`` allowed to play ``games``."""
        agent = name or f"sdk-{uuid.uuid4().hex[:8]}"
        return self.tokens.issue(
            agent_id=f"id-{agent}", name=agent, scopes={f"game:{game}" for game in games}, ttl_s=ttl_s
        ).token

    def forged_token(self, **changes: Any) -> str:
        """A token signed with this gateway's own key, its claims changed by ``changes``."""
        claims = jwt.decode(self.mint(), options={"verify_signature": False})
        claims.update(changes)
        keyring = self.tokens.keyring
        return jwt.encode(
            claims, keyring.signing_key, algorithm="EdDSA", headers={"kid": keyring.signing_kid, "typ": "JWT"}
        )

    def client(self, token: str | None = None, **options: Any) -> Client:
        """An SDK client of this gateway."""
        return Client(self.base_url, token=token, **options)


def pick_game(client: Client) -> GameOut:
    """The game SDK tests play: Market Fortune when installed, else the first listed."""
    games = client.games().games
    return next((game for game in games if game.name == PREFERRED_GAME), games[0])


def _signing_key() -> str:
    return (
        Ed25519PrivateKey.generate()
        .private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        .decode("ascii")
    )


def sdk_settings(redis_url: str, namespace: str, data_dir: Path, **overrides: object) -> Settings:
    """Test settings for an SDK test gateway."""
    values: dict[str, object] = {
        "environment": "test",
        "redis_url": redis_url,
        "redis_namespace": namespace,
        "data_dir": data_dir,
        "signing_key_pem": _signing_key(),
        "organiser_key": ORGANISER_KEY,
        "log_format": "text",
    }
    values.update(overrides)
    return Settings.model_validate(values)


@contextmanager
def serve_app(app: ASGIApp) -> Iterator[str]:
    """Run ``app`` under uvicorn in a thread on a free port; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2,
                            **socket_options())
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test gateway did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(scope="module")
def gateway_namespace(redis_url: str) -> Iterator[str]:
    """A key namespace for one test module's gateway, deleted afterwards."""
    namespace = f"test-sdk-{uuid.uuid4().hex[:10]}"
    yield namespace
    client = redis.Redis.from_url(redis_url)
    try:
        batch = list(client.scan_iter(match=f"{namespace}:*", count=1000))
        if batch:
            client.delete(*batch)
    finally:
        client.close()


@pytest.fixture(scope="module")
def game(gateway: RunningGateway) -> GameOut:
    """The game this module plays (see :func:`pick_game`)."""
    with gateway.client() as client:
        return pick_game(client)


SHORT_GAME_OPTIONS = {"market-fortune": {"turn_limit_per_seat": 8}}
"""Table options that keep test games short (a few dozen actions)."""


@pytest.fixture(scope="module")
def short_game(game: GameOut) -> dict[str, Any]:
    """``create_table`` keyword arguments for a short game of :func:`game`: mode, seats, options."""
    mode = game.modes[0]
    return {
        "game": game.name,
        "mode": mode.name,
        "seats": mode.min_seats,
        "options": SHORT_GAME_OPTIONS.get(game.name, {}),
    }


@pytest.fixture(scope="module")
def gateway(redis_url: str, gateway_namespace: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningGateway]:
    """The real gateway app serving over HTTP for this test module."""
    settings = sdk_settings(redis_url, gateway_namespace, tmp_path_factory.mktemp("gateway-data"))
    app = create_app(settings)
    with serve_app(app) as base_url:
        yield RunningGateway(base_url=base_url, app=app, settings=settings)


# ---- the scripted language model (respx mocks the LLM endpoint, nothing else) ----------

LLM_BASE_URL = "https://llm.test/v1"
_LEGAL_LINE = re.compile(r"^\d+\. (\S+) — ", re.MULTILINE)
_QUESTION = re.compile(r"^Admission question (\S+) ")


def stored_challenge(gateway: RunningGateway, agent_name: str) -> Any:
    """The server's own record of ``agent_name``'s newest challenge, read from Redis (test side)."""
    from gateway.services.admission import StoredChallenge

    pattern = f"{gateway.settings.redis_namespace}:admission:challenge:*"
    assert gateway.settings.redis_url is not None  # sdk_settings always names one
    with redis.Redis.from_url(gateway.settings.redis_url) as peek:
        found = []
        for key in peek.scan_iter(match=pattern, count=1000):
            raw = peek.hget(key, "payload")
            if raw is None:
                continue
            record = StoredChallenge.model_validate_json(raw)
            if record.agent_name == agent_name:
                found.append(record)
    assert found, f"no stored challenge for {agent_name}"
    return max(found, key=lambda record: record.expires_at)


def right_answer(issued_question: Any) -> Any:
    """The expected answer of a stored question, in the JSON shape an agent sends."""
    question = issued_question.question
    if question.format == "integer":
        return int(issued_question.expected)
    if question.format == "yes_no":
        return issued_question.expected
    return issued_question.expected


@dataclass
class ScriptedLlm:
    """A chat-completions endpoint whose replies a test scripts.

    ``turn_script`` maps a decision number (1-based) to the replies for its
    attempts, in order; a decision without a script answers with its first
    legal id. Admission prompts are answered from the server's stored
    challenge (``right_answers=False`` answers every question wrongly).
    """

    gateway: RunningGateway
    agent_name: str = ""
    base_url: str = LLM_BASE_URL
    right_answers: bool = True
    turn_script: dict[int, list[str]] = field(default_factory=dict)
    question_reply: str | None = None
    """When set, every admission question gets this reply (an unreadable one, say)."""
    puzzle_replies: list[str] = field(default_factory=list)
    """Replies to the puzzle prompts, in order (``<solution>``: the right answer); once
    used up, the right answer."""
    decisions: int = 0
    requests: list[list[dict[str, str]]] = field(default_factory=list)

    def transport(self) -> httpx.MockTransport:
        router = respx.Router(base_url=LLM_BASE_URL, assert_all_called=False)
        router.post("/chat/completions").mock(side_effect=self.reply)
        return httpx.MockTransport(router.handler)

    def reply(self, request: httpx.Request) -> httpx.Response:
        messages = json.loads(request.content)["messages"]
        self.requests.append(messages)
        first_user = next(m["content"] for m in messages if m["role"] == "user")
        attempt = sum(1 for m in messages if m["role"] == "assistant")
        text = self._answer(first_user, attempt)
        return httpx.Response(200, json={
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}})

    def _answer(self, prompt: str, attempt: int) -> str:
        question = _QUESTION.match(prompt)
        if question is not None and self.question_reply is not None:
            return self.question_reply
        if question is not None:
            stored = stored_challenge(self.gateway, self.agent_name).issued
            issued = next(q for q in stored.questions if q.question.id == question.group(1))
            answer = right_answer(issued)
            if not self.right_answers:
                answer = _wrong(issued, answer)
            return f"From the rulebook, section {issued.question.section}.\n" + json.dumps({"answer": answer})
        if prompt.startswith("Admission puzzle:"):
            from quiz import get_bank

            stored = stored_challenge(self.gateway, self.agent_name).issued
            kind = get_bank(stored.game).puzzle_kind(stored.puzzle.puzzle.kind)
            solution = json.dumps(kind.solve(stored.puzzle))
            if self.puzzle_replies:
                return self.puzzle_replies.pop(0).replace("<solution>", solution)
            return "Working it out...\n```json\n" + solution + "\n```"
        if attempt == 0:
            self.decisions += 1
        legal = _LEGAL_LINE.findall(prompt)
        script = self.turn_script.get(self.decisions)
        if script is not None and attempt < len(script):
            return script[attempt].replace("<first>", legal[0])
        return f'I pick the first listed option.\n{{"action": "{legal[0]}"}}'


def _wrong(issued_question: Any, answer: Any) -> Any:
    question = issued_question.question
    if question.format == "integer":
        return answer + 1
    if question.format == "yes_no":
        return "no" if answer == "yes" else "yes"
    return next(option.id for option in question.options if option.id != answer)


@pytest.fixture()
def scripted(gateway: RunningGateway) -> ScriptedLlm:
    """A scripted LLM endpoint for a fresh agent name on this module's gateway."""
    return ScriptedLlm(gateway=gateway, agent_name=f"llm-{uuid.uuid4().hex[:8]}")


@pytest.fixture()
def chat(scripted: ScriptedLlm) -> Callable[[], ChatClient]:
    """Makes chat clients whose only transport is the scripted endpoint."""

    def make() -> ChatClient:
        return ChatClient(base_url=LLM_BASE_URL, model="scripted-1", api_key="test-key", transport=scripted.transport())

    return make


@pytest.fixture()
def serve() -> Callable[[FastAPI], Any]:
    """:func:`serve_app`, for tests that run a second gateway of their own."""
    return serve_app


def right_submission(gateway: RunningGateway, agent_name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A correct answer to ``agent_name``'s newest challenge, computed on the test side."""
    from quiz import get_bank

    stored = stored_challenge(gateway, agent_name).issued
    answers = {item.question.id: right_answer(item) for item in stored.questions}
    kind = get_bank(stored.game).puzzle_kind(stored.puzzle.puzzle.kind)
    return answers, kind.solve(stored.puzzle)


@pytest.fixture()
def oracle(gateway: RunningGateway) -> Callable[[str], tuple[dict[str, Any], dict[str, Any]]]:
    """``oracle(agent_name)``: the right answers to that agent's newest challenge (test side only)."""
    return lambda agent_name: right_submission(gateway, agent_name)
