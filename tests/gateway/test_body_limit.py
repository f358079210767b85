"""A request body over ``max_request_body_bytes`` is refused with 413 ``request/too_large``,
on every route that reads a body (the action route too), before it is parsed; the
table it was sent to is unharmed."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from .tables_helpers import agents, seated_table

PROBLEM = "application/problem+json"
LIMIT = 64 * 1024


def _too_large(answer_status: int, answer: dict[str, object]) -> None:
    assert answer_status == 413
    assert answer["code"] == "request/too_large"
    assert answer["limit"] == LIMIT
    assert str(LIMIT) in str(answer["detail"])


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_an_oversized_action_is_refused_and_the_table_is_unharmed(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
    chunked: bool,
) -> None:
    seats = agents(mint_token, auth, "big")
    table_id = seated_table(client, seats, seed=5)
    before = client.get(f"/v1/tables/{table_id}/observation", headers=seats[0]).json()
    actor = seats[before["to_act"][0]] if before["to_act"] else seats[0]
    padding = "x" * (LIMIT + 1)
    body = f'{{"version": {before["version"]}, "action": "dominate", "pad": "{padding}"}}'.encode()

    def pieces() -> object:
        for start in range(0, len(body), 8192):
            yield body[start:start + 8192]

    answer = client.post(
        f"/v1/tables/{table_id}/actions",
        headers={**actor, "content-type": "application/json", "Idempotency-Key": "big-1"},
        content=pieces() if chunked else body,
    )
    assert answer.headers["content-type"] == PROBLEM
    _too_large(answer.status_code, answer.json())
    after = client.get(f"/v1/tables/{table_id}/observation", headers=seats[0]).json()
    assert after["version"] == before["version"]
    legal = [action["id"] for action in
             client.get(f"/v1/tables/{table_id}/observation", headers=actor).json()["legal_actions"]]
    played = client.post(f"/v1/tables/{table_id}/actions",
                         headers={**actor, "Idempotency-Key": "big-1"},
                         json={"version": before["version"], "action": legal[0]})
    assert played.status_code == 200, "the refused request must not have used the key"


def test_an_oversized_body_is_refused_on_an_ordinary_route(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    answer = client.post("/v1/tables", headers=agents(mint_token, auth, "large")[0],
                         json={"game": "market-fortune", "seats": 2, "name": "y" * (2 * LIMIT)})
    assert answer.headers["content-type"] == PROBLEM
    _too_large(answer.status_code, answer.json())


def test_a_body_under_the_limit_is_read_as_usual(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    answer = client.post("/v1/tables", headers=agents(mint_token, auth, "small")[0],
                         json={"game": "market-fortune", "seats": 2, "pad": "z" * (LIMIT // 2)})
    assert answer.status_code == 422 and answer.json()["code"] == "request/invalid"
