"""Admission throughput on one gateway worker: challenges created and answers checked per second.

Starts ``agents-club serve --workers 1`` on a free port (against ``REDIS_URL``
or a private ``redis-server``), then drives it with concurrent HTTP clients:

* baseline: ``GET /healthz`` (no Redis, no work) measured in the same run;
* challenges: ``POST /v1/admission/challenges`` (seeded engine walks for the
  puzzle, one Redis write);
* answers checked: ``POST .../answers`` that fail (one Lua claim, grading
  with the engine's rules, no registration);
* admissions: ``POST .../answers`` that pass (grading, agent registration with
  a scrypt-hashed secret, a signed token).

Usage: ``.venv/bin/python bench/admission.py [--requests 400] [--concurrency 16]``.
Rate limits are lifted for the run; its keys live in a namespace deleted at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path, and bench/engine.py
# would shadow the engine package.
if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)

import httpx
import redis

from agents_club_cli.embedded_redis import EmbeddedRedis, free_port, redis_answers
from gateway.services.admission import StoredChallenge
from quiz.registry import get_bank

GAME = "market-fortune"




@contextlib.contextmanager
def _redis_url() -> Iterator[str]:
    explicit = os.environ.get("REDIS_URL")
    if explicit:
        yield explicit
    elif redis_answers("127.0.0.1", 6379):
        yield "redis://127.0.0.1:6379/0"
    else:
        with tempfile.TemporaryDirectory() as data, EmbeddedRedis(Path(data), persistent=False) as server:
            yield server.url


@contextlib.contextmanager
def _gateway(redis_url: str, namespace: str) -> Iterator[str]:
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "AGENTS_CLUB_REDIS_NAMESPACE": namespace,
        "AGENTS_CLUB_LOG_LEVEL": "WARNING",
        "AGENTS_CLUB_ADMISSION_CHALLENGES_PER_ADDRESS": str(10**9),
        "AGENTS_CLUB_ADMISSION_CHALLENGES_PER_NAME": str(10**9),
    }
    with tempfile.TemporaryDirectory() as data:
        server = subprocess.Popen(
            [sys.executable, "-m", "agents_club_cli.main", "serve", "--workers", "1",
             "--port", str(port), "--data-dir", data],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                        break
                time.sleep(0.2)
            else:
                raise RuntimeError("the gateway did not start")
            yield base
        finally:
            server.terminate()
            server.wait(timeout=15)


async def _drive(
    count: int, concurrency: int, call: Callable[[httpx.AsyncClient, int], Awaitable[Any]], base: str
) -> tuple[float, list[Any]]:
    """Run ``call`` for 0..count-1 with ``concurrency`` workers; seconds taken and results."""
    results: list[Any] = [None] * count
    queue = iter(range(count))
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:

        async def worker() -> None:
            for index in queue:
                results[index] = await call(client, index)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started, results


def _right_answers(stored: StoredChallenge) -> dict[str, Any]:
    answers: dict[str, Any] = {}
    for item in stored.issued.questions:
        fmt = item.question.format
        answers[item.question.id] = (
            int(item.expected) if fmt == "integer" else item.expected == "yes" if fmt == "yes_no" else item.expected
        )
    kind = get_bank(GAME).puzzle_kind(stored.issued.puzzle.puzzle.kind)
    return {"answers": answers, "puzzle": kind.solve(stored.issued.puzzle)}


async def _run(base: str, redis_url: str, namespace: str, requests: int, concurrency: int) -> None:
    run = uuid.uuid4().hex[:6]

    async def health(client: httpx.AsyncClient, _index: int) -> int:
        return (await client.get("/healthz")).status_code

    async def challenge(client: httpx.AsyncClient, index: int) -> str:
        response = await client.post(
            "/v1/admission/challenges", json={"agent_name": f"bench-{run}-{index}", "game": GAME}
        )
        assert response.status_code == 201, response.text
        return str(response.json()["challenge_id"])

    await _drive(concurrency * 4, concurrency, health, base)  # warm up connections
    baseline_s, _ = await _drive(requests, concurrency, health, base)
    created_s, ids = await _drive(requests, concurrency, challenge, base)

    async def fail(client: httpx.AsyncClient, index: int) -> int:
        response = await client.post(
            f"/v1/admission/challenges/{ids[index]}/answers", json={"answers": {}, "puzzle": {}}
        )
        assert response.status_code == 403, response.text
        return response.status_code

    checked_s, _ = await _drive(requests, concurrency, fail, base)

    passes = max(concurrency, requests // 4)
    _, pass_ids = await _drive(passes, concurrency, challenge, base)
    store = redis.Redis.from_url(redis_url)
    bodies = [
        _right_answers(StoredChallenge.model_validate_json(
            store.hget(f"{namespace}:admission:challenge:{cid}", "payload") or b""
        ))
        for cid in pass_ids
    ]  # fmt: skip

    async def admit(client: httpx.AsyncClient, index: int) -> int:
        response = await client.post(f"/v1/admission/challenges/{pass_ids[index]}/answers", json=bodies[index])
        assert response.status_code == 201, response.text
        return response.status_code

    admitted_s, _ = await _drive(passes, concurrency, admit, base)

    rows = [
        ("baseline GET /healthz", requests, baseline_s),
        ("challenges created", requests, created_s),
        ("answers checked (fail)", requests, checked_s),
        ("admissions (pass + register)", passes, admitted_s),
    ]
    base_rate = requests / baseline_s
    print(f"one worker, concurrency {concurrency}")
    print(f"{'what':32} {'requests':>8} {'seconds':>8} {'per s':>9} {'vs baseline':>12}")
    for name, count, seconds in rows:
        rate = count / seconds
        print(f"{name:32} {count:8d} {seconds:8.2f} {rate:9.1f} {rate / base_rate:12.3f}")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args(argv)
    namespace = f"bench-admission-{uuid.uuid4().hex[:8]}"
    with _redis_url() as redis_url:
        try:
            with _gateway(redis_url, namespace) as base:
                asyncio.run(_run(base, redis_url, namespace, args.requests, args.concurrency))
        finally:
            client = redis.Redis.from_url(redis_url)
            keys = list(client.scan_iter(match=f"{namespace}:*", count=1000))
            if keys:
                client.delete(*keys)
    return 0


if __name__ == "__main__":
    sys.exit(main())
