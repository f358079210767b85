"""Held anonymous MCP streams (issue 33, W3): an anonymous ``GET /mcp`` stayed open for at
least 90 s with no bound, and 3,000 of them cost 110 MB and 1,500 descriptors per worker.
The transport is stateless and never sends on such a stream, so a ``GET`` is now refused at
once (405, as the streamable HTTP transport permits) and holds nothing. Anonymous MCP
requests share one per-address allowance across workers, as anonymous replays do (B5)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from fastapi import FastAPI

from gateway.config import Settings
from tests.agents.conftest import serve_app

CALLS = 6
STREAM = {"Accept": "text/event-stream"}


@pytest.fixture()
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"anonymous_mcp_calls_per_address": CALLS})


@pytest.fixture()
def url(app: FastAPI) -> Iterator[str]:
    with serve_app(app) as base_url:
        yield base_url


@pytest.mark.parametrize("signed", [False, True])
def test_a_stream_is_refused_at_once_and_holds_nothing(
        url: str, mint_token: Callable[..., str], signed: bool) -> None:
    headers = dict(STREAM)
    if signed:
        headers["Authorization"] = f"Bearer {mint_token(agent_id='agent', name='agent')}"
    with httpx.Client(timeout=5) as http:
        for _ in range(CALLS + 2):  # more than the allowance: a refused GET costs none of it
            refused = http.get(f"{url}/mcp", headers=headers)
            assert refused.status_code == 405, refused.text
            assert refused.headers["content-type"].startswith("application/problem+json")
            assert refused.json()["code"] == "request/method_not_allowed"
            assert set(refused.headers["Allow"].replace(" ", "").split(",")) == {"POST", "DELETE"}
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        listed = http.post(f"{url}/mcp", json=call,
                           headers={**headers, "Accept": "application/json, text/event-stream"})
        assert listed.status_code == 200, listed.text


def test_anonymous_mcp_calls_share_one_allowance(url: str, mint_token: Callable[..., str]) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    with httpx.Client(timeout=10) as http:
        for _ in range(CALLS):
            assert http.post(f"{url}/mcp", json=call, headers=headers).status_code != 429
        refused = http.post(f"{url}/mcp", json=call, headers=headers)
        assert refused.status_code == 429 and refused.json()["code"] == "rate/limited"
        junk = http.post(f"{url}/mcp", json=call,
                         headers={**headers, "Authorization": "Bearer not-a-token"})
        assert junk.status_code == 429  # a header that does not verify lifts nothing
        token = mint_token(agent_id="agent", name="agent")
        signed = http.post(f"{url}/mcp", json=call,
                           headers={**headers, "Authorization": f"Bearer {token}"})
        assert signed.status_code == 200, signed.text
