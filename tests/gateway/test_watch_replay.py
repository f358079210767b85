"""GET /v1/tables/{id}/replay/positions: the replay's gates, and positions equal to the engine's.

The browser tests (test_watch_browser.py) check what the replay page draws; this
module checks the endpoint itself through the API: refused before the end, held
back while a tournament board is still played (``replay/embargoed``), and every
step's views equal to the engine's views of the same seed and log.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine.registry import get_game
from gateway.config import Settings
from tests.gateway.conftest import MintToken
from tests.gateway.test_tournaments import _body, _register

GAME = "market-fortune"


@pytest.fixture()
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"sweeper_interval_s": 0.05})


def _engine_steps(replay: dict[str, Any]) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Per step, the spectator's view and every seat's own view, from the engine alone."""
    game = get_game(replay["game"])
    config = game.config_model.model_validate(replay["config"])
    state = game.new_table(config, replay["seed"])

    def views() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        return (game.view(state, None).model_dump(mode="json"),
                [game.view(state, seat).model_dump(mode="json") for seat in range(config.seats)])

    steps = [views()]
    for entry in replay["log"]:
        state, _ = game.apply(state, entry["seat"], game.parse_action(entry["action"]))
        steps.append(views())
    return steps


def test_positions_wait_for_the_end_and_equal_the_engines_views(
    client: TestClient, mint_token: MintToken, auth: Callable[[str], dict[str, str]],
) -> None:
    headers = auth(mint_token(agent_id="agt_1", name="Ada", games=(GAME,)))
    table = client.post("/v1/tables", headers=headers, json={
        "game": GAME, "mode": "family", "seats": 2, "seed": 4, "house_bots": [{"seat": 1}],
        "options": {"turn_limit_per_seat": 4}}).json()
    early = client.get(f"/v1/tables/{table['id']}/replay/positions", headers=headers)
    assert (early.status_code, early.json()["code"]) == (409, "table/not_finished")
    for _move in range(500):
        seen = client.get(f"/v1/tables/{table['id']}/observation", headers=headers,
                          params={"wait": 5}).json()
        if seen["status"] == "finished":
            break
        if seen["legal_actions"]:
            client.post(f"/v1/tables/{table['id']}/actions", headers=headers, json={
                "version": seen["version"], "action": seen["legal_actions"][0]["id"]})
    else:
        raise AssertionError("the table did not finish")
    positions = client.get(f"/v1/tables/{table['id']}/replay/positions").json()
    replay = client.get(f"/v1/tables/{table['id']}/replay").json()
    expected = _engine_steps(replay)
    assert len(positions["steps"]) == len(replay["log"]) + 1 == len(expected)
    assert positions["seated"][0]["name"] == "Ada" and positions["seated"][1]["kind"] == "house_bot"
    for step, (spectator, own) in zip(positions["steps"], expected, strict=True):
        assert step["view"] == spectator
        for seat, extra in enumerate(step["seat_views"]):
            # The spectator's view plus the seat's additions is the seat's own view.
            assert {**spectator, **extra, "seat": seat} == own[seat]
    assert [step["action"] for step in positions["steps"][1:]] == [entry["action"] for entry in replay["log"]]


def test_positions_of_a_tournament_table_wait_for_its_board(
    client: TestClient, settings: Settings, organiser_headers: dict[str, str],
    mint_token: MintToken, auth: Callable[[str], dict[str, str]],
) -> None:
    ann, bob = _register(settings, "Ann", "Bob")
    ann_headers = auth(mint_token(agent_id=ann, name="Ann", games=[GAME]))
    body = _body(seats=3, entrants=[ann, bob, "bot:greedy"], boards=1, turn_timeout_s=0.05,
                 max_concurrent_tables=1, options={"turn_limit_per_seat": 2})
    tournament_id = client.post("/v1/tournaments", json=body, headers=organiser_headers).json()["id"]
    first = client.get("/v1/agents/me/assignments", params={"wait": 5},
                       headers=ann_headers).json()["assignments"][0]
    give_up = time.monotonic() + 10
    while client.get(f"/v1/tables/{first['table_id']}", headers=ann_headers).json()["status"] != "finished":
        assert time.monotonic() < give_up
        time.sleep(0.05)
    path = f"/v1/tables/{first['table_id']}/replay/positions"
    # Two more tables of the board are still to play, one at a time.
    assert client.get(f"/v1/tournaments/{tournament_id}").json()["status"] == "running"
    held = client.get(path, headers=ann_headers)
    assert (held.status_code, held.json()["code"]) == (409, "replay/embargoed")
    # Anyone else: the table is private while its board is played.
    assert client.get(path).status_code == 404
    assert client.get(f"/watch/{first['table_id']}/replay").status_code == 404
    give_up = time.monotonic() + 20
    while client.get(f"/v1/tournaments/{tournament_id}").json()["status"] == "running":
        assert time.monotonic() < give_up
        time.sleep(0.05)
    # Published: the tournament lists the table, so anyone may replay it.
    assert client.get(path).status_code == 200
    assert client.get(f"/watch/{first['table_id']}/replay").status_code == 200
    assert client.get(f"/watch/{first['table_id']}").status_code == 404
