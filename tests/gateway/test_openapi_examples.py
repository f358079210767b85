"""The request examples in the OpenAPI document are true: sent as they are, they work."""

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from engine.registry import all_games


def _create_table_examples(client: TestClient) -> dict[str, Any]:
    operation = client.get("/openapi.json").json()["paths"]["/v1/tables"]["post"]
    examples: dict[str, Any] = operation["requestBody"]["content"]["application/json"]["examples"]
    return examples


def test_every_create_table_example_opens_a_table(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]]
) -> None:
    token = mint_token(games=sorted(all_games()))
    examples = _create_table_examples(client)
    assert examples
    for name, example in examples.items():
        response = client.post("/v1/tables", json=example["value"], headers=auth(token))
        assert response.status_code == 201, (name, response.text)
        assert response.json()["game"] == example["value"]["game"]
