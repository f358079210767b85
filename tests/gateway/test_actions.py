"""Actions: the id form and the structured form are the same action; the line that ends a table."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from engine.core import Outcome
from engine.registry import all_games, get_game
from gateway.services.actions import finished_text

pytestmark = pytest.mark.redis_cluster


@pytest.mark.parametrize("game_name", sorted(all_games()))
def test_a_structured_action_is_applied_like_its_id(
    game_name: str, client: TestClient,
    mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    game = get_game(game_name)
    mode = game.info.modes[0]
    me = auth(mint_token(agent_id="structured", name="s", games=(game_name,)))
    created = client.post("/v1/tables", headers=me, json={
        "game": game_name, "mode": mode.name, "seats": max(mode.min_seats, 2), "seed": 5,
        "house_bots": [{"seat": s} for s in range(1, max(mode.min_seats, 2))]}).json()
    table_id = created["id"]
    for _ in range(100):
        observation = client.get(f"/v1/tables/{table_id}/observation", headers=me).json()
        if observation["legal_actions"]:
            break
        client.get(f"/v1/tables/{table_id}/events", headers=me,
                   params={"after": observation["last_event_id"], "wait": 1})
    else:
        raise AssertionError("never my turn")
    chosen = observation["legal_actions"][0]
    structured = game.parse_action(chosen["id"]).model_dump(mode="json")
    answer = client.post(f"/v1/tables/{table_id}/actions", headers=me,
                         json={"version": observation["version"], "action": structured})
    assert answer.status_code == 200, answer.text
    assert answer.json()["action"] == chosen
    # A structured body with a field the action does not have is refused, not coerced.
    later = client.get(f"/v1/tables/{table_id}/observation", headers=me).json()
    bogus = {**structured, "surprise": 1}
    refused = client.post(f"/v1/tables/{table_id}/actions", headers=me,
                          json={"version": later["version"], "action": bogus})
    assert refused.status_code == 422
    assert refused.json()["code"] in ("request/invalid", "action/malformed")


def test_the_finished_line_names_the_winners_in_short() -> None:
    assert finished_text(Outcome(winners=(2,), reason="victory")) == \
        "The table is over (victory): seat 2 wins."
    assert finished_text(Outcome(winners=(0, 1, 3), reason="turn_limit")) == \
        "The table is over (turn limit): seats 0, 1 and 3 share the win."
    assert finished_text(Outcome(winners=(), reason="closed")) == "The table is over (closed): nobody wins."
