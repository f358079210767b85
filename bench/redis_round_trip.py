"""Client CPU per Redis round trip: ``round_trip`` against redis-py's own pipeline.

A typical table read (``TableStore.load_for_action``: the table hash's HMGET,
the idempotency GET, the revocation EXISTS) is sent again and again through

* ``round_trip``: :func:`gateway.store.connection.round_trip` (redis-py's pool:
  ``get_connection``, ``send_packed_command``, ``read_response`` per reply,
  ``release``);
* ``pipeline``: redis-py's non-transactional pipeline (with its response callbacks).

Each is measured with ``time.process_time()`` (this process only; Redis's
CPU is not counted) with one caller and with ``--concurrency`` callers
sharing the client, in alternating rounds so that drift in the machine's load
hits every variant alike. It prints microseconds of CPU per round trip and
the ratio round_trip / pipeline (lower is better). Keys live under a unique prefix
and are deleted at the end.

    .venv/bin/python bench/redis_round_trip.py [--url redis://127.0.0.1:6379/0]
        [--round-trips 20000] [--rounds 5] [--concurrency 16] [--worker-client]

``--worker-client`` uses the client a gateway worker makes (redis-py's
``BlockingConnectionPool``, ``socket_timeout``); without it, redis-py's defaults.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path, and bench/gateway.py
# would shadow the gateway package.
if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)

import uvloop

from gateway.store.connection import RedisClient, connect, round_trip
from gateway.store.table_rows import SNAPSHOT_FIELDS


async def pipeline_round_trip(client: RedisClient, *commands: Sequence[Any]) -> list[Any]:
    """redis-py's own non-transactional pipeline (with its response callbacks)."""
    async with client.pipeline(transaction=False) as pipe:
        for command in commands:
            pipe.execute_command(*command)
        return await pipe.execute(raise_on_error=False)


RoundTrip = Callable[..., Awaitable[list[Any]]]
VARIANTS: dict[str, RoundTrip] = {
    "round_trip": round_trip,
    "pipeline": pipeline_round_trip,
}


async def measure(
    client: RedisClient, variant: RoundTrip, commands: list[tuple[Any, ...]],
    count: int, concurrency: int,
) -> float:
    """Microseconds of this process's CPU per round trip, ``count`` round trips."""
    async def caller(n: int) -> None:
        for _ in range(n):
            replies = await variant(client, *commands)
            assert replies[1] is not None and replies[2] == 1, replies

    await caller(200)  # warm: connections made, code paths hot
    started = time.process_time()
    share = count // concurrency
    await asyncio.gather(*(caller(share) for _ in range(concurrency)))
    return (time.process_time() - started) / (share * concurrency) * 1e6


async def main(url: str, count: int, rounds: int, concurrency: int, worker_client: bool) -> None:
    """Run the rounds and print the medians."""
    # A gateway worker's client, with the default settings: bounded (16 connections, a
    # caller waits for one) and a 5 s socket timeout on every send and reply.
    client = (connect(url, max_connections=16, socket_timeout_s=5.0) if worker_client
              else connect(url))
    prefix = f"bench-rt-{uuid.uuid4().hex[:10]}"
    table, seen, revoked = f"{prefix}:t:{{x}}:state", f"{prefix}:t:{{x}}:seen:k", f"{prefix}:revoked"
    state = json.dumps({"seats": [{"hand": list(range(12)), "score": 17}] * 2, "deck": list(range(40))})
    try:
        await client.hset(table, mapping={
            "record": json.dumps({"game": "market_fortune", "seats": 2, "bots": 0}),
            "state": state, "version": 41, "seq": 120, "deadline": 1796017676.5})
        await client.set(seen, json.dumps({"status": 200, "body": {"ok": True}}))
        await client.set(revoked, "1")
        commands = [("HMGET", table, *SNAPSHOT_FIELDS), ("GET", seen), ("EXISTS", revoked)]
        results: dict[tuple[str, int], list[float]] = {}
        for _round in range(rounds):
            for callers in (1, concurrency):
                for name, variant in VARIANTS.items():
                    results.setdefault((name, callers), []).append(
                        await measure(client, variant, commands, count, callers))
        for callers in (1, concurrency):
            medians = {name: statistics.median(results[name, callers]) for name in VARIANTS}
            runs = "  ".join(
                f"{name} {medians[name]:5.1f} us [{' '.join(f'{v:.1f}' for v in results[name, callers])}]"
                for name in VARIANTS)
            print(f"{callers:3d} caller(s), CPU per round trip (median of {rounds}): {runs}")
            print(f"    round_trip / pipeline = {medians['round_trip'] / medians['pipeline']:.2f}")
    finally:
        await client.delete(table, seen, revoked)
        await client.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--round-trips", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--worker-client", action="store_true",
                        help="the client a gateway worker makes (bounded pool, socket timeout) "
                             "instead of redis-py's unbounded default")
    args = parser.parse_args()
    # uvloop, as the gateway's workers run (uvicorn's "auto" loop).
    uvloop.run(main(args.url, args.round_trips, args.rounds, args.concurrency, args.worker_client))
