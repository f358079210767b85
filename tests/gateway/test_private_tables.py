"""Private tables are access-controlled, not just unlisted (real Redis, the app's routes).

A private table is visible to its seated agents, its creator and the organiser.
Anyone else — without a token, or with another agent's — gets exactly the
``table/not_found`` a never-used id gets, on every read: the table, the
observation (also with ``wait``), events (long-poll and SSE), the replay; and on
actions and leave. Its id is the invitation: anyone holding it may join while
the table is open. Public tables stay open to spectators.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from .tables_helpers import follow_stream

GAME = "market-fortune"
SHORT = {"game": GAME, "mode": "family", "seats": 2, "options": {"turn_limit_per_seat": 1}}

Headers = dict[str, str]
NEVER_USED = "0000000000000000"


@pytest.fixture()
def agent(mint_token: Callable[..., str], auth: Callable[[str], Headers]) -> Callable[[str], Headers]:
    """``agent(id)`` -> auth headers of an agent admitted to Market Fortune."""
    return lambda agent_id: auth(mint_token(agent_id=agent_id, name=agent_id, games=(GAME,)))


@pytest.fixture()
def organiser(mint_token: Callable[..., str], auth: Callable[[str], Headers]) -> Headers:
    """Auth headers of an organiser token."""
    return auth(mint_token(agent_id="org", name="org", kind="organiser"))


def created(client: TestClient, headers: Headers, **fields: Any) -> dict[str, Any]:
    """Create a short table (accepted); its body."""
    response = client.post("/v1/tables", headers=headers, json={**SHORT, **fields})
    assert response.status_code == 201, response.text
    table: dict[str, Any] = response.json()
    return table


def reads(table_id: str) -> list[tuple[str, str, dict[str, Any]]]:
    """Every read of one table: (method, path, query)."""
    base = f"/v1/tables/{table_id}"
    return [
        ("GET", base, {}),
        ("GET", f"{base}/observation", {}),
        ("GET", f"{base}/observation", {"wait": 0.2}),
        ("GET", f"{base}/events", {}),
        ("GET", f"{base}/events", {"after": 1, "wait": 0.2}),
        ("GET", f"{base}/events/stream", {}),
        ("GET", f"{base}/replay", {}),
    ]


def without_id(body: dict[str, Any], table_id: str) -> dict[str, Any]:
    """A problem document with the table id (in detail and instance) blanked."""
    return {key: str(value).replace(table_id, "<id>") for key, value in body.items()}


def assert_hidden(client: TestClient, table_id: str, headers: Headers) -> None:
    """Every read answers exactly like a never-used id."""
    for method, path, params in reads(table_id):
        hidden = client.request(method, path, params=params, headers=headers)
        missing = client.request(method, path.replace(table_id, NEVER_USED), params=params,
                                 headers=headers)
        assert hidden.status_code == 404, (path, hidden.text)
        assert hidden.headers["content-type"].startswith("application/problem+json")
        assert without_id(hidden.json(), table_id) == without_id(missing.json(), NEVER_USED)


def wait_finished(client: TestClient, table_id: str, headers: Headers) -> None:
    """Wait (up to 20 s) until the table is over."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        seen = client.get(f"/v1/tables/{table_id}/observation", headers=headers,
                          params={"wait": 1}).json()
        if seen["status"] == "finished":
            return
    raise AssertionError(f"table {table_id} did not finish")


def test_outsiders_cannot_tell_a_private_table_exists(
    client: TestClient, agent: Callable[[str], Headers], organiser: Headers,
) -> None:
    alice, bob, eve = agent("alice"), agent("bob"), agent("eve")
    table = created(client, alice, private=True, turn_timeout_s=3600)
    table_id = table["id"]
    assert client.post(f"/v1/tables/{table_id}/join", headers=bob).json()["status"] == "playing"
    for outsider in ({}, eve):
        assert_hidden(client, table_id, outsider)
    acted = client.post(f"/v1/tables/{table_id}/actions", headers=eve,
                        json={"version": 0, "action": "pass"})
    assert acted.status_code == 404 and acted.json()["code"] == "table/not_found"
    for refused in ("join", "leave"):
        answer = client.post(f"/v1/tables/{table_id}/{refused}", headers=eve)
        assert answer.status_code == 404 and answer.json()["code"] == "table/not_found", refused
    assert table_id not in {t["id"] for t in client.get("/v1/tables").json()["tables"]}
    # Its people see it: both seats (each its own view) and the organiser (a spectator).
    for seat, headers in enumerate((alice, bob)):
        assert client.get(f"/v1/tables/{table_id}", headers=headers).json()["your_seat"] == seat
        seen = client.get(f"/v1/tables/{table_id}/observation", headers=headers).json()
        assert seen["seat"] == seat and seen["view"] is not None
    watched = client.get(f"/v1/tables/{table_id}/observation", headers=organiser).json()
    assert watched["seat"] is None
    events = client.get(f"/v1/tables/{table_id}/events", headers=organiser).json()["events"]
    assert events and not any(event["private"] for event in events)


