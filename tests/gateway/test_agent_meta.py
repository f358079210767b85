"""Agents' public metadata and versions, through the HTTP API.

The organiser sets model, provider, version and link at registration; the agent
itself changes them (``PATCH /v1/agents/me``), and nobody else can. A new
version is a new agent whose ``predecessor`` is the one it follows, with the
same owner; the leaderboard and the tournament resource show the lineage.
Tournaments take entrants by name as well as by id, resolved by the server.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gateway.config import Settings
from gateway.store.auth import AuthStore
from gateway.store.connection import Keys, close_client, connect

GAME = "market-fortune"
MINT = "/v1/auth/organiser/tokens"
META = {"model": "greedy-v1", "provider": "house", "version": "1.0.0",
        "link": "https://example.org/bots/ann"}


@pytest.fixture()
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"sweeper_interval_s": 0.05})


def _mint(client: TestClient, organiser: dict[str, str], name: str, **meta: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "games": [GAME]}
    if meta:
        body["meta"] = meta
    minted = client.post(MINT, headers=organiser, json=body)
    assert minted.status_code == 201, minted.text
    return dict(minted.json())


def _bearer(minted: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {minted['access_token']}"}


def _self_registered(settings: Settings, name: str) -> str:
    """An agent that registered itself (as admission makes one): it owns only itself."""
    async def scenario() -> str:
        client = connect(settings.redis_url or "")
        try:
            store = AuthStore(client, Keys.for_url(settings.redis_namespace, settings.redis_url or ""))
            return (await store.create_agent(name=name, scopes=[f"game:{GAME}"]))[0].agent_id
        finally:
            await close_client(client)

    return asyncio.run(scenario())


def test_metadata_is_set_at_registration_and_changed_by_the_agent_alone(
    client: TestClient, organiser_headers: dict[str, str],
) -> None:
    ann = _mint(client, organiser_headers, "Ann", **META)
    me = client.get("/v1/agents/me", headers=_bearer(ann)).json()
    assert me["meta"] == {**META, "predecessor": None, "predecessor_name": None}
    assert "owner" not in me and "secret" not in str(me)
    changed = client.patch("/v1/agents/me", headers=_bearer(ann),
                           json={"version": "1.0.1", "link": None})
    assert changed.status_code == 200, changed.text
    assert changed.json()["meta"]["version"] == "1.0.1"
    assert changed.json()["meta"]["link"] is None  # null clears
    assert changed.json()["meta"]["model"] == "greedy-v1"  # left out: kept
    # Registering again with meta changes the given fields of the same agent.
    again = _mint(client, organiser_headers, "Ann", provider="Acme")
    assert again["agent_id"] == ann["agent_id"]
    assert client.get("/v1/agents/me", headers=_bearer(again)).json()["meta"]["provider"] == "Acme"
    # The organiser's own token has no metadata to change; there is no way to edit another's.
    organiser_token = client.post(MINT, headers=organiser_headers,
                                  json={"name": "org", "kind": "organiser"}).json()
    refused = client.patch("/v1/agents/me", headers=_bearer(organiser_token),
                           json={"version": "x"})
    assert (refused.status_code, refused.json()["code"]) == (403, "auth/wrong_scope")
    assert client.patch(f"/v1/agents/{ann['agent_id']}", headers=organiser_headers,
                        json={"version": "x"}).status_code in (404, 405)


@pytest.mark.parametrize("meta", [
    {"link": "javascript:alert(1)"},
    {"link": "https://example.org/a b"},
    {"model": "x" * 81},
    {"version": "1.0\nsecret hand: 7 of coins"},
    {"provider": ""},
    {"hand": "7 of coins"},
    {"predecessor": "not-an-id"},
    {"version": 2},
])
def test_bad_metadata_is_a_422_problem(
    client: TestClient, organiser_headers: dict[str, str], meta: dict[str, Any],
) -> None:
    ann = _mint(client, organiser_headers, "Bea")
    for refused in (client.patch("/v1/agents/me", headers=_bearer(ann), json=meta),
                    client.post(MINT, headers=organiser_headers,
                                json={"name": "Bea", "games": [GAME], "meta": meta})):
        assert refused.status_code == 422, refused.text
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert refused.json()["code"] == "request/invalid"


def test_a_new_version_names_its_predecessor_of_the_same_owner(
    client: TestClient, settings: Settings, organiser_headers: dict[str, str],
) -> None:
    v1 = _mint(client, organiser_headers, "Cal")
    v2 = _mint(client, organiser_headers, "Cal v2", version="2", predecessor=v1["agent_id"])
    shown = client.get("/v1/agents/me", headers=_bearer(v2)).json()["meta"]
    assert (shown["predecessor"], shown["predecessor_name"]) == (v1["agent_id"], "Cal")
    loner = _self_registered(settings, f"Loner{time.monotonic_ns()}")
    cases = [
        (MINT, organiser_headers, {"name": "Cal v3", "games": [GAME],
                                   "meta": {"predecessor": "agt_00000000000000000000"}}),
        (MINT, organiser_headers, {"name": "Cal v3", "games": [GAME],
                                   "meta": {"predecessor": loner}}),  # another owner's
        ("/v1/agents/me", _bearer(v1), {"predecessor": v2["agent_id"]}),  # a loop
        ("/v1/agents/me", _bearer(v1), {"predecessor": v1["agent_id"]}),  # itself
    ]
    for path, headers, body in cases:
        send = client.post if path == MINT else client.patch
        refused = send(path, headers=headers, json=body)
        assert refused.status_code == 422, refused.text
        assert refused.json()["code"] == "agent/invalid_predecessor"
    assert client.post(MINT, headers=organiser_headers,
                       json={"name": "Cal v3", "games": [GAME]}).json()["agent_id"]


def test_tournaments_take_names_and_show_metadata_and_the_ladder_its_lineage(
    client: TestClient, organiser_headers: dict[str, str],
) -> None:
    v1 = _mint(client, organiser_headers, "Dot")
    v2 = _mint(client, organiser_headers, "Dot v2", **META, predecessor=v1["agent_id"])
    body = {"name": "named", "game": GAME, "mode": "family", "seats": 2,
            "options": {"turn_limit_per_seat": 2}, "entrants": ["dot V2", "bot:greedy"],
            "format": "duplicate", "boards": 1, "turn_timeout_s": 0.05, "rated": True}
    for entrants, wanted in ((["Nobody At All", "bot:greedy"], "Nobody At All"),
                             ([v2["agent_id"], "Dot v2"], "named twice")):
        refused = client.post("/v1/tournaments", headers=organiser_headers,
                              json={**body, "entrants": entrants})
        assert refused.status_code == 422, refused.text
        assert wanted in refused.json()["detail"]
    # An entrant that is one agent's id and another's name is ambiguous.
    _mint(client, organiser_headers, v1["agent_id"])
    ambiguous = client.post("/v1/tournaments", headers=organiser_headers,
                            json={**body, "entrants": [v1["agent_id"], "bot:greedy"]})
    assert (ambiguous.status_code, ambiguous.json()["code"]) == (422, "tournament/unknown_entrant")
    assert v1["agent_id"] in ambiguous.json()["detail"]

    created = client.post("/v1/tournaments", headers=organiser_headers, json=body)
    assert created.status_code == 201, created.text
    tournament = created.json()
    assert tournament["entrants"] == [v2["agent_id"], "bot:greedy"]
    assert tournament["agents"] == {v2["agent_id"]: {**META, "predecessor": v1["agent_id"],
                                                     "predecessor_name": "Dot"}}
    # A change after creation does not reach the tournament (it shows what played).
    client.patch("/v1/agents/me", headers=_bearer(v2), json={"version": "9"})
    give_up = time.monotonic() + 15
    while (shown := client.get(f"/v1/tournaments/{tournament['id']}",
                               headers=organiser_headers).json())["status"] == "running":
        assert time.monotonic() < give_up, shown["progress"]
        time.sleep(0.05)
    assert shown["agents"][v2["agent_id"]]["version"] == META["version"]
    report = client.get(f"/v1/tournaments/{tournament['id']}/report").json()
    assert report["tournament"]["agents"][v2["agent_id"]]["model"] == META["model"]
    while (board := client.get(f"/v1/games/{GAME}/leaderboard").json())["tables"] < 2:
        assert time.monotonic() < give_up, board
        time.sleep(0.05)
    rows = {row["entrant"]: row for row in board["ratings"]}
    assert rows[v2["agent_id"]]["name"] == "Dot v2"
    assert rows[v2["agent_id"]]["agent"]["predecessor"] == v1["agent_id"]
    assert rows[v2["agent_id"]]["agent"]["predecessor_name"] == "Dot"
    assert rows[v2["agent_id"]]["agent"]["version"] == "9"  # the ladder shows it as it is now
    assert rows["bot:greedy"]["agent"] is None
