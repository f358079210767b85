"""Idempotency claims of refused creates (issue 33, W2): a create refused at the table cap
once stored its idempotency claim anyway (about 460 B for a day per request), so one
client could grow Redis by gigabytes a day. The claim now comes after the cap: a refused
create leaves nothing, and a retry of an accepted create is still answered with its table
even when the agent is at the cap."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis
from fastapi.testclient import TestClient

from gateway.config import Settings

GAME = "market-fortune"
LIMIT = 2
BODY = {"game": GAME, "mode": "family", "seats": 2}
Headers = dict[str, str]


@pytest.fixture()
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"max_active_tables_per_agent": LIMIT})


def claims(settings: Settings, agent_id: str) -> list[bytes]:
    with redis.Redis.from_url(settings.redis_url or "") as reader:
        return list(reader.scan_iter(match=f"{settings.redis_namespace}:creates:{agent_id}:*"))


def test_a_create_refused_at_the_cap_stores_no_claim(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
    settings: Settings,
) -> None:
    farmer = auth(mint_token(agent_id="farmer", name="farmer", games=(GAME,)))
    accepted = []
    for number in range(LIMIT):
        created = client.post("/v1/tables", json=BODY,
                              headers={**farmer, "Idempotency-Key": f"ok-{number}"})
        assert created.status_code == 201, created.text
        accepted.append(created.json()["id"])
    assert len(claims(settings, "farmer")) == LIMIT
    for number in range(50):
        refused = client.post("/v1/tables", json=BODY,
                              headers={**farmer, "Idempotency-Key": f"refused-{number}"})
        assert refused.status_code == 409 and refused.json()["code"] == "table/too_many"
    assert len(claims(settings, "farmer")) == LIMIT
    # At the cap, a retry of an accepted create still gets its own table back.
    again = client.post("/v1/tables", json=BODY, headers={**farmer, "Idempotency-Key": "ok-0"})
    assert again.status_code == 201 and again.json()["id"] == accepted[0]
    conflict = client.post("/v1/tables", json={**BODY, "seats": 3},
                           headers={**farmer, "Idempotency-Key": "ok-0"})
    assert conflict.json()["code"] == "idempotency/conflict"
