"""A minimal client for any OpenAI-compatible ``/chat/completions`` endpoint.

Only what the agent needs: send a list of messages, get the reply's text.
The key comes from the environment (:data:`API_KEY_ENV`) so it never lands in
a command line, a transcript or a log line.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

__all__ = ["API_KEY_ENV", "ChatClient", "ChatError", "ChatMessage"]

API_KEY_ENV = "AGENTS_CLUB_LLM_API_KEY"
"""The environment variable that holds the LLM endpoint's API key."""

ChatMessage = dict[str, str]
"""One chat message: ``{"role": "system" | "user" | "assistant", "content": ...}``."""


class ChatError(RuntimeError):
    """The LLM endpoint failed or answered with something that is not a chat completion."""


@dataclass
class ChatClient:
    """Talks to ``<base_url>/chat/completions`` with one model.

    ``transport`` is the httpx seam tests use (respx mocks only this endpoint).
    Rate limits and server errors are retried ``max_retries`` times, honouring
    ``Retry-After`` when the endpoint sends it.
    """

    base_url: str
    model: str
    api_key: str | None = None
    temperature: float = 0.0
    timeout_s: float = 60.0
    max_retries: int = 3
    transport: httpx.BaseTransport | None = None
    _http: httpx.Client = field(init=False, repr=False)

    def __post_init__(self) -> None:
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
        body: dict[str, Any] = {
            "model": self.model,
            "messages": list(messages),
            "temperature": self.temperature,
        }
        for attempt in range(self.max_retries + 1):
            try:
                response = self._http.post("chat/completions", json=body)
            except httpx.TransportError as broken:
                if attempt == self.max_retries:
                    raise ChatError(f"LLM endpoint unreachable: {broken}") from broken
                time.sleep(min(2.0**attempt * 0.5, 8.0))
                continue
            if response.status_code == 429 or response.status_code >= 500:
                if attempt == self.max_retries:
                    raise ChatError(f"LLM endpoint answered {response.status_code}")
                time.sleep(_retry_after(response, attempt))
                continue
            if response.status_code >= 400:
                raise ChatError(f"LLM endpoint answered {response.status_code}")
            return _reply_text(response)
        raise ChatError("LLM endpoint kept failing")  # pragma: no cover - loop always returns

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()


def _retry_after(response: httpx.Response, attempt: int) -> float:
    """Seconds to wait: the endpoint's ``Retry-After`` when numeric, else backoff."""
    header = response.headers.get("Retry-After")
    if header is not None:
        try:
            return min(max(float(header), 0.0), 60.0)
        except ValueError:
            pass
    return min(2.0**attempt * 0.5, 8.0)


def _reply_text(response: httpx.Response) -> str:
    """The first choice's message content of a chat-completions answer."""
    try:
        payload = response.json()
        content = payload["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as odd:
        raise ChatError("LLM endpoint answered without a chat completion") from odd
    # Some endpoints send null content (e.g. a refusal); the agent treats it as unusable.
    return content if isinstance(content, str) else ""