def test_the_id_is_the_invitation_while_the_table_is_open(
    client: TestClient, agent: Callable[[str], Headers],
) -> None:
    alice, bob, carol = agent("alice"), agent("bob"), agent("carol")
    table = created(client, alice, seats=3, private=True)
    table_id = table["id"]
    assert_hidden(client, table_id, bob)  # holding the id is not a licence to watch
    joined = client.post(f"/v1/tables/{table_id}/join", headers=bob)
    assert joined.status_code == 200 and joined.json()["your_seat"] == 1
    assert client.get(f"/v1/tables/{table_id}", headers=bob).status_code == 200
    # Leaving an open table makes it invisible again.
    assert client.post(f"/v1/tables/{table_id}/leave", headers=bob).status_code == 200
    assert client.get(f"/v1/tables/{table_id}", headers=bob).status_code == 404
    client.post(f"/v1/tables/{table_id}/join", headers=bob)
    client.post(f"/v1/tables/{table_id}/join", headers=carol)
    # Started: the invitation has expired for everyone else.
    late = client.post(f"/v1/tables/{table_id}/join", headers=agent("dave"))
    assert late.status_code == 404 and late.json()["code"] == "table/not_found"


def test_the_replay_and_stream_of_a_private_table_are_its_peoples_only(
    client: TestClient, agent: Callable[[str], Headers], organiser: Headers,
) -> None:
    alice = agent("alice")
    # Alice opens a private table of two house bots without sitting at it: as its
    # creator she still sees it (it counts against her cap until it ends).
    table = created(client, alice, private=True, join=False,
                    house_bots=[{"seat": 0}, {"seat": 1}])
    table_id = table["id"]
    wait_finished(client, table_id, alice)
    for headers in (alice, organiser):
        replay = client.get(f"/v1/tables/{table_id}/replay", headers=headers)
        assert replay.status_code == 200 and replay.json()["outcome"] is not None
        stream = client.get(f"/v1/tables/{table_id}/events/stream", headers=headers)
        assert stream.status_code == 200 and "event: end" in stream.text
    for outsider in ({}, agent("eve")):
        assert_hidden(client, table_id, outsider)


def test_public_tables_stay_open_to_spectators(
    client: TestClient, agent: Callable[[str], Headers],
) -> None:
    alice = agent("alice")
    table = created(client, alice, house_bots=[{"seat": 1}])
    table_id = table["id"]
    for method, path, params in reads(table_id):
        if path.endswith("/replay") or path.endswith("/stream"):
            continue  # the replay opens at the end; the stream would follow the live table
        for reader in ({}, agent("eve")):
            answer = client.request(method, path, params=params, headers=reader)
            assert answer.status_code == 200, (path, answer.text)
    assert table_id in {t["id"] for t in client.get("/v1/tables").json()["tables"]}
    not_seated = client.post(f"/v1/tables/{table_id}/actions", headers=agent("eve"),
                             json={"version": 0, "action": "pass"})
    assert not_seated.status_code == 403 and not_seated.json()["code"] == "table/not_seated"
    replay = client.get(f"/v1/tables/{table_id}/replay")
    assert replay.status_code == 409 and replay.json()["code"] == "table/not_finished"


def test_a_stream_ends_when_its_reader_leaves_the_private_table(
    client: TestClient, agent: Callable[[str], Headers],
) -> None:
    alice, bob, carol = agent("alice"), agent("bob"), agent("carol")
    table_id = created(client, alice, seats=3, private=True)["id"]
    assert client.post(f"/v1/tables/{table_id}/join", headers=bob).status_code == 200
    reader, frames, _ = follow_stream(client, table_id, bob)
    assert client.post(f"/v1/tables/{table_id}/leave", headers=bob).status_code == 200
    reader.join(timeout=10)
    assert not reader.is_alive(), "the stream went on after its reader left"
    assert client.post(f"/v1/tables/{table_id}/join", headers=carol).status_code == 200
    text = "\n".join(frames)
    assert "event: seat.left" in text and text.rstrip().endswith("data: {}")
    assert "carol" not in text
