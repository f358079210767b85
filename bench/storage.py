"""Redis memory of a finished table, and of an action's idempotency record.

Plays ``--games`` Market Fortune tables (family mode, three seats: an agent in
seat 0 sending every action with an ``Idempotency-Key``, house bots in seats
1 and 2) to the end on an in-process gateway, reads each replay once, then
sums ``MEMORY USAGE`` over each table's keys (``t:{id}:*``) and reports:

* bytes per finished table, and per action of its log;
* bytes of one idempotency record (``t:{id}:seen:...``), the answer a keyed
  action keeps for retries;
* the longest and shortest time to live left on a finished table's keys
  (``none``: kept for ever).

Usage: ``.venv/bin/python bench/storage.py [--games 3]`` against ``REDIS_URL``
(default ``redis://127.0.0.1:6379/0``); its keys live in a namespace deleted
at the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path, and bench/engine.py
# would shadow the engine package.
if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)

import redis
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.config import Settings

GAME = "market-fortune"
MAX_MOVES = 5000


def _settings(redis_url: str, namespace: str, data_dir: Path) -> Settings:
    key = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()).decode()
    return Settings.model_validate({
        "environment": "test", "redis_url": redis_url, "redis_namespace": namespace,
        "data_dir": data_dir, "signing_key_pem": key,
        "organiser_key": "bench-storage-organiser-key-0123456789abcdef", "log_format": "text",
        "log_level": "WARNING", "sweeper_interval_s": 0.02,
    })


def play_one(client: TestClient, agent: dict[str, str], seed: int) -> str:
    """A finished table dealt from ``seed`` where ``agent`` played seat 0 with keyed
    actions (its first legal action each time, so a seed plays the same game on every
    version of the gateway); its id."""
    table = client.post("/v1/tables", headers=agent, json={
        "game": GAME, "mode": "family", "seats": 3, "seed": seed,
        "house_bots": [{"seat": 1, "bot": "greedy"}, {"seat": 2, "bot": "random"}]}).json()
    table_id = str(table["id"])
    for _ in range(MAX_MOVES):
        seen = client.get(f"/v1/tables/{table_id}/observation", headers=agent,
                          params={"wait_s": 5}).json()
        if seen["status"] == "finished":
            client.get(f"/v1/tables/{table_id}/replay", headers=agent)
            return table_id
        if 0 in seen["to_act"] and seen["legal_actions"]:
            client.post(f"/v1/tables/{table_id}/actions", json={
                "version": seen["version"], "action": seen["legal_actions"][0]["id"]},
                headers={**agent, "Idempotency-Key": f"{table_id}-{seen['version']}"})
    raise RuntimeError(f"table {table_id} did not finish")


def measure(store: redis.Redis, namespace: str, table_id: str) -> dict[str, Any]:
    """Bytes and time to live of one table's keys."""
    keys = list(store.scan_iter(match=f"{namespace}:t:{{{table_id}}}:*", count=1000))
    sizes = {key.decode(): int(store.memory_usage(key, samples=0) or 0) for key in keys}
    ttls = [int(store.ttl(key)) for key in keys]
    seen = [size for key, size in sizes.items() if ":seen:" in key]
    actions = int(store.llen(f"{namespace}:t:{{{table_id}}}:log"))
    kinds: dict[str, int] = {}
    for key, size in sizes.items():
        kind = "seen" if ":seen:" in key else key.rsplit(":", 1)[1]
        kinds[kind] = kinds.get(kind, 0) + size
    return {"bytes": sum(sizes.values()), "actions": actions, "seen": seen, "kinds": kinds,
            "seen_ttls": [ttl for key, ttl in zip(sizes, ttls, strict=True) if ":seen:" in key],
            "table_ttls": [ttl for key, ttl in zip(sizes, ttls, strict=True) if ":seen:" not in key]}


def main() -> int:
    """Play the games, measure, print; 0 on success."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args()
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    namespace = f"bench-storage-{uuid.uuid4().hex[:8]}"
    store = redis.Redis.from_url(redis_url)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            settings = _settings(redis_url, namespace, Path(scratch))
            app = create_app(settings)
            with TestClient(app) as client:
                agent = {"Authorization": "Bearer " + app.state.tokens.issue(
                    agent_id="bench-storage", name="bench", scopes={f"game:{GAME}"}).token}
                tables = [play_one(client, agent, seed) for seed in range(1, args.games + 1)]
        found = [measure(store, namespace, table_id) for table_id in tables]
    finally:
        keys = list(store.scan_iter(match=f"{namespace}:*", count=1000))
        if keys:
            store.delete(*keys)
        store.close()
    per_game = statistics.mean(entry["bytes"] for entry in found)
    actions = statistics.mean(entry["actions"] for entry in found)
    seen = [size for entry in found for size in entry["seen"]]
    table_ttls = [ttl for entry in found for ttl in entry["table_ttls"]]
    seen_ttls = [ttl for entry in found for ttl in entry["seen_ttls"]]

    def ttl_text(ttls: list[int]) -> str:
        if not ttls:
            return "-"
        if min(ttls) < 0:
            return "none (kept for ever)" if max(ttls) < 0 else f"mixed, {min(ttls)}..{max(ttls)} s"
        return f"{min(ttls) / 86400:.1f}..{max(ttls) / 86400:.1f} days"

    print(f"games                          {len(found)} (Market Fortune family, 3 seats, 2 bots)")
    print(f"actions per game (log)         {actions:.0f}")
    print(f"bytes per finished table       {per_game:,.0f} (all keys, idempotency records included)")
    print(f"bytes per action (table/log)   {per_game / max(actions, 1):,.0f}")
    if seen:
        print(f"bytes per idempotency record   {statistics.mean(seen):,.0f} (mean of {len(seen)})")
    kinds = sorted({kind for entry in found for kind in entry["kinds"]})
    parts = ", ".join(
        f"{kind} {statistics.mean(entry['kinds'].get(kind, 0) for entry in found):,.0f}"
        for kind in kinds)
    print(f"  of which, per table          {parts}")
    print(f"TTL of a finished table's keys {ttl_text(table_ttls)}")
    print(f"TTL of idempotency records     {ttl_text(seen_ttls)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
