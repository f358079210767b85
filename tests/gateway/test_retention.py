"""Retention: a finished table's keys expire after ``finished_table_ttl_s``, idempotency
records are stored compressed and still answer a retry byte for byte, and the listing
sweeper drops listed tables whose keys expired (and only those)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import cast

import redis
from fastapi import FastAPI
from fastapi.testclient import TestClient

from gateway.config import Settings
from gateway.services.retention import prune_listing
from gateway.services.runtime import table_context

Headers = dict[str, str]
GAME = "market-fortune"


def test_a_finished_tables_keys_expire_and_idempotency_records_are_compact(
    client: TestClient, settings: Settings,
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    agent = auth(mint_token(agent_id="ret-1", name="r1", games=(GAME,)))
    table = client.post("/v1/tables", headers=agent, json={
        "game": GAME, "mode": "family", "seats": 2, "seed": 3,
        "house_bots": [{"seat": 1}]}).json()
    table_id = table["id"]
    store = redis.Redis.from_url(settings.redis_url or "")
    prefix = f"{settings.redis_namespace}:t:{{{table_id}}}"
    try:
        for _ in range(50):  # the agent's first keyed action, whenever it is to act
            seen = client.get(f"/v1/tables/{table_id}/observation", headers=agent,
                              params={"wait": 2}).json()
            if seen["legal_actions"]:
                break
        body = {"version": seen["version"], "action": seen["legal_actions"][0]["id"]}
        keyed = {**agent, "Idempotency-Key": "ret-key"}
        first = client.post(f"/v1/tables/{table_id}/actions", headers=keyed, json=body)
        assert first.status_code == 200
        # The record keeps the fingerprint and the version the action made, not its answer.
        stored = store.get(f"{prefix}:seen:ret-1:ret-key") or b""
        assert len(stored) < 200 and f" {first.json()['version']} ".encode() in stored
        again = client.post(f"/v1/tables/{table_id}/actions", headers=keyed, json=body).json()
        assert {key: again[key] for key in ("version", "action", "events")} == {
            key: first.json()[key] for key in ("version", "action", "events")}
        assert store.ttl(f"{prefix}:table") == -1  # kept while it plays
        assert client.post(f"/v1/tables/{table_id}/close", headers=agent).status_code == 200
        for part in ("table", "events", "log", "turns"):
            ttl = store.ttl(f"{prefix}:{part}")
            assert settings.finished_table_ttl_s - 60 < ttl <= settings.finished_table_ttl_s, part
    finally:
        store.close()


def test_the_listing_sweeper_drops_only_expired_tables(
    client: TestClient, settings: Settings,
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    agent = auth(mint_token(agent_id="ret-2", name="r2", games=(GAME,)))
    kept = client.post("/v1/tables", headers=agent, json={
        "game": GAME, "mode": "family", "seats": 2}).json()["id"]
    long_ago = time.time() - settings.finished_table_ttl_s - 3600
    store = redis.Redis.from_url(settings.redis_url or "")
    index = f"{settings.redis_namespace}:tables:public"
    try:
        store.zadd(index, {kept: long_ago, "0123456789abcdef": long_ago})  # an expired one
        assert isinstance(client.app, FastAPI)
        ctx = table_context(client.app)
        assert client.portal is not None
        assert client.portal.call(prune_listing, ctx) == 1
        members = cast("list[bytes]", store.zrange(index, 0, -1))  # undecoded, no scores: bytes
        assert [member.decode() for member in members] == [kept]
    finally:
        store.close()
