"""A minimal client for any OpenAI-compatible ``/chat/completions`` endpoint.

Only what the agent needs: send a list of messages (and, for function calling,
tools), get the reply's text or tool call, with the tokens and time it cost.
The key comes from the environment (:data:`API_KEY_ENV`) so it never lands in
a command line, a transcript or a log line.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from agents._retry import RetryPolicy

__all__ = ["API_KEY_ENV", "ChatClient", "ChatError", "ChatMessage", "ChatReply", "ChatTimeout", "ToolsRefused"]

API_KEY_ENV = "AGENTS_CLUB_LLM_API_KEY"
"""The environment variable that holds the LLM endpoint's API key."""

ChatMessage = dict[str, str]
"""One chat message: ``{"role": "system" | "user" | "assistant", "content": ...}``."""


class ChatError(RuntimeError):
    """The LLM endpoint failed or answered with something that is not a chat completion."""


class ChatTimeout(ChatError):
    """The endpoint did not answer within ``timeout_s``, on every try."""


class ToolsRefused(ChatError):
    """The endpoint refused a request because it carried ``tools`` (no function calling):
    ask again in plain text."""


@dataclass(frozen=True)
class ChatReply:
    """One completion: its text, the arguments of its first tool call (when the model
    called a tool), the tokens the endpoint counted, and how long it took."""

    text: str
    tool_arguments: dict[str, Any] | None = None
    tool_name: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float = 0.0
    refusal: str | None = None
    """Why the model declined to answer (its ``refusal`` message, or a ``content_filter``
    finish), ``None`` when it answered."""


@dataclass
class ChatClient:
    """Talks to ``<base_url>/chat/completions`` with one model.

    ``transport`` is the httpx seam tests use (respx mocks only this endpoint).
    Rate limits, server errors and broken connections are retried ``max_retries``
    times by the SDK's :class:`~agents.RetryPolicy`: the wait ``Retry-After`` asks
    for, else exponential backoff with jitter; an endpoint asking for more than the
    policy's ``max_wait_s`` is not waited for.
    """

    base_url: str
    model: str
    api_key: str | None = None
    temperature: float = 0.0
    timeout_s: float = 60.0
    max_retries: int = 3
    transport: httpx.BaseTransport | None = None
    _http: httpx.Client = field(init=False, repr=False)
    _retry: RetryPolicy = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._retry = RetryPolicy(max_retries=self.max_retries, backoff_base_s=0.5)
        if self.api_key is None:
            self.api_key = os.environ.get(API_KEY_ENV)
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        self._http = httpx.Client(
            base_url=self.base_url.rstrip("/") + "/",
            headers=headers,
            timeout=self.timeout_s,
            transport=self.transport,
        )

    def complete(self, messages: Sequence[ChatMessage]) -> str:
        """The assistant's reply text to ``messages``.

        :raises ChatError: when the endpoint keeps failing or answers oddly.
        """
        return self.reply(messages).text

    def reply(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[dict[str, Any]] | None = None
    ) -> ChatReply:
        """The completion of ``messages``; with ``tools`` the model must call one of them
        (``tool_choice: required``), and the call's arguments come back parsed.

        :raises ToolsRefused: when the endpoint answers 400/404/422 to a request with
            ``tools`` (it has no function calling).
        :raises ChatError: when the endpoint keeps failing or answers oddly.
        """
        body: dict[str, Any] = {
            "model": self.model,
            "messages": list(messages),
            "temperature": self.temperature,
        }
        if tools:
            body["tools"] = list(tools)
            body["tool_choice"] = "required"
        started = time.monotonic()
        for attempt in range(self.max_retries + 1):
            try:
                response = self._http.post("chat/completions", json=body)
            except httpx.TransportError as broken:
                if attempt == self.max_retries:
                    if isinstance(broken, httpx.TimeoutException):
                        raise ChatTimeout(f"LLM endpoint did not answer in {self.timeout_s:g} s") from broken
                    raise ChatError(f"LLM endpoint unreachable: {broken}") from broken
                time.sleep(self._retry.wait_s(attempt, None))
                continue
            # A completion changes nothing at the endpoint, so asking again is always safe.
            if self._retry.should_retry(response.status_code, repeatable=True):
                wait = self._retry.wait_s(attempt, response)
                if attempt == self.max_retries or wait > self._retry.max_wait_s:
                    raise ChatError(f"LLM endpoint answered {response.status_code}")
                time.sleep(wait)
                continue
            if tools and response.status_code in (400, 404, 422):
                raise ToolsRefused(f"LLM endpoint answered {response.status_code} to a request with tools")
            if response.status_code >= 400:
                raise ChatError(f"LLM endpoint answered {response.status_code}")
            return _reply(response, time.monotonic() - started)
        raise ChatError("LLM endpoint kept failing")  # pragma: no cover - loop always returns

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()


def _reply(response: httpx.Response, latency_s: float) -> ChatReply:
    """The first choice of a chat-completions answer: its content, its first tool call's
    arguments, and the usage the endpoint reported."""
    try:
        payload = response.json()
        message = payload["choices"][0]["message"]
        content = message.get("content")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as odd:
        raise ChatError("LLM endpoint answered without a chat completion") from odd
    arguments: dict[str, Any] | None = None
    name: str | None = None
    calls = message.get("tool_calls") or []
    if isinstance(calls, list) and calls and isinstance(calls[0], dict):
        function = calls[0].get("function") or {}
        name = function.get("name") if isinstance(function.get("name"), str) else None
        raw = function.get("arguments")
        try:
            parsed = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            parsed = None
        arguments = parsed if isinstance(parsed, dict) else {}
    refusal = message.get("refusal") if isinstance(message.get("refusal"), str) else None
    finish = payload["choices"][0].get("finish_reason")
    if refusal is None and finish == "content_filter":
        refusal = "the endpoint's content filter stopped the reply"
    usage = payload.get("usage") if isinstance(payload, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    return ChatReply(
        # Some endpoints send null content (e.g. a refusal); the agent treats it as unusable.
        text=content if isinstance(content, str) else "",
        tool_arguments=arguments,
        tool_name=name,
        prompt_tokens=_count(usage.get("prompt_tokens")),
        completion_tokens=_count(usage.get("completion_tokens")),
        latency_s=round(latency_s, 3),
        refusal=refusal,
    )


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
