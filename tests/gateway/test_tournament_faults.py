"""A worker SIGKILLed in the middle of a tournament: another worker finishes it,
no table is created twice and no result is counted twice.

Two real gateway processes on one Redis namespace, as in test_multiworker.py;
the tournament is house bots only, so nothing but the workers plays it.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
import redis

from bench.socket_failover import gateway_processes
from tests.conftest import drop_namespace, server_env

ORGANISER_KEY = "tournament-faults-organiser-key-0123456789ab"


@pytest.fixture()
def workers(redis_url: str, signing_key_pem: str, tmp_path: Path) -> Iterator[tuple[list[str], list[subprocess.Popen[bytes]], str]]:
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    env = server_env(redis_url, namespace, tmp_path, signing_key_pem,
                     AGENTS_CLUB_ORGANISER_KEY=ORGANISER_KEY,
                     AGENTS_CLUB_SWEEPER_INTERVAL_S="0.01", AGENTS_CLUB_HOUSE_BOT_DELAY_S="0.001")
    try:
        with gateway_processes(env, 2) as (urls, processes):
            yield urls, processes, namespace
    finally:
        drop_namespace(redis_url, namespace)


def _progress(url: str, tournament_id: str) -> dict[str, Any]:
    shown: dict[str, Any] = httpx.get(f"{url}/v1/tournaments/{tournament_id}", timeout=10).json()
    return shown


def test_a_killed_worker_neither_stops_nor_doubles_a_tournament(
    workers: tuple[list[str], list[subprocess.Popen[bytes]], str], redis_url: str,
) -> None:
    urls, processes, namespace = workers
    body = {"name": "faults", "game": "market-fortune", "mode": "family", "seats": 2,
            "options": {"turn_limit_per_seat": 6}, "entrants": ["bot:greedy", "bot:random"],
            "format": "duplicate", "boards": 5, "turn_timeout_s": 1, "max_concurrent_tables": 2}
    created = httpx.post(f"{urls[0]}/v1/tournaments", json=body,
                         headers={"X-Organiser-Key": ORGANISER_KEY}, timeout=10)
    assert created.status_code == 201, created.text
    tournament_id = created.json()["id"]
    give_up = time.monotonic() + 20
    while (before := _progress(urls[1], tournament_id))["progress"]["done"] < 3:
        assert time.monotonic() < give_up, "the tournament did not start"
        time.sleep(0.02)
    processes[0].send_signal(signal.SIGKILL)
    processes[0].wait(timeout=10)
    assert before["progress"]["done"] < 10, "killed too late to test anything"
    give_up = time.monotonic() + 40
    while (shown := _progress(urls[1], tournament_id))["status"] == "running":
        assert time.monotonic() < give_up, f"the tournament stalled: {shown['progress']}"
        time.sleep(0.05)
    assert shown["status"] == "finished"
    assert shown["progress"] == {"total": 10, "done": 10, "running": 0, "waiting": 0}
    client = redis.Redis.from_url(redis_url)
    try:
        order = client.lrange(f"{namespace}:tn:{{{tournament_id}}}:order", 0, -1)
        assert sorted(int(index) for index in order) == list(range(10))  # each result once
        tables = []
        for key in client.scan_iter(match=f"{namespace}:t:*:table", count=1000):
            record = json.loads(client.hget(key, "record") or b"{}")
            if record.get("tournament") == tournament_id:
                tables.append(record["id"])
                # An undecoding client's XRANGE: (entry id, fields) pairs of bytes.
                events = cast("list[tuple[bytes, dict[bytes, bytes]]]",
                              client.xrange(key.decode().removesuffix(":table") + ":events"))
                kinds = [json.loads(fields[b"event"])["kind"] for _id, fields in events]
                assert kinds.count("table.created") == 1 and kinds.count("table.finished") == 1
        assert len(tables) == len(set(tables)) == 10
    finally:
        client.close()
    results = httpx.get(f"{urls[1]}/v1/tournaments/{tournament_id}/results", timeout=10).json()
    assert sorted(result["index"] for result in results["results"]) == list(range(10))
    standings = {standing["entrant"]: standing for standing in shown["standings"]}
    assert standings["bot:greedy"]["games"] == standings["bot:random"]["games"] == 10
