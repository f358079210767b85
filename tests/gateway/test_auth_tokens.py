"""JWT attacks and failures: each one is refused with 401 and its own ``auth/...`` code."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi import FastAPI
from fastapi.testclient import TestClient

from gateway.config import Settings
from gateway.keys import jwk_thumbprint
from gateway.security import TokenService

from .conftest import MintToken

ME = "/v1/agents/me"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _claims(settings: Settings, **changes: Any) -> dict[str, Any]:
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": settings.jwt_issuer,
        "aud": settings.jwt_audience,
        "sub": "agent-7",
        "iat": now,
        "nbf": now,
        "exp": now + 600,
        "jti": uuid.uuid4().hex,
        "scope": "game:market-fortune",
        "name": "mallory",
        "kind": "agent",
    }
    claims.update(changes)
    return {name: value for name, value in claims.items() if value is not None}


def _our_key(settings: Settings) -> Ed25519PrivateKey:
    assert settings.signing_key_pem
    key = serialization.load_pem_private_key(settings.signing_key_pem.encode(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    return key


def _sign(settings: Settings, claims: dict[str, Any], key: Ed25519PrivateKey | None = None,
          kid: str | None = None) -> str:
    key = key or _our_key(settings)
    header_kid = kid or jwk_thumbprint(_our_key(settings).public_key())
    return jwt.encode(claims, key, algorithm="EdDSA", headers={"kid": header_kid})


def _problem(client: TestClient, token: str) -> dict[str, Any]:
    answer = client.get(ME, headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 401, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = answer.json()
    assert token not in answer.text
    return body


def test_a_fresh_token_is_accepted(client: TestClient, mint_token: MintToken,
                                   auth: Callable[[str], dict[str, str]]) -> None:
    token = mint_token(agent_id="agent-1", name="alice", games=["market-fortune"])
    me = client.get(ME, headers=auth(token))
    assert me.status_code == 200
    assert me.json()["agent_id"] == "agent-1"
    assert me.json()["games"] == ["market-fortune"]
    header = jwt.get_unverified_header(token)
    assert header["alg"] == "EdDSA"
    assert header["kid"] in {key["kid"] for key in client.get("/.well-known/jwks.json").json()["keys"]}
    claims = jwt.decode(token, options={"verify_signature": False})
    assert {"iss", "aud", "sub", "exp", "iat", "nbf", "jti", "scope"} <= set(claims)


def test_alg_none_is_refused(client: TestClient, settings: Settings) -> None:
    header = {"alg": "none", "typ": "JWT", "kid": jwk_thumbprint(_our_key(settings).public_key())}
    token = ".".join(
        [_b64(json.dumps(header).encode()), _b64(json.dumps(_claims(settings)).encode()), ""]
    )
    assert _problem(client, token)["code"] == "auth/invalid"


def test_a_token_signed_with_another_key_under_our_kid_is_refused(
    client: TestClient, settings: Settings
) -> None:
    token = _sign(settings, _claims(settings), key=Ed25519PrivateKey.generate())
    assert _problem(client, token)["code"] == "auth/invalid"


def test_an_hmac_token_keyed_with_our_public_key_is_refused(
    client: TestClient, settings: Settings
) -> None:
    public = _our_key(settings).public_key()
    for public_form in (
        public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo),
        public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw),
    ):
        header = {"alg": "HS256", "typ": "JWT", "kid": jwk_thumbprint(public)}
        signing_input = (
            _b64(json.dumps(header).encode()) + "." + _b64(json.dumps(_claims(settings)).encode())
        )
        signature = hmac.new(public_form, signing_input.encode(), hashlib.sha256).digest()
        token = signing_input + "." + _b64(signature)
        assert _problem(client, token)["code"] == "auth/invalid"


def test_an_expired_token_is_refused(client: TestClient, settings: Settings) -> None:
    past = int(time.time()) - 3600
    token = _sign(settings, _claims(settings, iat=past - 60, nbf=past - 60, exp=past))
    refused = _problem(client, token)
    assert refused["code"] == "auth/expired"
    assert "POST /v1/auth/token" in refused["detail"]  # where a new one comes from


def test_a_token_not_yet_valid_is_refused(client: TestClient, settings: Settings) -> None:
    future = int(time.time()) + 3600
    token = _sign(settings, _claims(settings, nbf=future, exp=future + 600))
    assert _problem(client, token)["code"] == "auth/not_yet_valid"


def test_a_token_for_another_audience_is_refused(client: TestClient, settings: Settings) -> None:
    token = _sign(settings, _claims(settings, aud="someone-else"))
    assert _problem(client, token)["code"] == "auth/wrong_audience"


def test_a_token_from_another_issuer_is_refused(client: TestClient, settings: Settings) -> None:
    token = _sign(settings, _claims(settings, iss="evil-issuer"))
    assert _problem(client, token)["code"] == "auth/wrong_issuer"


def test_a_revoked_token_is_refused(client: TestClient, mint_token: MintToken,
                                    auth: Callable[[str], dict[str, str]]) -> None:
    token = mint_token()
    other = mint_token()
    revoked = client.post("/v1/auth/revoke", headers=auth(token))
    assert revoked.status_code == 200
    assert _problem(client, token)["code"] == "auth/revoked"
    assert client.get(ME, headers=auth(other)).status_code == 200  # only that jti


def test_a_tampered_payload_is_refused(client: TestClient, mint_token: MintToken) -> None:
    token = mint_token(games=["market-fortune"])
    header, payload, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["scope"] = "organiser"
    claims["kind"] = "organiser"
    forged = ".".join([header, _b64(json.dumps(claims).encode()), signature])
    assert _problem(client, forged)["code"] == "auth/invalid"


def test_a_token_with_an_unknown_kid_is_refused(client: TestClient, settings: Settings) -> None:
    stranger = Ed25519PrivateKey.generate()
    token = _sign(settings, _claims(settings), key=stranger,
                  kid=jwk_thumbprint(stranger.public_key()))
    assert _problem(client, token)["code"] == "auth/unknown_key"
    no_kid = jwt.encode(_claims(settings), _our_key(settings), algorithm="EdDSA")
    assert _problem(client, no_kid)["code"] == "auth/unknown_key"


@pytest.mark.parametrize("missing", ["jti", "exp", "sub", "scope", "nbf"])
def test_a_token_missing_a_required_claim_is_refused(
    client: TestClient, settings: Settings, missing: str
) -> None:
    token = _sign(settings, _claims(settings, **{missing: None}))
    assert _problem(client, token)["code"] == "auth/invalid"


@pytest.mark.parametrize(
    ("header", "code"),
    [
        (None, "auth/missing"),
        ("Bearer not-a-jwt", "auth/invalid"),
        ("Basic YWxpY2U6c2VjcmV0", "auth/invalid"),
        ("Bearer ", "auth/invalid"),
    ],
)
def test_missing_or_malformed_authorization(client: TestClient, header: str | None,
                                            code: str) -> None:
    headers = {"Authorization": header} if header is not None else {}
    answer = client.get(ME, headers=headers)
    assert answer.status_code == 401
    assert answer.json()["code"] == code
    assert answer.headers["www-authenticate"].startswith("Bearer")


def test_tokens_of_a_retired_key_stay_valid_while_its_public_key_is_listed(
    settings: Settings, app: FastAPI
) -> None:
    old_service: TokenService = app.state.tokens
    old_token = old_service.issue(agent_id="agent-1", name="alice", scopes=()).token
    old_public = _our_key(settings).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()
    new_key = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    rotated = settings.model_copy(
        update={"signing_key_pem": new_key, "previous_public_keys_pem": [old_public]}
    )
    rotated_service = TokenService(rotated)
    assert rotated_service.verify(old_token).principal.agent_id == "agent-1"
    assert len(rotated_service.keyring.jwks()["keys"]) == 2
    fresh = rotated_service.issue(agent_id="agent-2", name="bob", scopes=()).token
    assert jwt.get_unverified_header(fresh)["kid"] == rotated_service.keyring.signing_kid
    without_old = TokenService(settings.model_copy(update={"signing_key_pem": new_key}))
    with pytest.raises(Exception) as refused:
        without_old.verify(old_token)
    assert getattr(refused.value, "code", None) == "auth/unknown_key"


def test_the_verified_token_cache_drops_the_least_recently_sent_token(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """More live tokens than the cache holds (every worker sees every agent's token once
    connections come and go): a token sent lately stays checked, the stalest is checked
    again; before, a full cache was emptied and every live token checked again."""
    import gateway.security as security

    monkeypatch.setattr(security, "VERIFIED_CACHE_SIZE", 3)
    checked: list[str] = []
    verify = TokenService.verify

    def counting(self: TokenService, token: str) -> Any:
        checked.append(token)
        return verify(self, token)

    monkeypatch.setattr(TokenService, "verify", counting)
    tokens = TokenService(settings)
    minted = [tokens.issue(agent_id=f"agent-{i}", name=f"a{i}", scopes={"game:market-fortune"}).token
              for i in range(4)]
    for token in minted[:3]:
        tokens.verify_cached(token)
    tokens.verify_cached(minted[0])  # sent again: now the most recent
    tokens.verify_cached(minted[3])  # a fourth: drops minted[1], the stalest
    assert checked == minted
    tokens.verify_cached(minted[0])
    tokens.verify_cached(minted[2])
    assert checked == minted  # both still cached
    tokens.verify_cached(minted[1])
    assert checked == [*minted, minted[1]]  # checked again, as it was dropped
