"""The turn clock reads the app's clock (:mod:`gateway.clock`), not the machine's.

With a clock the test moves, a turn runs out exactly when that clock passes
the deadline: no sweep before it applies anything however much real time
goes by, and the sweeper applies the default action soon after it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from gateway.services.clocks import sweep_clocks
from gateway.services.runtime import table_context
from tests.fake_clock import FakeClock
from tests.gateway.tables_helpers import agents, organiser_auth

TIMEOUT_S = 60


@pytest.mark.redis_cluster
def test_a_turn_runs_out_when_the_app_s_clock_passes_its_deadline(
    app: FastAPI, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]]
) -> None:
    clock = FakeClock()
    app.state.clock = clock
    with TestClient(app) as client:
        seats = agents(mint_token, auth, "clockwork")
        # The organiser deals the fixed board; both agents then join.
        table = client.post("/v1/tables", headers=organiser_auth(client), json={
            "game": "market-fortune", "mode": "family", "seats": 2, "seed": 4, "join": False,
            "turn_timeout_s": TIMEOUT_S}).json()
        for headers in seats:
            client.post(f"/v1/tables/{table['id']}/join", headers=headers)

        def observe() -> dict[str, Any]:
            seen: dict[str, Any] = client.get(
                f"/v1/tables/{table['id']}/observation", headers=seats[0]).json()
            return seen

        started = observe()
        assert started["deadline"] == pytest.approx(clock() + TIMEOUT_S)
        clock.advance(TIMEOUT_S - 1)
        portal = client.portal  # the app's event loop, where its Redis client lives
        assert portal is not None
        assert portal.call(sweep_clocks, table_context(app)) == 0  # nothing due yet
        assert observe()["version"] == started["version"]

        clock.advance(2)
        give_up = time.monotonic() + 10  # the sweeper's interval is 0.2 s
        while (seen := observe())["version"] == started["version"]:
            assert time.monotonic() < give_up, "the turn clock did not run out"
            time.sleep(0.05)
        assert seen["version"] == started["version"] + 1
        assert seen["deadline"] == pytest.approx(clock() + TIMEOUT_S)
        events = client.get(f"/v1/tables/{table['id']}/events", headers=seats[0],
                            params={"after": started["last_event_id"]}).json()["events"]
        assert events[0]["kind"] == "turn.timeout"
        assert events[0]["data"] == {"seat": started["to_act"][0]}
