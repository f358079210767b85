"""Stream ids past Redis's range (issue 33, B6): the pattern once let through parts above
2**64 - 1, which Redis refuses, so the long poll answered 500, the SSE stream sent 200 and
died, and MCP ``my_assignments`` raised. Each is now a 422 before Redis is asked, and the
largest id Redis accepts still reads."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from gateway.schemas.streams import STREAM_ID_PATTERN, STREAM_PART_MAX
from tests.agents.conftest import serve_app

Headers = dict[str, str]
TOO_BIG = f"{STREAM_PART_MAX + 1}-0"
LARGEST = f"{STREAM_PART_MAX}-{STREAM_PART_MAX}"


@given(st.integers(min_value=0, max_value=2**70), st.integers(min_value=0, max_value=2**70))
def test_the_pattern_admits_exactly_the_ids_redis_reads(milliseconds: int, sequence: int) -> None:
    accepted = re.fullmatch(STREAM_ID_PATTERN, f"{milliseconds}-{sequence}") is not None
    assert accepted == (milliseconds <= STREAM_PART_MAX and sequence <= STREAM_PART_MAX)


@pytest.mark.parametrize("after", [TOO_BIG, f"0-{STREAM_PART_MAX + 1}", "99999999999999999999-0",
                                   "01-0", "-1-0", "1"])
def test_an_id_redis_cannot_read_is_a_422_on_every_route(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers], after: str,
) -> None:
    headers = auth(mint_token(agent_id="reader", name="reader"))
    polled = client.get("/v1/agents/me/assignments", params={"after": after}, headers=headers)
    assert polled.status_code == 422 and polled.json()["code"] == "request/invalid", polled.text
    streamed = client.get("/v1/agents/me/assignments/stream", params={"after": after},
                          headers=headers)
    assert streamed.status_code == 422 and streamed.json()["code"] == "request/invalid"
    resumed = client.get("/v1/agents/me/assignments/stream",
                         headers={**headers, "Last-Event-ID": after})
    assert resumed.status_code == 422 and resumed.json()["code"] == "request/invalid"


def test_the_largest_id_redis_accepts_reads_nothing(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    headers = auth(mint_token(agent_id="reader", name="reader"))
    page = client.get("/v1/agents/me/assignments", params={"after": LARGEST}, headers=headers)
    assert page.status_code == 200, page.text
    assert page.json() == {"assignments": [], "last_id": LARGEST}


def test_mcp_my_assignments_refuses_the_id_before_redis(
    app: FastAPI, mint_token: Callable[..., str],
) -> None:
    token = mint_token(agent_id="reader", name="reader")

    async def call(after: str) -> Any:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
            Client(streamable_http_client(f"{url}/mcp", http_client=http)) as mcp,
        ):
            return await mcp.call_tool("my_assignments", {"after": after, "wait_s": 0})

    with serve_app(app) as url:
        refused = asyncio.run(call(TOO_BIG))
        assert refused.is_error and "after" in str(refused.content)
        assert not asyncio.run(call(LARGEST)).is_error
