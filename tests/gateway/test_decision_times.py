"""The action log records each agent's decision time: from when the table last changed with
its seat to act (when it was asked) to when its action came."""

from __future__ import annotations

import time
from collections.abc import Callable

from fastapi.testclient import TestClient

from tests.gateway.tables_helpers import agents


def test_each_agent_action_logs_its_decision_time_and_last_event(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    (seat,) = agents(mint_token, auth, "timed", 1)
    table = client.post("/v1/tables", headers=seat, json={
        "game": "market-fortune", "mode": "family", "seats": 2, "seed": 8,
        "house_bots": [{"seat": 1}], "options": {"turn_limit_per_seat": 3}}).json()
    url = f"/v1/tables/{table['id']}"
    thought: list[float] = []
    while True:
        seen = client.get(f"{url}/observation", params={"wait": 5}, headers=seat).json()
        if seen["status"] == "finished":
            break
        if not seen["legal_actions"]:
            continue
        pause = 0.3 if not thought else 0.05
        time.sleep(pause)
        thought.append(pause)
        acted = client.post(f"{url}/actions", headers=seat, json={
            "version": seen["version"], "action": seen["legal_actions"][0]["id"]})
        assert acted.status_code == 200, acted.text
    replay = client.get(f"{url}/replay").json()
    mine = [entry for entry in replay["log"] if entry["by"] == "agent"]
    assert len(mine) == len(thought) >= 2
    for entry, pause in zip(mine, thought, strict=True):
        assert pause <= entry["decision_s"] < pause + 5, (entry, pause)
    assert all(entry["decision_s"] is None for entry in replay["log"] if entry["by"] != "agent")
    # last_event_id: the last event of each action, in order, within the table's events
    marks = [entry["last_event_id"] for entry in replay["log"]]
    assert marks == sorted(marks) and marks[-1] <= replay["events"][-1]["id"]
    assert {event["id"] for event in replay["events"]} >= set(marks)
