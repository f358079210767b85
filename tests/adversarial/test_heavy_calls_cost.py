"""CPU-heavy work off the event loop (issue 33, B5): eight anonymous rulebook searches at
once held ``/healthz`` for 10 s, because each ran a second of CPU on the worker's event
loop. The heavy anonymous calls (a long game's replay, built on its first read; the
ladder's OpenSkill pass; a tournament's replays; the rulebook search) now run their CPU
work in threads, so the loop stays free to answer.

Measured as CPU time, not latency: the event loop thread's own CPU clock
(``time.pthread_getcpuclockid``) around each call, and the process's CPU per call. Both
bounds are generous resource bounds, not speed targets.
"""

from __future__ import annotations

import asyncio
import string
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, NamedTuple

import httpx
import httpx2
import uvicorn
from fastapi import FastAPI
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from gateway.routes.ws import socket_options
from gateway.services.rulebooks import SEARCH_MAX_CHARS

GAME = "market-fortune"
TABLES = 3

LOOP_CPU_PER_CALL_S = 0.05
"""The event loop's CPU per heavy call: its reads, writes and answer, not the heavy work."""

PROCESS_CPU_PER_CALL_S = 2.0
"""The whole process's CPU per heavy call, threads included (the unbounded search was
about 1 s; a long replay's build is tens of milliseconds)."""


class Served(NamedTuple):
    url: str
    loop_thread: threading.Thread

    def loop_cpu(self) -> float:
        """CPU seconds the server's event loop thread has used so far."""
        assert self.loop_thread.ident is not None
        return time.clock_gettime(time.pthread_getcpuclockid(self.loop_thread.ident))


@contextmanager
def served(app: FastAPI) -> Iterator[Served]:
    """``app`` under uvicorn in a thread (its event loop runs there), on a free port."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                            lifespan="on", timeout_graceful_shutdown=2, **socket_options())
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    give_up = time.monotonic() + 15
    while not server.started:
        assert thread.is_alive() and time.monotonic() < give_up, "the gateway did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield Served(f"http://127.0.0.1:{port}", thread)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def played_tables(url: str, organiser: dict[str, str]) -> list[str]:
    """Tables of house bots only, played to their end (long games: a heavy replay each)."""
    ids = []
    for _ in range(TABLES):
        created = httpx.post(f"{url}/v1/tables", headers=organiser, timeout=10, json={
            "game": GAME, "mode": "family", "seats": 2, "join": False,
            "house_bots": [{"seat": 0, "bot": "random"}, {"seat": 1, "bot": "random"}]})
        assert created.status_code == 201, created.text
        ids.append(created.json()["id"])
    give_up = time.monotonic() + 40
    for table_id in ids:
        while httpx.get(f"{url}/v1/tables/{table_id}", timeout=10).json()["status"] != "finished":
            assert time.monotonic() < give_up, "the bots never finished"
            time.sleep(0.1)
    return ids


def worst_search(url: str) -> Any:
    async def call() -> Any:
        async with (
            httpx2.AsyncClient() as http,
            Client(streamable_http_client(f"{url}/mcp", http_client=http)) as mcp,
        ):
            return await mcp.call_tool("read_rulebook", {
                "game": GAME, "search": " ".join(string.ascii_lowercase * 8)[:SEARCH_MAX_CHARS]})

    return asyncio.run(call())


def test_heavy_anonymous_calls_leave_the_event_loop_free(
    app: FastAPI, mint_token: Callable[..., str],
) -> None:
    organiser = {"Authorization": f"Bearer {mint_token(agent_id='org', name='org', kind='organiser')}"}
    with served(app) as gateway:
        tables = played_tables(gateway.url, organiser)
        heavy: list[Callable[[], Any]] = [
            lambda table_id=table_id: httpx.get(  # type: ignore[misc]  # first read: built now
                f"{gateway.url}/v1/tables/{table_id}/replay", timeout=30)
            for table_id in tables]
        heavy.append(lambda: httpx.get(f"{gateway.url}/v1/games/{GAME}/leaderboard", timeout=30))
        heavy.append(lambda: worst_search(gateway.url))
        loop_before, process_before = gateway.loop_cpu(), time.process_time()
        healthy: list[int] = []
        with ThreadPoolExecutor(max_workers=len(heavy) + 1) as pool:
            running = [pool.submit(call) for call in heavy]
            while not all(future.done() for future in running):
                healthy.append(httpx.get(f"{gateway.url}/healthz", timeout=5).status_code)
            answers = [future.result() for future in running]
        loop_used = gateway.loop_cpu() - loop_before
        process_used = time.process_time() - process_before
    for answer in answers[:TABLES]:
        assert answer.status_code == 200, answer.text
        assert len(answer.content) > 20_000  # a long game: the work was real
    assert answers[TABLES].status_code == 200
    assert not answers[-1].is_error
    assert healthy and set(healthy) == {200}
    calls = len(heavy) + len(healthy)
    assert loop_used < LOOP_CPU_PER_CALL_S * calls, (
        f"event loop CPU {loop_used:.3f} s over {len(heavy)} heavy calls and "
        f"{len(healthy)} health checks")
    assert process_used / len(heavy) < PROCESS_CPU_PER_CALL_S, process_used
