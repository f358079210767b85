"""A chosen seed on a rated table (issue 33, B2): house bots are deterministic given seed,
version and seat, so an agent that may choose the seed of a rated table against them
simulates seeds offline and plays only those it wins. A seed is refused on every rated
table, for agents and the organiser alike; unrated practice with a seed still works."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

GAME = "market-fortune"
Headers = dict[str, str]
AGAINST_BOTS = {"game": GAME, "mode": "family", "seats": 2, "house_bots": [{"seat": 1}]}


def test_no_rated_table_takes_a_chosen_seed(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    farmer = auth(mint_token(agent_id="farmer", name="farmer", games=(GAME,)))
    organiser = auth(mint_token(agent_id="org", name="org", kind="organiser"))
    for headers, body in [
        (farmer, {**AGAINST_BOTS, "rated": True, "seed": 7}),
        (organiser, {**AGAINST_BOTS, "join": False, "rated": True, "seed": 7,
                     "house_bots": [{"seat": 0}, {"seat": 1}]}),
    ]:
        refused = client.post("/v1/tables", headers=headers, json=body)
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == "table/seed_not_allowed"
    practice = client.post("/v1/tables", headers=farmer, json={**AGAINST_BOTS, "seed": 7})
    assert practice.status_code == 201, practice.text
    assert client.get(f"/v1/games/{GAME}/leaderboard").json()["tables"] == 0
