"""Held anonymous MCP streams (issue 33, W3): an anonymous ``GET /mcp`` stayed open for at
least 90 s with no bound, and 3,000 of them cost 110 MB and 1,500 descriptors per worker.
Now one address holds only so many without a token (429 beyond, and a freed place can be
taken again), and every such stream ends after its lifetime. Anonymous MCP requests share
one per-address allowance across workers, as anonymous replays do (B5)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import httpx
import pytest
from fastapi import FastAPI

from gateway.config import Settings
from tests.agents.conftest import serve_app

CAP = 2
CALLS = 6
STREAM = {"Accept": "text/event-stream"}


@pytest.fixture()
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"mcp_anonymous_streams_per_address": CAP,
                                       "mcp_stream_max_s": 2.0,
                                       "anonymous_mcp_calls_per_address": CALLS})


@pytest.fixture()
def url(app: FastAPI) -> Iterator[str]:
    with serve_app(app) as base_url:
        yield base_url


def test_anonymous_streams_are_capped_per_address_and_end(url: str) -> None:
    ended = []
    opened = threading.Barrier(CAP + 1)

    def hold() -> None:
        with httpx.Client(timeout=30) as http, http.stream("GET", f"{url}/mcp", headers=STREAM) as held:
            assert held.status_code == 200, held.read()
            opened.wait()
            for _chunk in held.iter_bytes():
                pass
            ended.append(True)  # the server ended it: the lifetime, not our timeout

    holders = [threading.Thread(target=hold) for _ in range(CAP)]
    for holder in holders:
        holder.start()
    opened.wait(timeout=20)
    with httpx.Client(timeout=10) as http:
        refused = http.get(f"{url}/mcp", headers=STREAM)
        assert refused.status_code == 429, refused.text
        assert refused.json()["code"] == "rate/limited" and "Retry-After" in refused.headers
    for holder in holders:
        holder.join(timeout=30)
    assert ended == [True] * CAP
    with httpx.Client(timeout=30) as http, http.stream("GET", f"{url}/mcp", headers=STREAM) as again:
        assert again.status_code == 200  # the places were given back


def test_anonymous_mcp_calls_share_one_allowance(url: str, mint_token: Callable[..., str]) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    with httpx.Client(timeout=10) as http:
        for _ in range(CALLS):
            assert http.post(f"{url}/mcp", json=call, headers=headers).status_code != 429
        refused = http.post(f"{url}/mcp", json=call, headers=headers)
        assert refused.status_code == 429 and refused.json()["code"] == "rate/limited"
        token = mint_token(agent_id="agent", name="agent")
        signed = http.post(f"{url}/mcp", json=call,
                           headers={**headers, "Authorization": f"Bearer {token}"})
        assert signed.status_code == 200, signed.text
