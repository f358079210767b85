"""Small table set-ups the gateway tests share (plain functions; the fixtures are in conftest)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

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
    assert isinstance(client.app, FastAPI)
    token = client.app.state.tokens.issue(
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
