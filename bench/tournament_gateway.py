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

Both rates are wall-clock rates on whatever else the machine runs, and the
gateway's two workers and Redis compete for the cores where the in-process
baseline needs one: on a busy shared machine the ratio falls with the load.
So the in-process rate is measured right before and right after the gateway
run (the ratio uses their mean, and both are printed), the load average is
printed at both ends, and the CPU each path spends per table (the gateway's
process tree, read from ``/proc`` on Linux, against the in-process run's own
CPU time) is printed as well: CPU time does not depend on the load.

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

from agents_club_cli.embedded_redis import free_port  # noqa: E402
from agents_club_cli.serve import wait_until_ready  # noqa: E402

__all__ = ["TARGET_RATIO", "main", "through_gateway"]

TARGET_RATIO = 0.3
ORGANISER_KEY = "bench-tournament-organiser-key-0123456789abcdef"
GAME = "market-fortune"
MODE = "fortune"
FIELD = "mixed"
POLL_S = 0.1
"""How often the bench reads the tournament's progress. Each read costs the gateway CPU
(the resource computes standings and ratings), which a tighter loop would count as the
tournament's; the end is seen at most this late (about 1% of a run of ten boards)."""


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


def tree_cpu_s(root: int) -> float | None:
    """CPU seconds (user and system) spent so far by process ``root`` and its live
    descendants, from ``/proc``; None where there is no ``/proc`` (not Linux)."""
    proc = Path("/proc")
    if not (proc / str(root) / "stat").exists():
        return None
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    spent: dict[int, float] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # After the command's ")": state, ppid, ..., utime (12th), stime (13th).
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        children.setdefault(int(fields[1]), []).append(int(entry.name))
        spent[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += spent.get(pid, 0.0)
        todo += children.get(pid, [])
    return total


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
            time.sleep(POLL_S)
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
    tables_planned = args.boards * len(field.entrants)
    load_before = os.getloadavg()[0]
    cpu_started = time.process_time()
    before = float(statistics.in_process_tables_per_second(GAME, MODE, field, tables_planned))
    in_process_cpu_s = time.process_time() - cpu_started
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="agents-club-bench-") as scratch:
        server = _start_gateway(port, Path(scratch), f"bench-{uuid.uuid4().hex[:8]}")
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_ready(url, server, 60)
            cpu_before = tree_cpu_s(server.pid)
            tables, gateway_s = through_gateway(url, entrants=list(field.entrants),
                                                boards=args.boards,
                                                max_concurrent=args.max_concurrent)
            cpu_after = tree_cpu_s(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
    after = float(statistics.in_process_tables_per_second(GAME, MODE, field, tables))
    in_process_rate = (before + after) / 2
    gateway_rate = tables / gateway_s
    ratio = gateway_rate / in_process_rate
    verdict = "PASS" if ratio >= TARGET_RATIO else "FAIL"
    print(f"tables: {tables} ({GAME} {MODE}, field {FIELD}: {', '.join(field.entrants)})")
    print(f"load average (1 min): {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")
    print(f"through the gateway: {gateway_rate:.1f} tables/s ({gateway_s:.1f} s)")
    print(f"in-process: {in_process_rate:.1f} tables/s ({before:.1f} before, {after:.1f} after)")
    print(f"ratio: {ratio:.2f} (target >= {TARGET_RATIO}) {verdict}")
    if cpu_before is not None and cpu_after is not None and tables:
        gateway_cpu_ms = 1000 * (cpu_after - cpu_before) / tables
        in_process_cpu_ms = 1000 * in_process_cpu_s / tables_planned
        print(f"CPU per table: {gateway_cpu_ms:.0f} ms through the gateway (workers, scheduler "
              f"and Redis), {in_process_cpu_ms:.0f} ms in-process "
              f"({in_process_cpu_ms / gateway_cpu_ms:.2f} of the gateway's)")
    if args.statistics:
        statistics.main([], gateway_rate=gateway_rate)
    return 1 if args.strict and verdict == "FAIL" else 0


if __name__ == "__main__":
    sys.exit(main())
