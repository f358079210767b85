"""A rulebook search's cost (issue 33, B5): ``read_rulebook`` with a 60 KB search of
one-letter words scanned every section once per word, about a second of worker CPU on the
event loop per anonymous call. The search is now bounded (its text by the tool's schema,
its words by a cap) and runs over a prebuilt index: the worst query stays far under a
generous CPU bound, measured as this thread's CPU time, not wall-clock latency."""

from __future__ import annotations

import asyncio
import string
import time
from typing import Any

import httpx2
from fastapi import FastAPI
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from engine.registry import all_games
from gateway.services.rulebooks import SEARCH_MAX_CHARS, find_sections
from tests.agents.conftest import serve_app

CPU_BOUND_S = 0.05
"""Per search: the unbounded scan took about 1 s; the index takes well under a millisecond."""

WORST_QUERIES = [
    " ".join(string.ascii_lowercase * 8)[:SEARCH_MAX_CHARS],
    "a " * 30_000,
    "the of a to and in is " * 3000,
    "x" * 60_000,
]


def test_every_search_costs_bounded_cpu() -> None:
    for game in sorted(all_games()):
        find_sections(game, "warm the index")
        for query in WORST_QUERIES:
            started = time.thread_time()
            find_sections(game, query)
            assert time.thread_time() - started < CPU_BOUND_S, (game, query[:20])


def test_the_search_still_finds_sections() -> None:
    found = find_sections("market-fortune", "Stablecoin")
    assert found and all("stablecoin" in part.text.casefold() for part in found)
    assert find_sections("market-fortune", "reshuffl")  # a word matches the longer words it begins
    assert find_sections("market-fortune", "zzzqqq-no-such-word") == []


def test_an_oversized_search_is_refused_by_the_tool(app: FastAPI) -> None:
    async def call(search: str) -> Any:
        async with (
            httpx2.AsyncClient() as http,
            Client(streamable_http_client(f"{url}/mcp", http_client=http)) as mcp,
        ):
            return await mcp.call_tool("read_rulebook", {"game": "market-fortune", "search": search})

    with serve_app(app) as url:
        refused = asyncio.run(call("a " * 30_000))
        assert refused.is_error and "search" in str(refused.content)
        found = asyncio.run(call("Stablecoin reshuffle"))
        assert not found.is_error
