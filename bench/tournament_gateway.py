"""Tournament throughput through the gateway against the same tables played in-process.

It starts ``agents-club serve --workers 2`` on ``REDIS_URL`` (or on the
embedded Redis ``serve`` starts when none is set), runs a house-bot duplicate
tournament of ``bench/tournament.py``'s mixed field (two greedy and two random
bots, Market Fortune, fortune mode, four seats) through the HTTP API
(``POST /v1/tournaments``, then polling its progress until it finishes) and
times it from the creation to the end. The baseline is
``bench/tournament.py``'s ``in_process_tables_per_second`` on the same field
(the tables played in-process by the engine and the house bots, the path of
``agents-club simulate``). It prints both rates in tables (games) per second
and their ratio; the target is a ratio of at least 0.3 (PASS/FAIL).

    .venv/bin/python bench/tournament_gateway.py [--boards 10] [--max-concurrent 16]
        [--statistics] [--strict]

``--statistics`` then runs ``bench/tournament.py`` itself (the duplicate
against plain seating spreads) with the measured gateway rate, which it prints
beside its own in-process rate. The gateway's number includes everything a
tournament costs: the scheduler's lease loop, table creation, every bot move
through the compare-and-set, the results and standings.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

# Run as a script, this file's folder comes first on sys.path and its neighbours
# (engine.py, gateway.py) would hide the packages of those names; drop the folder.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import httpx  # noqa: E402

from agents_club_cli.serve import wait_until_ready  # noqa: E402
from gateway.embedded_redis import free_port  # noqa: E402

__all__ = ["TARGET_RATIO", "main", "through_gateway"]

TARGET_RATIO = 0.3
ORGANISER_KEY = "bench-tournament-organiser-key-0123456789abcdef"
GAME = "market-fortune"
MODE = "fortune"
FIELD = "mixed"


def _statistics_bench() -> ModuleType:
    """``bench/tournament.py`` (the tournament package's bench), loaded by path."""
    spec = importlib.util.spec_from_file_location("bench_tournament", _HERE / "tournament.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def _start_gateway(port: int, data_dir: Path, namespace: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "AGENTS_CLUB_ENVIRONMENT": "test", "AGENTS_CLUB_REDIS_NAMESPACE": namespace,
           "AGENTS_CLUB_ORGANISER_KEY": ORGANISER_KEY, "AGENTS_CLUB_LOG_LEVEL": "WARNING",
           "AGENTS_CLUB_SWEEPER_INTERVAL_S": "0.05", "AGENTS_CLUB_DATA_DIR": str(data_dir)}
    return subprocess.Popen(
        [sys.executable, "-m", "agents_club_cli.main", "serve", "--workers", "2",
         "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir)],
        env=env, cwd=_HERE.parent)


def through_gateway(url: str, *, entrants: list[str], boards: int,
                    max_concurrent: int) -> tuple[int, float]:
    """Tables played and seconds taken by one house-bot duplicate tournament of ``entrants``
    (house bots by the bench's ids: ``greedy#1`` enters as ``bot:greedy#1``)."""
    body: dict[str, Any] = {
        "name": "bench", "game": GAME, "mode": MODE, "seats": len(entrants),
        "entrants": [f"bot:{entrant}" for entrant in entrants], "format": "duplicate",
        "boards": boards, "turn_timeout_s": 5, "max_concurrent_tables": max_concurrent}
    with httpx.Client(base_url=url, timeout=30, headers={"X-Organiser-Key": ORGANISER_KEY}) as http:
        started = time.monotonic()
        created = http.post("/v1/tournaments", json=body)
        created.raise_for_status()
        tournament_id = created.json()["id"]
        while True:
            shown = http.get(f"/v1/tournaments/{tournament_id}").json()
            if shown["status"] != "running":
                break
            time.sleep(0.02)
        return int(shown["progress"]["done"]), time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    """Run the tournament through the gateway, then in-process; print the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--boards", type=int, default=10, help="boards (4 tables each)")
    parser.add_argument("--max-concurrent", type=int, default=16)
    parser.add_argument("--statistics", action="store_true",
                        help="then run bench/tournament.py with the measured gateway rate")
    parser.add_argument("--strict", action="store_true", help="exit 1 when the target fails")
    args = parser.parse_args(argv)
    statistics = _statistics_bench()
    field = statistics.FIELDS[FIELD]
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="agents-club-bench-") as scratch:
        server = _start_gateway(port, Path(scratch), f"bench-{uuid.uuid4().hex[:8]}")
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_ready(url, server, 60)
            tables, gateway_s = through_gateway(url, entrants=list(field.entrants),
                                                boards=args.boards,
                                                max_concurrent=args.max_concurrent)
        finally:
            server.terminate()
            server.wait(timeout=30)
    in_process_rate = float(statistics.in_process_tables_per_second(GAME, MODE, field, tables))
    gateway_rate = tables / gateway_s
    ratio = gateway_rate / in_process_rate
    verdict = "PASS" if ratio >= TARGET_RATIO else "FAIL"
    print(f"tables: {tables} ({GAME} {MODE}, field {FIELD}: {', '.join(field.entrants)})")
    print(f"through the gateway: {gateway_rate:.1f} tables/s ({gateway_s:.1f} s)")
    print(f"in-process: {in_process_rate:.1f} tables/s")
    print(f"ratio: {ratio:.2f} (target >= {TARGET_RATIO}) {verdict}")
    if args.statistics:
        statistics.main([], gateway_rate=gateway_rate)
    return 1 if args.strict and verdict == "FAIL" else 0


if __name__ == "__main__":
    sys.exit(main())
