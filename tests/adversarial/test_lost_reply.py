"""Lost replies: Redis applies a create or a join, and its reply is lost on the way back
(a proxy drops it). A retry with the same ``Idempotency-Key`` (the SDK sends one by itself)
finds the same table or seat instead of making a second table or answering
``table/already_seated``, and no table ever exists unlisted."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import pytest
import redis
from fastapi import FastAPI
from fastapi.testclient import TestClient

from agents._endpoints import create_table as create_call
from agents._endpoints import join_table as join_call
from gateway.app import create_app
from gateway.config import Settings

from .lossy_proxy import LossyProxy

Headers = dict[str, str]
BODY = {"game": "market-fortune", "mode": "family", "seats": 2}


@pytest.fixture()
def proxy(redis_url: str) -> Iterator[LossyProxy]:
    address = urlsplit(redis_url)
    with LossyProxy(address.hostname or "127.0.0.1", address.port or 6379).running() as running:
        yield running


@pytest.fixture()
def lossy_app(settings: Settings, proxy: LossyProxy) -> FastAPI:
    return create_app(settings.model_copy(update={"redis_url": f"redis://127.0.0.1:{proxy.port}/0"}))


def stored_tables(settings: Settings) -> set[str]:
    client = redis.Redis.from_url(settings.redis_url or "")
    try:
        return {key.decode().split("{")[1].split("}")[0]
                for key in client.scan_iter(match=f"{settings.redis_namespace}:t:*:table",
                                               count=100_000)}
    finally:
        client.close()


def listed(client: TestClient) -> set[str]:
    return {table["id"] for table in client.get("/v1/tables").json()["tables"]}


def test_a_create_whose_reply_is_lost_makes_one_listed_table(
    lossy_app: FastAPI, proxy: LossyProxy, settings: Settings,
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    creator = {**auth(mint_token(agent_id="c-1", name="c1", games=("market-fortune",))),
               "Idempotency-Key": "create-1"}
    with TestClient(lossy_app, raise_server_exceptions=False) as client:
        proxy.lose_reply_to(b"table.created")
        first = client.post("/v1/tables", headers=creator, json=BODY)
        assert proxy.lost == 1
        assert first.status_code in (201, 503), first.text  # never a 500
        again = client.post("/v1/tables", headers=creator, json=BODY)
        assert again.status_code == 201, again.text
        table_id = again.json()["id"]
        if first.status_code == 201:
            assert first.json()["id"] == table_id
        assert stored_tables(settings) == {table_id} == listed(client)
        other_body = client.post("/v1/tables", headers=creator, json={**BODY, "seats": 3})
        assert other_body.status_code == 409 and other_body.json()["code"] == "idempotency/conflict"
        # Without a key the write is still listed first: no orphan either way.
        bare = {"Authorization": creator["Authorization"]}
        proxy.lose_reply_to(b"table.created")
        client.post("/v1/tables", headers=bare, json=BODY)
        assert proxy.lost == 2
        assert stored_tables(settings) == listed(client)
        assert len(stored_tables(settings)) == 2


def test_a_join_whose_reply_is_lost_is_answered_as_joined(
    lossy_app: FastAPI, proxy: LossyProxy,
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    creator = auth(mint_token(agent_id="c-1", name="c1", games=("market-fortune",)))
    joiner = {**auth(mint_token(agent_id="j-1", name="j1", games=("market-fortune",))),
              "Idempotency-Key": "join-1"}
    with TestClient(lossy_app, raise_server_exceptions=False) as client:
        table_id = client.post("/v1/tables", headers=creator, json=BODY).json()["id"]
        proxy.lose_reply_to(b"seat.joined")
        first = client.post(f"/v1/tables/{table_id}/join", headers=joiner)
        assert proxy.lost == 1
        assert first.status_code in (200, 503), first.text
        again = client.post(f"/v1/tables/{table_id}/join", headers=joiner)
        assert again.status_code == 200, again.text
        assert again.json()["your_seat"] == 1 and again.json()["status"] == "playing"
        # Without the key the seat is taken, as before.
        bare = {"Authorization": joiner["Authorization"]}
        assert client.post(f"/v1/tables/{table_id}/join", headers=bare).json()["code"] == \
            "table/already_seated"


def test_the_sdk_sends_a_key_on_create_and_join_and_resends_them() -> None:
    create = create_call(game="market-fortune", mode="family", seats=2)
    join = join_call("0123456789abcdef")
    for call in (create, join):
        assert call.headers["Idempotency-Key"].startswith("sdk-") and call.repeatable
    assert create.headers["Idempotency-Key"] != create_call(
        game="market-fortune", mode="family", seats=2).headers["Idempotency-Key"]
