"""A table's settings that change play (mode, variants, turn clock, a lowered turn limit)
are in the table resource and in every seat's observation, in data and in the summary's
words; a finished table's outcome says how it was decided (issue 36, point 2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

GAME = "market-fortune"


def test_a_lowered_turn_limit_is_named_in_the_table_and_the_observation(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]]
) -> None:
    headers = auth(mint_token(agent_id="set-1", name="set-1", games=(GAME,)))
    created = client.post("/v1/tables", headers=headers, json={
        "game": GAME, "mode": "fortune", "seats": 2, "variants": ["momentum_red"],
        "house_bots": [{"seat": 1, "bot": "random"}], "turn_timeout_s": 45,
        "options": {"turn_limit_per_seat": 3}})
    assert created.status_code == 201, created.text
    table: dict[str, Any] = created.json()
    expected = {"mode": "fortune", "variants": ["momentum_red"], "turn_timeout_s": 45.0}
    for body in (table, client.get(f"/v1/tables/{table['id']}", headers=headers).json()):
        settings = body["settings"]
        assert {key: settings[key] for key in expected} == expected
        assert settings["rules"]["turn_limit_per_seat"] == 3
        assert settings["rulebook_rules"]["turn_limit_per_seat"] == 150
    seen = client.get(f"/v1/tables/{table['id']}/observation", headers=headers).json()
    assert seen["settings"]["rules"]["turn_limit_per_seat"] == 3
    assert "turn_limit_per_seat 3 (the rulebook's is 150)" in seen["summary"]
    assert "momentum_red" in seen["summary"] and "turn clock 45 s per decision" in seen["summary"]


def test_an_outcome_decided_by_a_tie_break_says_so_to_the_seat_and_the_table(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]]
) -> None:
    """Tables at a lowered turn limit, played to the end until one is decided by 3.7's
    tie-break (about one in four): the seat's last observation and the table resource
    say in data (``decided_by``) and in words that the count broke the tie."""
    headers = auth(mint_token(agent_id="set-2", name="set-2", games=(GAME,)))
    for seed in range(40):
        created = client.post("/v1/tables", headers=headers, json={
            "game": GAME, "mode": "family", "seats": 2, "seed": seed,
            "house_bots": [{"seat": 1, "bot": "random"}], "options": {"turn_limit_per_seat": 2}})
        assert created.status_code == 201, created.text
        table_id = created.json()["id"]
        seen = client.get(f"/v1/tables/{table_id}/observation", params={"wait_s": 5},
                          headers=headers).json()
        while seen["status"] != "finished":
            acted = client.post(f"/v1/tables/{table_id}/actions", params={"wait_s": 5},
                                headers=headers, json={"version": seen["version"],
                                                       "action": seen["legal_actions"][0]["id"]})
            assert acted.status_code == 200, acted.text
            seen = acted.json()["observation"]
        outcome = seen["outcome"]
        assert outcome["reason"] == "turn_limit" and outcome["decided_by"][0] == "investments"
        if outcome["decided_by"] == ["investments", "count"]:
            break
    else:
        raise AssertionError("no table of 40 was decided by the tie-break")
    assert "the tie-break is the count (8.1)" in outcome["text"]
    assert "Turn limit of 2 turns per seat reached (3.7)" in outcome["text"]
    assert client.get(f"/v1/tables/{table_id}", headers=headers).json()["outcome"] == outcome
    assert "the tie-break is the count" in seen["summary"]
