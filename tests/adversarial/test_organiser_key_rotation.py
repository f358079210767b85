"""Organiser-key rotation: an organiser token is bound to the organiser key it was minted
under (its ``okf`` claim), so a gateway restarted with a new key refuses every organiser
token of the old one, while agent tokens (signed by the unchanged signing key) still pass."""

from __future__ import annotations

import jwt
from fastapi import FastAPI
from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.config import Settings

ROTATED_KEY = "rotated-organiser-key-0123456789abcdefghijkl"


def test_rotating_the_organiser_key_revokes_organiser_tokens(
    app: FastAPI, settings: Settings
) -> None:
    with TestClient(app) as before:
        minted = before.post("/v1/auth/organiser/tokens", headers={
            "X-Organiser-Key": settings.organiser_key or ""},
            json={"name": "boss", "kind": "organiser", "ttl_s": 30 * 24 * 3600})
        assert minted.status_code == 201, minted.text
        organiser = {"Authorization": f"Bearer {minted.json()['access_token']}"}
        agent_token = app.state.tokens.issue(agent_id="a-1", name="a1", scopes={"game:market-fortune"}).token
        agent = {"Authorization": f"Bearer {agent_token}"}
        assert before.get("/v1/agents/me", headers=organiser).status_code == 200
    claims = jwt.decode(minted.json()["access_token"], options={"verify_signature": False})
    assert settings.organiser_key is not None
    assert settings.organiser_key not in str(claims)  # a fingerprint, not the key

    rotated = create_app(settings.model_copy(update={"organiser_key": ROTATED_KEY}))
    with TestClient(rotated) as after:
        refused = after.get("/v1/agents/me", headers=organiser)
        assert refused.status_code == 401
        assert refused.json()["code"] == "auth/revoked"
        assert "rotated" in refused.json()["detail"]
        # Nor may the old organiser token mint anything.
        assert after.post("/v1/auth/organiser/tokens", headers=organiser,
                          json={"name": "x"}).status_code == 401
        assert after.get("/v1/agents/me", headers=agent).status_code == 200
        fresh = after.post("/v1/auth/organiser/tokens", headers={"X-Organiser-Key": ROTATED_KEY},
                           json={"name": "boss", "kind": "organiser"})
        token = fresh.json()["access_token"]
        assert after.get("/v1/agents/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200
