"""Organiser tokens, revocation rights, the JWKS, development keys and the agent store."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import jwt
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from gateway.config import Settings
from gateway.keys import ORGANISER_KEY_FILE, SIGNING_KEY_FILE
from gateway.security import IssuedToken, TokenService
from gateway.store.auth import (
    AgentNameTaken,
    AgentNotFound,
    AgentRecord,
    AuthStore,
    hash_secret,
    secret_matches,
)
from gateway.store.connection import Keys, RedisClient, close_client, connect, decoded
from tests.conftest import sync_client

from .conftest import ORGANISER_KEY, MintToken

MINT = "/v1/auth/organiser/tokens"
Auth = Callable[[str], dict[str, str]]


def test_organiser_mints_a_token_by_header_or_bearer(client: TestClient, auth: Auth) -> None:
    by_header = client.post(MINT, headers={"X-Organiser-Key": ORGANISER_KEY},
                            json={"name": "Alice-Bot", "ttl_s": 600})
    assert by_header.status_code == 201, by_header.text
    minted = by_header.json()
    assert minted["token_type"] == "Bearer" and minted["expires_in"] == 600
    me = client.get("/v1/agents/me", headers=auth(minted["access_token"])).json()
    assert me["agent_id"] == minted["agent_id"] and me["name"] == "Alice-Bot"
    assert me["registered_at"] is not None
    # The same name (any case) is the same agent; scopes accumulate.
    by_bearer = client.post(MINT, headers=auth(ORGANISER_KEY), json={"name": "alice-bot"})
    assert by_bearer.status_code == 201
    assert by_bearer.json()["agent_id"] == minted["agent_id"]


def test_minting_refuses_wrong_keys_agents_and_bad_bodies(
    client: TestClient, mint_token: MintToken, auth: Auth
) -> None:
    wrong = client.post(MINT, headers={"X-Organiser-Key": "nope"}, json={"name": "x"})
    assert (wrong.status_code, wrong.json()["code"]) == (401, "auth/invalid")
    assert client.post(MINT, json={"name": "x"}).json()["code"] == "auth/missing"
    as_agent = client.post(MINT, headers=auth(mint_token()), json={"name": "x"})
    assert (as_agent.status_code, as_agent.json()["code"]) == (403, "auth/organiser_only")
    organiser = client.post(MINT, headers={"X-Organiser-Key": ORGANISER_KEY},
                            json={"name": "boss", "kind": "organiser"}).json()
    assert organiser["scopes"] == ["organiser"]
    by_organiser_token = client.post(MINT, headers=auth(organiser["access_token"]),
                                     json={"name": "helper"})
    assert by_organiser_token.status_code == 201
    for body in ({"name": "x", "games": ["chess"]},):
        unknown_game = client.post(MINT, headers={"X-Organiser-Key": ORGANISER_KEY}, json=body)
        assert (unknown_game.status_code, unknown_game.json()["code"]) == (404, "game/not_found")
    for bad in ({"name": ""}, {"name": "x", "ttl_s": "600"}, {"name": "x", "extra": 1},
                {"name": "x", "ttl_s": 5}, {"name": "<script>"}, {"name": "trailing "},
                {"name": "x" * 65}):
        invalid = client.post(MINT, headers={"X-Organiser-Key": ORGANISER_KEY}, json=bad)
        assert (invalid.status_code, invalid.json()["code"]) == (422, "request/invalid"), bad


@pytest.mark.redis_cluster
def test_only_the_organiser_revokes_other_agents_tokens(
    client: TestClient, mint_token: MintToken, auth: Auth
) -> None:
    alice = mint_token(agent_id="agent-a", name="alice")
    bob = mint_token(agent_id="agent-b", name="bob")
    denied = client.post("/v1/auth/revoke", headers=auth(alice), json={"token": bob})
    assert (denied.status_code, denied.json()["code"]) == (403, "auth/wrong_scope")
    assert client.get("/v1/agents/me", headers=auth(bob)).status_code == 200
    done = client.post("/v1/auth/revoke", headers={"X-Organiser-Key": ORGANISER_KEY},
                       json={"token": bob})
    assert done.status_code == 200
    assert done.json()["token_id"] == jwt.decode(bob, options={"verify_signature": False})["jti"]
    assert client.get("/v1/agents/me", headers=auth(bob)).json()["code"] == "auth/revoked"
    own_by_body = client.post("/v1/auth/revoke", headers=auth(alice), json={"token": alice})
    assert own_by_body.status_code == 200
    garbage = client.post("/v1/auth/revoke", headers={"X-Organiser-Key": ORGANISER_KEY},
                          json={"token": "garbage"})
    assert garbage.json()["code"] == "request/invalid"


@pytest.mark.redis_cluster
def test_revocation_is_remembered_exactly_as_long_as_the_token_lives(
    client: TestClient, mint_token: MintToken, auth: Auth, settings: Settings, redis_url: str
) -> None:
    token = mint_token(ttl_s=120)
    jti = jwt.decode(token, options={"verify_signature": False})["jti"]
    client.post("/v1/auth/revoke", headers=auth(token))
    raw = sync_client(redis_url)
    try:
        ttl = raw.ttl(f"{settings.redis_namespace}:revoked:{jti}")
    finally:
        raw.close()
    assert 120 < ttl <= 120 + 300  # the token's remaining life plus the skew margin


def test_jwks_lists_the_signing_key(client: TestClient, app_tokens_kid: str) -> None:
    answer = client.get("/.well-known/jwks.json")
    assert answer.status_code == 200
    (key,) = answer.json()["keys"]
    assert key == {**key, "kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig"}
    assert key["kid"] == app_tokens_kid
    assert "d" not in key  # never the private part


@pytest.fixture()
def app_tokens_kid(client: TestClient) -> str:
    """The kid the app signs with."""
    assert isinstance(client.app, FastAPI)
    tokens: TokenService = client.app.state.tokens
    return tokens.keyring.signing_kid


def test_development_keys_are_generated_once_with_mode_0600(tmp_path: Path) -> None:
    settings = Settings.model_validate({"environment": "development", "data_dir": tmp_path})
    first = TokenService(settings)
    second = TokenService(settings)
    assert first.keyring.signing_kid == second.keyring.signing_kid
    assert first.organiser_key == second.organiser_key and len(first.organiser_key) >= 32
    for name in (SIGNING_KEY_FILE, ORGANISER_KEY_FILE):
        assert os.stat(tmp_path / name).st_mode & 0o777 == 0o600
    token = first.issue(agent_id="a", name="a", scopes=()).token
    assert second.verify(token).principal.agent_id == "a"


def test_production_never_generates_keys(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="AGENTS_CLUB_SIGNING_KEY_PEM"):
        Settings.model_validate({"environment": "production", "data_dir": tmp_path})
    assert not list(tmp_path.iterdir())


@pytest.mark.redis_cluster
def test_agent_store(redis_url: str, redis_namespace: str) -> None:
    async def scenario() -> None:
        client = connect(redis_url)
        store = AuthStore(client, Keys.for_url(redis_namespace, redis_url))
        try:
            record, secret = await store.create_agent(name="Carol", scopes=["game:hab-und-gut"])
            assert secret.startswith("acs_")
            assert await store.get_agent(record.agent_id) == record
            assert await store.find_agent_by_name("carol") == record
            with pytest.raises(AgentNameTaken):
                await store.create_agent(name="CAROL")
            assert await store.verify_secret(record.agent_id, secret) == record
            assert await store.verify_secret(record.agent_id, secret + "x") is None
            assert await store.verify_secret("agt_unknown", secret) is None
            stored = await client.hget(store.agent_key(record.agent_id), "secret")
            assert stored is not None and secret.encode() not in stored
            assert secret_matches(secret, decoded(stored))
            rotated = (await store.rotate_secret(record.agent_id)).secret
            assert rotated != secret
            assert await store.verify_secret(record.agent_id, secret) is None
            assert await store.verify_secret(record.agent_id, rotated) is not None
            granted = await store.add_scopes(record.agent_id, "game:market-fortune")
            assert granted.scopes == {"game:hab-und-gut", "game:market-fortune"}
            with pytest.raises(AgentNotFound):
                await store.add_scopes("agt_unknown", "game:x")
            with pytest.raises(AgentNotFound):
                await store.rotate_secret("agt_unknown")
            await store.revoke("jti-1", expires_at=int(time.time()) + 60,
                               agent_id=record.agent_id)
            await store.revoke("jti-2", expires_at=int(time.time()) - 1,  # already expired
                               agent_id=record.agent_id)
            assert await store.is_revoked("jti-1")
            assert not await store.is_revoked("jti-2")
        finally:
            await close_client(client)

    asyncio.run(scenario())


def test_workers_starting_together_end_up_with_one_key(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    settings = Settings.model_validate({"environment": "development", "data_dir": tmp_path})
    with ThreadPoolExecutor(max_workers=8) as pool:
        services = list(pool.map(lambda _: TokenService(settings), range(16)))
    assert len({service.keyring.signing_kid for service in services}) == 1
    assert len({service.organiser_key for service in services}) == 1
    assert sorted(path.name for path in tmp_path.iterdir()) == [ORGANISER_KEY_FILE, SIGNING_KEY_FILE]


@pytest.mark.redis_cluster
def test_a_revoked_token_is_refused_where_the_check_rides_on_the_table_read(
    client: TestClient, mint_token: MintToken, auth: Auth
) -> None:
    """Observing and acting ask Redis about revocation together with the table read:
    a revoked token still gets 401 ``auth/revoked`` before anything about a table is
    told (not 404 for an unknown id) and before anything is applied."""
    alice = mint_token(agent_id="agent-a", name="alice", games=("market-fortune",))
    bob = mint_token(agent_id="agent-b", name="bob", games=("market-fortune",))
    organiser = auth(mint_token(agent_id="org", name="org", kind="organiser"))
    table = client.post("/v1/tables", headers=organiser, json={
        "game": "market-fortune", "mode": "family", "seats": 2, "seed": 3, "join": False}).json()
    client.post(f"/v1/tables/{table['id']}/join", headers=auth(alice))
    client.post(f"/v1/tables/{table['id']}/join", headers=auth(bob))
    seen = client.get(f"/v1/tables/{table['id']}/observation", headers=auth(alice)).json()
    actor = alice if seen["legal_actions"] else bob
    legal = client.get(f"/v1/tables/{table['id']}/observation", headers=auth(actor)).json()
    assert client.post("/v1/auth/revoke", headers={"X-Organiser-Key": ORGANISER_KEY},
                       json={"token": actor}).status_code == 200
    base = f"/v1/tables/{table['id']}"
    move = {"version": legal["version"], "action": legal["legal_actions"][0]["id"]}
    refused = [
        client.get(f"{base}/observation", headers=auth(actor)),
        client.get(f"{base}/observation", params={"wait": 0.2}, headers=auth(actor)),
        client.get("/v1/tables/no-such-table/observation", headers=auth(actor)),
        client.post(f"{base}/actions", headers={**auth(actor), "Idempotency-Key": "k1"},
                    json=move),
        client.post(f"{base}/actions", headers=auth(actor), json=move),
        client.post("/v1/tables/no-such-table/actions", headers=auth(actor), json=move),
    ]
    for answer in refused:
        assert (answer.status_code, answer.json()["code"]) == (401, "auth/revoked"), answer.text
    other = bob if actor == alice else alice
    after = client.get(f"{base}/observation", headers=auth(other)).json()
    assert after["version"] == legal["version"]  # nothing was applied


def test_observe_and_act_read_the_bearer_as_every_other_route_does(
    client: TestClient, mint_token: MintToken, auth: Auth
) -> None:
    """They read the header themselves (no security dependency to solve): the same
    answers as a route using the dependency, for every shape of bad header."""
    alice = mint_token(agent_id="agent-a", name="alice", games=("market-fortune",))
    table = client.post("/v1/tables", headers=auth(alice), json={
        "game": "market-fortune", "mode": "family", "seats": 2}).json()
    base = f"/v1/tables/{table['id']}"
    move = {"version": 0, "action": "pass"}
    for header in ("Basic abc", "Bearer", "Bearer ", "bearer", "Token x", "garbage"):
        headers = {"Authorization": header}
        reference = client.get("/v1/agents/me", headers=headers).json()["code"]
        assert reference == "auth/invalid", header
        assert client.get(f"{base}/observation", headers=headers).json()["code"] == reference
        assert client.post(f"{base}/actions", headers=headers, json=move).json()["code"] == reference
    assert client.post(f"{base}/actions", json=move).json()["code"] == "auth/missing"
    assert client.get(f"{base}/observation").json()["seat"] is None  # a spectator
    seen = client.get(f"{base}/observation", headers={"Authorization": f"bearer {alice}"})
    assert seen.status_code == 200 and seen.json()["seat"] == 0  # the scheme is case-blind


def _token(token_id: str, lives_s: int) -> IssuedToken:
    return IssuedToken(f"token-{token_id}", token_id, int(time.time()) + lives_s)


def _with_store(
    redis_url: str, namespace: str, scenario: Callable[[AuthStore, RedisClient], Awaitable[None]]
) -> None:
    """Run ``scenario`` with an agent store of ``namespace`` and its raw client."""
    async def main() -> None:
        client = connect(redis_url)
        try:
            await scenario(AuthStore(client, Keys.for_url(namespace, redis_url)), client)
        finally:
            await close_client(client)

    asyncio.run(main())


@pytest.mark.redis_cluster
def test_a_rotation_revokes_every_live_token_issued_before(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario(store: AuthStore, client: RedisClient) -> None:
        record, secret = await store.create_agent(name="Grace")
        # Two tokens for the secret, one from an admission, one already dead.
        for token_id in ("a", "b"):
            def issue(_: AgentRecord, token_id: str = token_id) -> IssuedToken:
                return _token(token_id, 600)

            exchanged = await store.exchange_secret(record.agent_id, secret, issue)
            assert exchanged is not None and exchanged[0] == record
        assert await store.exchange_secret(
            record.agent_id, secret + "x", lambda _: _token("never", 600)) is None
        assert await store.note_issued(record.agent_id, _token("c", 600))
        assert await store.note_issued(record.agent_id, _token("dead", -10))
        tokens_key = store.tokens_key(record.agent_id)
        assert 0 < await client.ttl(tokens_key) <= 600 + 300  # gone with its last token
        rotation = await store.rotate_secret(record.agent_id)
        assert rotation.revoked_tokens == 3
        for token_id in ("a", "b", "c"):
            assert await store.is_revoked(token_id)
            assert 600 < await client.ttl(f"{redis_namespace}:revoked:{token_id}") <= 900
        assert not await store.is_revoked("never") and not await store.is_revoked("dead")
        assert not await client.exists(tokens_key)
        assert (await store.rotate_secret(record.agent_id)).revoked_tokens == 0

    _with_store(redis_url, redis_namespace, scenario)


@pytest.mark.redis_cluster
def test_no_token_outlives_a_rotation_that_races_its_issue(
    redis_url: str, redis_namespace: str
) -> None:
    async def scenario(store: AuthStore, client: RedisClient) -> None:
        record, secret = await store.create_agent(name="Heidi")
        agent_key = store.agent_key(record.agent_id)

        def rotated_while_signing(agent: AgentRecord) -> IssuedToken:
            # The secret changes after it was verified and before the token is noted.
            with sync_client(redis_url) as other_worker:
                other_worker.hset(agent_key, "secret", hash_secret("acs_rotated"))
            return _token("late", 600)

        assert await store.exchange_secret(record.agent_id, secret, rotated_while_signing) is None
        assert not await client.exists(store.tokens_key(record.agent_id))
        # A token asked for with a token revoked meanwhile is not noted either.
        await store.revoke("asker", expires_at=int(time.time()) + 60, agent_id=record.agent_id)
        assert not await store.note_issued(record.agent_id, _token("x", 600), asked_with="asker")
        assert await store.note_issued(record.agent_id, _token("y", 600), asked_with="fine")
        assert (await store.rotate_secret(record.agent_id)).revoked_tokens == 1

    _with_store(redis_url, redis_namespace, scenario)
