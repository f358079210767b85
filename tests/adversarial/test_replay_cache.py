"""Anonymous replays: a finished table's replay is built once and then read from Redis
(kept as long as the finished table), and readers without a token are rate-limited per
address, so a crowd of anonymous clients cannot make the gateway rebuild long replays."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator

import pytest
import redis
from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.config import Settings

Headers = dict[str, str]


@pytest.fixture()
def limited(settings: Settings) -> Iterator[TestClient]:
    app = create_app(settings.model_copy(update={"anonymous_replays_per_address": 3}))
    with TestClient(app) as client:
        yield client


def finished_table(client: TestClient, agent: Headers) -> str:
    table = client.post("/v1/tables", headers=agent, json={
        "game": "market-fortune", "mode": "family", "seats": 2, "seed": 5,
        "house_bots": [{"seat": 1}]}).json()
    assert client.post(f"/v1/tables/{table['id']}/close", headers=agent).status_code == 200
    return str(table["id"])


def test_a_replay_is_built_once_and_anonymous_readers_are_limited(
    limited: TestClient, settings: Settings,
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    agent = auth(mint_token(agent_id="r-1", name="r1", games=("market-fortune",)))
    table_id = finished_table(limited, agent)
    first = limited.get(f"/v1/tables/{table_id}/replay")
    assert first.status_code == 200 and first.json()["seed"] == 5
    store = redis.Redis.from_url(settings.redis_url or "")
    try:
        key = f"{settings.redis_namespace}:t:{{{table_id}}}:replay"
        stored = store.get(key)
        assert isinstance(stored, bytes), "the replay is stored"
        assert zlib.decompress(stored) == first.content
        assert settings.finished_table_ttl_s - 60 < store.ttl(key) <= settings.finished_table_ttl_s
        # Served from the stored copy, not rebuilt: a marker written there comes back.
        store.set(key, zlib.compress(b'{"marker": true}'), keepttl=True)
        assert limited.get(f"/v1/tables/{table_id}/replay", headers=agent).json() == {"marker": True}
    finally:
        store.close()
    assert limited.get(f"/v1/tables/{table_id}/replay").status_code == 200
    assert limited.get(f"/v1/tables/{table_id}/replay").status_code == 200
    refused = limited.get(f"/v1/tables/{table_id}/replay")  # the 4th without a token
    assert refused.status_code == 429 and refused.json()["code"] == "rate/limited"
    assert int(refused.headers["retry-after"]) >= 1
    assert limited.get(f"/v1/tables/{table_id}/replay", headers=agent).status_code == 200


def test_anonymous_replay_positions_share_the_replay_allowance(
    limited: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    """The replay page's positions replay the whole log through the engine (up to a
    second of CPU): without a token they count against the same per-address allowance."""
    agent = auth(mint_token(agent_id="r-2", name="r2", games=("market-fortune",)))
    table_id = finished_table(limited, agent)
    for _ in range(3):
        assert limited.get(f"/v1/tables/{table_id}/replay/positions").status_code == 200
    refused = limited.get(f"/v1/tables/{table_id}/replay/positions")
    assert refused.status_code == 429 and refused.json()["code"] == "rate/limited"
    assert limited.get(f"/v1/tables/{table_id}/replay").status_code == 429  # one allowance
    positions = limited.get(f"/v1/tables/{table_id}/replay/positions", headers=agent)
    assert positions.status_code == 200 and positions.json()["steps"][0]["step"] == 0
