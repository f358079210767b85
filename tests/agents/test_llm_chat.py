"""The chat-completions client against a respx-mocked LLM endpoint (the only mock)."""

from __future__ import annotations

import time

import httpx
import pytest
import respx

from agents.llm._chat import API_KEY_ENV, ChatClient, ChatError

BASE = "https://llm.example.test/v1"


def completion(text: str | None) -> dict[str, object]:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}


@respx.mock
def test_sends_model_messages_and_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(API_KEY_ENV, "sk-test-123")
    route = respx.post(f"{BASE}/chat/completions").mock(return_value=httpx.Response(200, json=completion("ok")))
    chat = ChatClient(base_url=BASE, model="tiny")
    assert chat.complete([{"role": "user", "content": "hello"}]) == "ok"
    sent = route.calls.last.request
    assert sent.headers["Authorization"] == "Bearer sk-test-123"
    body = httpx.Response(200, content=sent.content).json()
    assert body["model"] == "tiny" and body["messages"] == [{"role": "user", "content": "hello"}]


@respx.mock
def test_retries_rate_limits_honouring_retry_after() -> None:
    route = respx.post(f"{BASE}/chat/completions").mock(
        side_effect=[
            httpx.Response(429, headers={"Retry-After": "0.3"}),
            httpx.Response(503, headers={"Retry-After": "0"}),
            httpx.Response(200, json=completion("third time")),
        ]
    )
    chat = ChatClient(base_url=BASE, model="tiny", api_key="k")
    started = time.monotonic()
    assert chat.complete([{"role": "user", "content": "x"}]) == "third time"
    assert time.monotonic() - started >= 0.3
    assert route.call_count == 3


@respx.mock
def test_gives_up_after_the_retry_limit_and_on_client_errors() -> None:
    respx.post(f"{BASE}/chat/completions").mock(return_value=httpx.Response(500, headers={"Retry-After": "0"}))
    with pytest.raises(ChatError, match="500"):
        ChatClient(base_url=BASE, model="m", api_key="k", max_retries=1).complete([])
    respx.post(f"{BASE}/chat/completions").mock(return_value=httpx.Response(401))
    with pytest.raises(ChatError, match="401"):
        ChatClient(base_url=BASE, model="m", api_key="k").complete([])


@respx.mock
def test_an_endpoint_asking_for_a_longer_wait_than_the_policy_allows_is_not_waited_for() -> None:
    route = respx.post(f"{BASE}/chat/completions").mock(
        return_value=httpx.Response(429, headers={"Retry-After": "3600"}))
    started = time.monotonic()
    with pytest.raises(ChatError, match="429"):
        ChatClient(base_url=BASE, model="m", api_key="k").complete([])
    assert time.monotonic() - started < 5 and route.call_count == 1


@respx.mock
def test_odd_bodies_are_errors_and_null_content_is_empty() -> None:
    respx.post(f"{BASE}/chat/completions").mock(return_value=httpx.Response(200, json={"nope": 1}))
    with pytest.raises(ChatError):
        ChatClient(base_url=BASE, model="m", api_key="k").complete([])
    respx.post(f"{BASE}/chat/completions").mock(return_value=httpx.Response(200, json=completion(None)))
    assert ChatClient(base_url=BASE, model="m", api_key="k").complete([]) == ""


@respx.mock
def test_a_refusal_and_a_timeout_are_told_apart_from_other_failures() -> None:
    from agents.llm import ChatTimeout

    declined = {"choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "content": None, "refusal": "I can't help with that."}}]}
    respx.post(f"{BASE}/chat/completions").mock(return_value=httpx.Response(200, json=declined))
    reply = ChatClient(base_url=BASE, model="m", api_key="k").reply([])
    assert (reply.text, reply.refusal) == ("", "I can't help with that.")
    filtered = {"choices": [{"index": 0, "finish_reason": "content_filter",
                             "message": {"role": "assistant", "content": ""}}]}
    respx.post(f"{BASE}/chat/completions").mock(return_value=httpx.Response(200, json=filtered))
    assert ChatClient(base_url=BASE, model="m", api_key="k").reply([]).refusal is not None
    respx.post(f"{BASE}/chat/completions").mock(side_effect=httpx.ReadTimeout("slow"))
    with pytest.raises(ChatTimeout, match=r"did not answer in 0\.5 s"):
        ChatClient(base_url=BASE, model="m", api_key="k", timeout_s=0.5, max_retries=0).reply([])
