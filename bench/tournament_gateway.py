"""Tournament throughput through the gateway against ``agents-club simulate`` in-process.

It starts ``agents-club serve --workers 2`` on ``REDIS_URL`` (or on the
embedded Redis ``serve`` starts when none is set), runs a house-bot duplicate
tournament through the HTTP API (``POST /v1/tournaments``, then polling its
progress until it finishes) and times it from the creation to the end. Then it
plays the same number of games in-process with :func:`engine.simulation.play_table`
(what ``agents-club simulate`` runs) on the same game, configuration and bots.
It prints both rates in games per second and their ratio; the target is a ratio
of at least 0.3 (PASS/FAIL).

    .venv/bin/python bench/tournament_gateway.py [--boards 40] [--seats 2]
        [--max-concurrent 16] [--strict]

The gateway's number includes everything a tournament costs: the scheduler's
lease loop, table creation, every bot move through the compare-and-set, the
results and standings. ``bench/tournament.py`` (the ``tournament`` package's
benchmark) measures the statistics; this file is the gateway's half.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path and its neighbours
# (engine.py, gateway.py) would hide the packages of those names; drop the folder.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import httpx  # noqa: E402

from agents_club_cli.serve import wait_until_ready  # noqa: E402
from engine.bots import get_bot  # noqa: E402
from engine.registry import get_game  # noqa: E402
from engine.simulation import play_table  # noqa: E402
from gateway.embedded_redis import free_port  # noqa: E402

__all__ = ["TARGET_RATIO", "main"]

TARGET_RATIO = 0.3
ORGANISER_KEY = "bench-tournament-organiser-key-0123456789abcdef"
GAME = "market-fortune"
MODE = "fortune"
BOTS = ("bot:greedy", "bot:random")


def _start_gateway(port: int, data_dir: Path, namespace: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "AGENTS_CLUB_ENVIRONMENT": "test", "AGENTS_CLUB_REDIS_NAMESPACE": namespace,
           "AGENTS_CLUB_ORGANISER_KEY": ORGANISER_KEY, "AGENTS_CLUB_LOG_LEVEL": "WARNING",
           "AGENTS_CLUB_SWEEPER_INTERVAL_S": "0.05", "AGENTS_CLUB_DATA_DIR": str(data_dir)}
    return subprocess.Popen(
        [sys.executable, "-m", "agents_club_cli.main", "serve", "--workers", "2",
         "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir)],
        env=env, cwd=_HERE.parent)


def through_gateway(url: str, *, seats: int, boards: int, max_concurrent: int) -> tuple[int, float]:
    """Games played and seconds taken by one house-bot duplicate tournament."""
    body: dict[str, Any] = {
        "name": "bench", "game": GAME, "mode": MODE, "seats": seats,
        "entrants": list(BOTS[:seats]) if seats <= len(BOTS) else list(BOTS),
        "format": "duplicate", "boards": boards, "turn_timeout_s": 5,
        "max_concurrent_tables": max_concurrent}
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
        return shown["progress"]["done"], time.monotonic() - started


def in_process(games: int, *, seats: int) -> float:
    """Seconds ``play_table`` takes for ``games`` games of the same bots (simulate's loop)."""
    game = get_game(GAME)
    config = game.config_model.model_validate({"mode": MODE, "seats": seats})
    bots = [get_bot(GAME, BOTS[seat % len(BOTS)].removeprefix("bot:")) for seat in range(seats)]
    started = time.monotonic()
    for seed in range(games):
        play_table(game, config, seed, bots[seed % seats:] + bots[:seed % seats])
    return time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    """Run the tournament through the gateway, then in-process; print the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--boards", type=int, default=40)
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--max-concurrent", type=int, default=16)
    parser.add_argument("--strict", action="store_true", help="exit 1 when the target fails")
    args = parser.parse_args(argv)
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="agents-club-bench-") as scratch:
        server = _start_gateway(port, Path(scratch), f"bench-{uuid.uuid4().hex[:8]}")
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_ready(url, server, 60)
            games, gateway_s = through_gateway(url, seats=args.seats, boards=args.boards,
                                               max_concurrent=args.max_concurrent)
        finally:
            server.terminate()
            server.wait(timeout=30)
    simulate_s = in_process(games, seats=args.seats)
    gateway_rate, simulate_rate = games / gateway_s, games / simulate_s
    ratio = gateway_rate / simulate_rate
    verdict = "PASS" if ratio >= TARGET_RATIO else "FAIL"
    print(f"games: {games} ({GAME} {MODE}, {args.seats} seats, {', '.join(BOTS)})")
    print(f"through the gateway: {gateway_rate:.1f} games/s ({gateway_s:.1f} s)")
    print(f"in-process (simulate): {simulate_rate:.1f} games/s ({simulate_s:.1f} s)")
    print(f"ratio: {ratio:.2f} (target >= {TARGET_RATIO}) {verdict}")
    return 1 if args.strict and verdict == "FAIL" else 0


if __name__ == "__main__":
    sys.exit(main())
