"""Small table set-ups the gateway tests share (plain functions; the fixtures are in conftest)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from agents_club_cli.embedded_redis import free_port
from agents_club_cli.serve import wait_until_ready

GAME = "market-fortune"


def agents(
    mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]], prefix: str, count: int = 2
) -> list[dict[str, str]]:
    """The auth headers of ``count`` agents admitted to Market Fortune (``<prefix>0``, ...)."""
    return [auth(mint_token(agent_id=f"{prefix}{i}", name=f"{prefix}{i}", games=(GAME,)))
            for i in range(count)]


def organiser_auth(client: TestClient) -> dict[str, str]:
    """The auth headers of an organiser token (``org``) minted by the client's app: the
    organiser may choose the seed of a table agents share; agents may not."""
    token = client.app.state.tokens.issue(  # type: ignore[attr-defined]
        agent_id="org", name="org", scopes=set(), kind="organiser").token
    return {"Authorization": f"Bearer {token}"}


def seated_table(client: TestClient, seats: list[dict[str, str]], *, seed: int) -> str:
    """A started two-seat Market Fortune table (family mode) dealt from ``seed``: the
    organiser opens it without sitting, the first agent takes seat 0 and the second
    seat 1; returns its id."""
    table = client.post("/v1/tables", headers=organiser_auth(client), json={
        "game": GAME, "mode": "family", "seats": 2, "seed": seed, "join": False}).json()
    for headers in seats[:2]:
        client.post(f"/v1/tables/{table['id']}/join", headers=headers)
    return str(table["id"])



def in_background(work: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    """Run ``work`` in a started thread; its result (or the exception it raised) lands in the
    returned list, for the test to assert on once the thread ends."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(work())
        except Exception as failure:  # handed to the test to assert on
            outcome.append(failure)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def follow_stream(
    client: TestClient, table_id: str, headers: dict[str, str]
) -> tuple[threading.Thread, list[str], list[Any]]:
    """Read the table's SSE stream as ``headers``' agent in a background thread, collecting
    its lines; returns the started thread (it ends when the server closes the stream), the
    list it fills, and its outcome (``[None]`` once it ended well, else the failure). Waits
    a moment so the stream is open before the caller acts."""
    lines: list[str] = []

    def follow() -> None:
        with client.stream("GET", f"/v1/tables/{table_id}/events/stream", headers=headers) as stream:
            assert stream.status_code == 200
            lines.extend(stream.iter_lines())

    reader, outcome = in_background(follow)
    time.sleep(0.3)
    return reader, lines, outcome


@contextlib.contextmanager
def uvicorn_workers(
    env: dict[str, str], count: int = 2
) -> Iterator[tuple[list[str], list[subprocess.Popen[bytes]]]]:
    """``count`` gateway processes (uvicorn, each on its own free loopback port) started
    with ``env``; yields their base URLs and processes once each answers ``/readyz``, and
    stops those still running afterwards (a test may have killed some)."""
    ports = [free_port() for _ in range(count)]
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "gateway.app:create_app", "--factory",
             "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
            env=env, cwd=Path(__file__).resolve().parents[2],
        )
        for port in ports
    ]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for url, process in zip(urls, processes, strict=True):
            wait_until_ready(url, process, 30)
        yield urls, processes
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            process.wait(timeout=15)
