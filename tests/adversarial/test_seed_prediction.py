"""The seed prediction: the deal is the public engine's ``new_table(config, seed)``, so an
agent that knows a table's seed computes every hidden card offline. It may not choose the
seed of a table another agent can join, and a server seed is not in any range it can
search: no seed of a small range, nor the creation second, deals its own starting hand.
The positive control: once the table ends, the published seed deals exactly that hand."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from engine.registry import get_game

GAME = "market-fortune"
Headers = dict[str, str]


def dealt_view(config: dict[str, Any], seed: int, seat: int) -> Any:
    game = get_game(GAME)
    state = game.new_table(game.config_model.model_validate(config), seed)
    return game.view(state, seat).model_dump(mode="json")


def test_the_creator_cannot_predict_the_other_hands(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    creator, rival = (auth(mint_token(agent_id=f"p-{i}", name=f"p{i}", games=(GAME,)))
                      for i in range(2))
    body = {"game": GAME, "mode": "family", "seats": 2}
    chosen = client.post("/v1/tables", headers=creator, json={**body, "seed": 1})
    assert chosen.status_code == 403 and chosen.json()["code"] == "table/seed_not_allowed"

    created_at = int(time.time())
    table_id = client.post("/v1/tables", headers=creator, json=body).json()["id"]
    assert client.post(f"/v1/tables/{table_id}/join", headers=rival).status_code == 200
    mine = client.get(f"/v1/tables/{table_id}/observation", headers=creator).json()
    assert mine["version"] == 1 and mine["view"] is not None  # nothing played yet
    config = get_game(GAME).config_model.model_validate(
        {"mode": "family", "seats": 2, "variants": ()}).model_dump(mode="json")
    guesses = [*range(2000), *range(created_at - 5, created_at + 6),
               *(t * 1000 for t in range(created_at - 5, created_at + 6))]
    assert not [seed for seed in guesses if dealt_view(config, seed, 0) == mine["view"]]

    organiser = auth(mint_token(agent_id="org", name="org", kind="organiser"))
    assert client.post(f"/v1/tables/{table_id}/close", headers=organiser).status_code == 200
    replay = client.get(f"/v1/tables/{table_id}/replay", headers=creator).json()
    assert dealt_view(replay["config"], replay["seed"], 0) == mine["view"]
