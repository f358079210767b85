"""An observation tells a seat what happened since its last move, and a caller without a
seat that it watches as a spectator (issue: LLM agents had to diff /events themselves,
and one that forgot its token waited for a turn that never came)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from gateway.config import Settings
from gateway.services.observations import LOG_TAIL
from gateway.store.connection import Keys, connect
from gateway.store.tables import StoredEvent, TableStore
from tests.gateway.tables_helpers import agents, seated_table

MOVES = 40


def stored_events(settings: Settings, table_id: str) -> dict[int, StoredEvent]:
    """Every event of the table with its audience, read through the store."""

    async def read() -> list[StoredEvent]:
        client = connect(settings.redis_url or "")
        try:
            return await TableStore(client, Keys(settings.redis_namespace)).events_after(
                table_id, 0, count=10_000)
        finally:
            await client.aclose()

    return {event.seq: event for event in asyncio.run(read())}


def test_a_seat_is_told_the_events_since_its_last_move_and_only_its_own(
    client: TestClient, settings: Settings,
    mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    seats = agents(mint_token, auth, "since", 2)
    table_id = seated_table(client, seats, seed=5)
    url = f"/v1/tables/{table_id}"
    marks = {0: 0, 1: 0}  # the last event id of each seat's last move (0: none yet)
    listed: list[tuple[int, dict[str, Any]]] = []
    ranges: list[tuple[int, int, int]] = []  # (seat, after, up to) of each observation
    for _move in range(MOVES):
        for seat, headers in enumerate(seats):
            seen = client.get(f"{url}/observation", headers=headers).json()
            assert seen["spectator_reason"] is None
            expected = [event for event in client.get(
                f"{url}/events", params={"after": marks[seat]}, headers=headers).json()["events"]
                if event["id"] <= seen["last_event_id"]]
            assert seen["since_your_last_move"] == expected
            assert seen["last_move_event_id"] == marks[seat]
            head = "Since the table began" if marks[seat] == 0 else "Since your last move:"
            assert seen["summary"].startswith(head), seen["summary"]
            for event in expected:
                assert f"[{event['id']}] {event['text']}" in seen["summary"]
            listed += [(seat, event) for event in seen["since_your_last_move"]]
            ranges.append((seat, marks[seat], seen["last_event_id"]))
        observed = client.get(f"{url}/observation", headers=seats[0]).json()
        if observed["status"] == "finished":
            break
        actor = observed["to_act"][0]
        mine = client.get(f"{url}/observation", headers=seats[actor]).json()
        acted = client.post(f"{url}/actions", headers=seats[actor], json={
            "version": mine["version"], "action": mine["legal_actions"][-1]["id"]})
        assert acted.status_code == 200, acted.text
        after = acted.json()["observation"]
        # The move just made is the seat's last: nothing happened since.
        assert after["since_your_last_move"] == []
        assert after["last_move_event_id"] == after["last_event_id"]
        assert after["summary"].startswith("Since your last move:\n  nothing you may see happened.")
        marks[actor] = after["last_event_id"]
    stored = stored_events(settings, table_id)
    for seat, event in listed:  # never another seat's private event
        audience = stored[event["id"]].audience
        assert audience is None or seat in audience, (seat, event)
    # Not vacuous: some observed spans held the other seat's private events (left out).
    withheld = [
        (seat, event.seq) for seat, after, upto in ranges for event in stored.values()
        if after < event.seq <= upto and event.audience is not None and seat not in event.audience
    ]
    assert len(withheld) > 5, withheld


def test_a_caller_without_a_seat_is_told_it_watches_as_a_spectator(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    seats = agents(mint_token, auth, "watch", 3)
    table_id = seated_table(client, seats[:2], seed=9)
    url = f"/v1/tables/{table_id}"
    actor = client.get(f"{url}/observation", headers=seats[0]).json()["to_act"][0]
    mine = client.get(f"{url}/observation", headers=seats[actor]).json()
    acted = client.post(f"{url}/actions", headers=seats[actor], json={
        "version": mine["version"], "action": mine["legal_actions"][0]["id"]})
    assert acted.status_code == 200, acted.text
    anonymous = client.get(f"{url}/observation").json()
    assert anonymous["spectator_reason"] == "no_token" and anonymous["seat"] is None
    assert anonymous["summary"].splitlines()[0].startswith("You sent no token")
    assert "Authorization: Bearer" in anonymous["summary"].splitlines()[0]
    outsider = client.get(f"{url}/observation", headers=seats[2]).json()
    assert outsider["spectator_reason"] == "not_seated"
    assert outsider["summary"].splitlines()[0] == (
        "You hold no seat at this table: this is the spectator's view.")
    for spectator in (anonymous, outsider):  # nothing "since your last move" for a spectator
        assert spectator["since_your_last_move"] is None
        assert spectator["last_move_event_id"] is None
        assert "Since your last move" not in spectator["summary"]
        assert spectator["legal_actions"] == []
    # Before the start too: an open table says it.
    opened = client.post("/v1/tables", headers=seats[2], json={
        "game": "market-fortune", "mode": "family", "seats": 2}).json()
    waiting = client.get(f"/v1/tables/{opened['id']}/observation").json()
    assert waiting["spectator_reason"] == "no_token"
    assert waiting["summary"].startswith("You sent no token")
    seated = client.get(f"/v1/tables/{opened['id']}/observation", headers=seats[2]).json()
    assert seated["spectator_reason"] is None and seated["since_your_last_move"] is None


def test_a_seat_whose_turns_timed_out_is_told_everything_since_it_last_chose(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    """A turn clock's default is not a move of the seat's: after timeouts it is told all
    since its last own action, timeouts included, even when that action is further back
    in the log than the first read of it (LOG_TAIL entries)."""
    (seat,) = agents(mint_token, auth, "sleepy", 1)
    table = client.post("/v1/tables", headers=seat, json={
        "game": "market-fortune", "mode": "fortune", "seats": 3, "seed": 12, "turn_timeout_s": 0.2,
        "house_bots": [{"seat": 1}, {"seat": 2}]}).json()
    url = f"/v1/tables/{table['id']}"
    deadline = time.monotonic() + 30
    while True:  # one move of its own
        seen = client.get(f"{url}/observation", params={"wait": 5}, headers=seat).json()
        acted = client.post(f"{url}/actions", headers=seat, json={
            "version": seen["version"], "action": seen["legal_actions"][0]["id"]})
        if acted.status_code == 200:
            break
        assert time.monotonic() < deadline, acted.text
    mark = acted.json()["observation"]["last_event_id"]
    moved_at = acted.json()["version"]  # one log entry per version from here on
    while True:  # then asleep while its clock runs out, turn after turn
        seen = client.get(f"{url}/observation", headers=seat).json()
        if seen["version"] - moved_at > 2 * LOG_TAIL or seen["status"] == "finished":
            break
        assert time.monotonic() < deadline, "the turn clock did not play for the seat"
        time.sleep(0.2)
    told = [event for event in client.get(f"{url}/events", params={"after": mark},
                                          headers=seat).json()["events"]
            if event["id"] <= seen["last_event_id"]]
    assert seen["since_your_last_move"] == told and seen["last_move_event_id"] == mark
    assert seen["version"] - moved_at > LOG_TAIL  # its move is older than the first log read
    assert any(event["kind"] == "turn.timeout" for event in told)
    assert seen["summary"].startswith("Since your last move:")
