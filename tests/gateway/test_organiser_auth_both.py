"""A bad credential is never ignored (issue 33, W6: schemathesis's ``ignored_auth``): a
request carrying the right organiser key and, beside it, an Authorization header that does
not verify is refused, not served on the key alone."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.gateway.conftest import ORGANISER_KEY

BODY = {"name": "alice-bot", "games": ["market-fortune"]}


def test_a_bad_authorization_beside_the_organiser_key_is_refused(client: TestClient) -> None:
    key = {"X-Organiser-Key": ORGANISER_KEY}
    for sent in ("Bearer garbage", "Basic Zm9vOmJhcg=="):
        refused = client.post("/v1/auth/organiser/tokens", json=BODY,
                              headers={**key, "Authorization": sent})
        assert (refused.status_code, refused.json()["code"]) == (401, "auth/invalid"), sent
    assert client.post("/v1/auth/organiser/tokens", json=BODY, headers=key).status_code == 201
    both = {**key, "Authorization": f"Bearer {ORGANISER_KEY}"}
    assert client.post("/v1/auth/organiser/tokens", json=BODY, headers=both).status_code == 201
