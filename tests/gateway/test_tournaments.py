"""Tournaments through the HTTP API: creation and its errors, the scheduler, results,
exports, the embargo of unfinished boards, assignments and the ladder.

Tiny tournaments of house bots (and agents whose clocks run out) on short games,
so the whole module stays fast.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from engine.registry import get_game
from gateway.config import Settings
from gateway.store.auth import AuthStore
from gateway.store.connection import Keys, close_client, connect
from tests.gateway.conftest import MintToken
from tournament.bundle import verify_bundle
from tournament.results import placements

GAME = "market-fortune"
SHORT = {"turn_limit_per_seat": 6}
"""Market Fortune with a low turn cap: a table of bots ends in a few dozen moves."""


@pytest.fixture()
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"sweeper_interval_s": 0.05, "jwt_leeway_s": 0})


def _body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "bots", "game": GAME, "mode": "family", "seats": 2, "options": SHORT,
        "entrants": ["bot:greedy", "bot:random"], "format": "duplicate", "boards": 2,
        "turn_timeout_s": 0.2, "max_concurrent_tables": 2,
    }
    body.update(changes)
    return body


def _register(settings: Settings, *names: str) -> list[str]:
    async def scenario() -> list[str]:
        client = connect(settings.redis_url or "")
        try:
            store = AuthStore(client, Keys.for_url(settings.redis_namespace, settings.redis_url or ""))
            return [(await store.create_agent(name=name, scopes=[f"game:{GAME}"]))[0].agent_id
                    for name in names]
        finally:
            await close_client(client)

    return asyncio.run(scenario())


def _wait_finished(client: TestClient, tournament_id: str, headers: dict[str, str],
                   timeout_s: float = 15.0) -> dict[str, Any]:
    give_up = time.monotonic() + timeout_s
    while time.monotonic() < give_up:
        shown = client.get(f"/v1/tournaments/{tournament_id}", headers=headers).json()
        if shown["status"] != "running":
            return dict(shown)
        time.sleep(0.05)
    raise AssertionError(f"tournament {tournament_id} did not finish: {shown['progress']}")


def _outcome_of_replay(replay: dict[str, Any]) -> tuple[int, ...]:
    """The placements recomputed from a replay alone: seed and log played again."""
    game = get_game(replay["game"])
    config = game.config_model.model_validate(replay["config"])
    state = game.new_table(config, replay["seed"])
    for entry in replay["log"]:
        state, _events = game.apply(state, entry["seat"], game.parse_action(entry["action"]))
    outcome = game.outcome(state)
    assert outcome is not None
    return placements(outcome.winners, outcome.scores, config.seats)


@pytest.mark.redis_cluster
def test_a_duplicate_tournament_of_bots_finishes_and_its_exports_agree(
    client: TestClient, organiser_headers: dict[str, str]
) -> None:
    created = client.post("/v1/tournaments", json=_body(), headers=organiser_headers)
    assert created.status_code == 201, created.text
    tournament_id = created.json()["id"]
    assert created.json()["progress"]["total"] == 4
    shown = _wait_finished(client, tournament_id, organiser_headers)
    assert shown["status"] == "finished"
    assert shown["progress"] == {"total": 4, "done": 4, "running": 0, "waiting": 0}
    assert {standing["entrant"] for standing in shown["standings"]} == {"bot:greedy", "bot:random"}
    assert sum(standing["games"] for standing in shown["standings"]) == 8

    results = client.get(f"/v1/tournaments/{tournament_id}/results").json()
    assert [result["index"] for result in results["results"]] == [0, 1, 2, 3]  # plan order
    rotations: dict[int, list[int]] = {}
    for result in results["results"]:
        rotations.setdefault(result["board"], []).append(result["rotation"])
    assert all(sorted(played) == [0, 1] for played in rotations.values()), rotations
    rows = list(csv.DictReader(io.StringIO(
        client.get(f"/v1/tournaments/{tournament_id}/results.csv").text)))
    assert len(rows) == 8
    assert [int(row["table_index"]) for row in rows] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert {row["rotation"] for row in rows} == {"0", "1"}
    lines = client.get(f"/v1/tournaments/{tournament_id}/replays.jsonl").text.splitlines()
    assert len(lines) == 4
    by_table = {result["table_id"]: result for result in results["results"]}
    for line in lines:
        bundle = json.loads(line)
        replay = bundle["replay"]
        result = by_table[replay["table_id"]]
        assert tuple(result["placements"]) == _outcome_of_replay(replay)
        assert replay["seed"] == results["board_seeds"][str(result["board"])]
        for row in rows:
            if row["table_id"] == replay["table_id"]:
                assert int(row["placement"]) == result["placements"][int(row["seat"])]
    # Duplicate: both rotations of a board start from the same deal.
    boards: dict[int, list[dict[str, Any]]] = {}
    for result in results["results"]:
        boards.setdefault(result["board"], []).append(result)
    game = get_game(GAME)
    replays = {json.loads(line)["replay"]["table_id"]: json.loads(line)["replay"] for line in lines}
    for same_board in boards.values():
        assert len(same_board) == 2
        first_states = [game.new_table(game.config_model.model_validate(replay["config"]),
                                       replay["seed"])
                        for replay in (replays[result["table_id"]] for result in same_board)]
        assert first_states[0] == first_states[1]
        assert {tuple(result["seating"]) for result in same_board} == {
            ("bot:greedy", "bot:random"), ("bot:random", "bot:greedy")}
    report = client.get(f"/v1/tournaments/{tournament_id}/report")
    assert report.status_code == 200, report.text



def test_creation_is_for_the_organiser_and_strict(
    client: TestClient, organiser_headers: dict[str, str], mint_token: MintToken,
    auth: Callable[[str], dict[str, str]],
) -> None:
    cases: list[tuple[dict[str, Any], dict[str, str], int, str]] = [
        (_body(), {}, 401, "auth/missing"),
        (_body(), auth(mint_token(games=[GAME])), 403, "auth/organiser_only"),
        (_body(entrants=["agt_0123456789abcdef0123", "bot:random"]), organiser_headers, 422,
         "tournament/unknown_entrant"),
        (_body(entrants=["bot:genius", "bot:random"]), organiser_headers, 422, "table/unknown_bot"),
        (_body(entrants=["not an id!"]), organiser_headers, 422, "request/invalid"),
        (_body(entrants=["nobody by this name", "bot:random"]), organiser_headers, 422,
         "tournament/unknown_entrant"),
        (_body(seed=7), organiser_headers, 422, "request/invalid"),
        (_body(boards="2"), organiser_headers, 422, "request/invalid"),
        (_body(format="swiss", rounds=3), organiser_headers, 422, "tournament/invalid"),
        (_body(format="gauntlet"), organiser_headers, 422, "tournament/invalid"),
        (_body(seats=4), organiser_headers, 422, "tournament/invalid"),
        (_body(mode="nope"), organiser_headers, 422, "tournament/invalid"),
        (_body(options={"turn_limit_per_seat": 10**9}), organiser_headers, 422,
         "tournament/invalid"),
        (_body(entrants=["bot:random", "bot:random"]), organiser_headers, 422,
         "tournament/invalid"),
        (_body(game="chess"), organiser_headers, 404, "game/not_found"),
    ]
    for body, headers, status, code in cases:
        answer = client.post("/v1/tournaments", json=body, headers=headers)
        assert (answer.status_code, answer.json()["code"]) == (status, code), (body, answer.text)
        assert answer.headers["content-type"] == "application/problem+json"
    for path in ("/v1/agents/me/assignments", "/v1/agents/me/assignments/stream"):
        refused = client.get(path)
        assert (refused.status_code, refused.json()["code"]) == (401, "auth/missing")
    # A held wait and the stream both end when the token expires. Its ``exp`` counts from
    # the whole second it was minted in, so one second of life can be gone at once.
    short = auth(mint_token(games=[GAME], ttl_s=2))
    started = time.monotonic()
    held = client.get("/v1/agents/me/assignments", params={"wait": 30}, headers=short)
    assert held.status_code == 200 and held.json()["assignments"] == []
    with client.stream("GET", "/v1/agents/me/assignments/stream", headers=short) as stream:
        assert stream.status_code in (200, 401)  # 401 once the token has run out already
        list(stream.iter_lines())
    assert time.monotonic() - started < 5
    # A stream closes at its longest life too, however long its token lives.
    assert isinstance(client.app, FastAPI)
    client.app.state.settings = client.app.state.settings.model_copy(
        update={"assignment_stream_max_s": 0.5})
    started = time.monotonic()
    with client.stream("GET", "/v1/agents/me/assignments/stream",
                       headers=auth(mint_token(games=[GAME]))) as stream:
        assert stream.status_code == 200
        list(stream.iter_lines())
    assert time.monotonic() - started < 5
    bad_after = client.get("/v1/agents/me/assignments", params={"after": "x"},
                           headers=auth(mint_token(games=[GAME])))
    assert (bad_after.status_code, bad_after.json()["code"]) == (422, "request/invalid")
    missing = client.get("/v1/tournaments/tn_0000000000000000")
    assert (missing.status_code, missing.json()["code"]) == (404, "tournament/not_found")
    assert client.post("/v1/tournaments/tn_0000000000000000/cancel",
                       headers=organiser_headers).json()["code"] == "tournament/not_found"


def test_a_private_tournament_is_the_organisers_alone(
    client: TestClient, organiser_headers: dict[str, str]
) -> None:
    created = client.post("/v1/tournaments", json=_body(private=True, boards=1),
                          headers=organiser_headers).json()
    assert created["private"] is True
    assert client.get(f"/v1/tournaments/{created['id']}").status_code == 404
    assert created["id"] not in [t["id"] for t in client.get("/v1/tournaments").json()["tournaments"]]
    listed = client.get("/v1/tournaments", headers=organiser_headers).json()["tournaments"]
    assert created["id"] in [t["id"] for t in listed]


def test_absent_agents_lose_only_their_turns_and_boards_stay_secret_until_played(
    client: TestClient, settings: Settings, organiser_headers: dict[str, str],
    mint_token: MintToken, auth: Callable[[str], dict[str, str]],
) -> None:
    ann, bob = _register(settings, "Ann", "Bob")
    ann_headers = auth(mint_token(agent_id=ann, name="Ann", games=[GAME]))
    body = _body(seats=3, entrants=[ann, bob, "bot:greedy"], boards=1, turn_timeout_s=0.05,
                 max_concurrent_tables=1, options={"turn_limit_per_seat": 2})
    created = client.post("/v1/tournaments", json=body, headers=organiser_headers)
    assert created.status_code == 201, created.text
    tournament_id = created.json()["id"]
    page = client.get("/v1/agents/me/assignments", params={"wait": 5},
                      headers=ann_headers).json()
    assert page["assignments"], page
    first = page["assignments"][0]
    assert first["kind"] == "table.assigned" and first["tournament_id"] == tournament_id
    assert set(first) == {"id", "kind", "tournament_id", "table_id", "seat", "game", "at"}
    table = client.get(f"/v1/tables/{first['table_id']}", headers=ann_headers).json()
    assert table["seated"][first["seat"]]["agent_id"] == ann
    assert "board" not in json.dumps(table) and "tournament" not in json.dumps(table)
    # A refused action at a tournament table is counted for the report.
    # (A stale version is no refusal of the action itself: try until the action is judged.)
    for _attempt in range(50):
        observation = client.get(f"/v1/tables/{first['table_id']}/observation",
                                 headers=ann_headers).json()
        refused = client.post(f"/v1/tables/{first['table_id']}/actions", headers=ann_headers,
                              json={"version": observation["version"], "action": "no-such-action"})
        if refused.json()["code"].startswith("action/"):
            break
        assert refused.json()["code"] == "table/stale_version", refused.text
    else:
        raise AssertionError("the clocks never left the table still for one request")
    # The first table ends (the clocks play Ann and Bob); two more of its board remain.
    give_up = time.monotonic() + 10
    while client.get(f"/v1/tables/{first['table_id']}",
                     headers=ann_headers).json()["status"] != "finished":
        assert time.monotonic() < give_up
        time.sleep(0.05)
    shown = client.get(f"/v1/tournaments/{tournament_id}", headers=ann_headers).json()
    if shown["status"] == "running":
        embargoed = client.get(f"/v1/tables/{first['table_id']}/replay", headers=ann_headers)
        assert (embargoed.status_code, embargoed.json()["code"]) == (409, "replay/embargoed")
        assert shown["tables"] == []
        assert client.get(f"/v1/tournaments/{tournament_id}/results").json()["board_seeds"] == {}
        assert client.get(f"/v1/tournaments/{tournament_id}/replays.jsonl").text == ""
        early = client.get(f"/v1/tournaments/{tournament_id}/report")
        assert (early.status_code, early.json()["code"]) == (409, "tournament/not_finished")
    shown = _wait_finished(client, tournament_id, organiser_headers, timeout_s=20)
    replay = client.get(f"/v1/tables/{first['table_id']}/replay", headers=ann_headers).json()
    seeds = client.get(f"/v1/tournaments/{tournament_id}/results").json()["board_seeds"]
    assert replay["seed"] == seeds["0"]
    assert any(entry["by"] == "timeout" for entry in replay["log"])
    everything = client.get("/v1/agents/me/assignments", headers=ann_headers).json()
    kinds = [entry["kind"] for entry in everything["assignments"]]
    assert kinds.count("table.assigned") == 3 and kinds[-1] == "tournament.finished"
    after_last = client.get("/v1/agents/me/assignments", headers=ann_headers,
                            params={"after": everything["last_id"], "wait": 0.1}).json()
    assert after_last["assignments"] == []
    report = client.get(f"/v1/tournaments/{tournament_id}/report").json()
    assert report["decisions"][ann]["refused"] == 1
    assert report["decisions"][ann]["timeouts"] == report["decisions"][ann]["decisions"] > 0
    assert report["decisions"]["bot:greedy"]["timeouts"] == 0
    # The same assignments as Server-Sent Events, from the start.
    frames: list[str] = []
    with client.stream("GET", "/v1/agents/me/assignments/stream", headers=ann_headers) as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        for line in stream.iter_lines():
            frames.append(line)
            if line == "event: tournament.finished":
                break
    assert frames.count("event: table.assigned") == 3
    assert f"id: {everything['last_id']}" in frames


def _ttl(settings: Settings, key: str) -> int:
    """The seconds ``key`` has left (-1: no expiry), asked of the Redis the app uses."""
    async def ask() -> int:
        store = connect(settings.redis_url or "")
        try:
            return int(await store.ttl(key))
        finally:
            await close_client(store)

    return asyncio.run(ask())


@pytest.mark.redis_cluster
def test_cancel_closes_running_tables_and_nobody_wins(
    client: TestClient, settings: Settings, organiser_headers: dict[str, str],
    mint_token: MintToken, auth: Callable[[str], dict[str, str]],
) -> None:
    (cleo,) = _register(settings, "Cleo")
    organiser_token = auth(mint_token(agent_id="org-1", name="Org", kind="organiser"))
    body = _body(entrants=[cleo, "bot:greedy"], turn_timeout_s=60, boards=3)
    created = client.post("/v1/tournaments", json=body, headers=organiser_token)
    assert created.status_code == 201, created.text
    tournament_id = created.json()["id"]
    give_up = time.monotonic() + 5
    while client.get(f"/v1/tournaments/{tournament_id}").json()["progress"]["running"] < 2:
        assert time.monotonic() < give_up
        time.sleep(0.05)
    cancelled = client.post(f"/v1/tournaments/{tournament_id}/cancel", headers=organiser_headers)
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    again = client.post(f"/v1/tournaments/{tournament_id}/cancel", headers=organiser_headers)
    assert (again.status_code, again.json()["code"]) == (409, "tournament/finished")
    time.sleep(0.3)  # the scheduler would have created more by now
    tables = client.get(f"/v1/tournaments/{tournament_id}", headers=organiser_token).json()["tables"]
    created_tables = [table for table in tables if table["status"] != "waiting"]
    assert len(created_tables) == 2
    for table in created_tables:
        shown = client.get(table["url"], headers=organiser_token).json()
        assert shown["status"] == "finished" and shown["outcome"]["winners"] == []
        assert shown["outcome"]["reason"] == "cancelled"
        # Kept as long as any finished table, not for ever.
        assert isinstance(client.app, FastAPI)
        ttl = _ttl(settings, client.app.state.keys.table(shown["id"], "table"))
        assert settings.finished_table_ttl_s - 60 < ttl <= settings.finished_table_ttl_s
    # Its entrant's assignment loop ends on a cancel as on a finish.
    told = client.get("/v1/agents/me/assignments",
                      headers=auth(mint_token(agent_id=cleo, name="Cleo"))).json()["assignments"]
    assert [entry["kind"] for entry in told].count("tournament.finished") == 1
    assert told[-1]["kind"] == "tournament.finished" and told[-1]["tournament_id"] == tournament_id


def test_rated_tables_feed_the_leaderboard_once(
    client: TestClient, organiser_headers: dict[str, str], mint_token: MintToken,
    auth: Callable[[str], dict[str, str]],
) -> None:
    assert client.get("/v1/games/chess/leaderboard").json()["code"] == "game/not_found"
    assert client.get(f"/v1/games/{GAME}/leaderboard").json()["tables"] == 0
    organiser_token = auth(mint_token(agent_id="org-1", name="Org", kind="organiser"))
    table = client.post("/v1/tables", headers=organiser_token, json={
        "game": GAME, "mode": "family", "seats": 2, "options": SHORT, "join": False, "rated": True,
        "house_bots": [{"seat": 0, "bot": "greedy"}, {"seat": 1, "bot": "random"}]})
    assert table.status_code == 201, table.text
    tournament_id = client.post("/v1/tournaments", json=_body(rated=True, boards=1),
                                headers=organiser_headers).json()["id"]
    _wait_finished(client, tournament_id, organiser_headers)
    give_up = time.monotonic() + 5
    while client.get(f"/v1/tables/{table.json()['id']}").json()["status"] != "finished":
        assert time.monotonic() < give_up
        time.sleep(0.05)
    board = client.get(f"/v1/games/{GAME}/leaderboard").json()
    assert board["tables"] == 3
    assert {rating["entrant"] for rating in board["ratings"]} == {"bot:greedy", "bot:random"}
    assert {rating["name"] for rating in board["ratings"]} == {"greedy bot", "random bot"}
    assert all(rating["games"] == 3 for rating in board["ratings"])


def test_a_swiss_tournament_plans_each_round_once_the_last_is_over(
    client: TestClient, organiser_headers: dict[str, str]
) -> None:
    two_copies = ["bot:greedy#1", "bot:greedy#2"]  # two copies of one bot, told apart
    created = client.post("/v1/tournaments", json=_body(format="swiss", boards=3,
                                                         entrants=two_copies),
                          headers=organiser_headers)
    assert created.status_code == 201, created.text
    assert created.json()["progress"]["total"] == 3  # round 0 planned, two more to come
    shown = _wait_finished(client, created.json()["id"], organiser_headers)
    assert shown["progress"]["done"] == 3
    results = client.get(f"/v1/tournaments/{created.json()['id']}/results").json()["results"]
    assert sorted((result["round"], result["board"]) for result in results) == [
        (0, 0), (1, 1), (2, 2)]
    assert {standing["name"] for standing in shown["standings"]} == {
        "greedy bot #1", "greedy bot #2"}


def test_the_ladder_sweep_rates_a_table_whose_finisher_died_once(
    client: TestClient, settings: Settings, mint_token: MintToken,
    auth: Callable[[str], dict[str, str]],
) -> None:
    organiser_token = auth(mint_token(agent_id="org-1", name="Org", kind="organiser"))
    table_id = client.post("/v1/tables", headers=organiser_token, json={
        "game": GAME, "mode": "family", "seats": 2, "options": SHORT, "join": False,
        "rated": True, "house_bots": [{"seat": 0, "bot": "greedy"}, {"seat": 1, "bot": "random"}],
    }).json()["id"]
    give_up = time.monotonic() + 5
    while client.get(f"/v1/tables/{table_id}").json()["status"] != "finished":
        assert time.monotonic() < give_up
        time.sleep(0.05)
    assert client.get(f"/v1/games/{GAME}/leaderboard").json()["tables"] == 1
    namespace = settings.redis_namespace

    async def lose_the_ladder_write_and_make_the_sweep_due() -> None:
        redis_client = connect(settings.redis_url or "")
        try:
            await redis_client.delete(f"{namespace}:ladder:{{{GAME}}}:results",
                                      f"{namespace}:ladder:{{{GAME}}}:order")
            pending = f"{namespace}:ladder:pending"
            assert await redis_client.zscore(pending, f"{GAME} {table_id}") is not None
            await redis_client.zadd(pending, {f"{GAME} {table_id}": 0})
        finally:
            await close_client(redis_client)

    asyncio.run(lose_the_ladder_write_and_make_the_sweep_due())
    give_up = time.monotonic() + 5
    while client.get(f"/v1/games/{GAME}/leaderboard").json()["tables"] == 0:
        assert time.monotonic() < give_up, "the sweep did not rate the table"
        time.sleep(0.05)
    time.sleep(0.3)  # further sweeps find it rated and pending no more
    board = client.get(f"/v1/games/{GAME}/leaderboard").json()
    assert board["tables"] == 1 and all(rating["games"] == 1 for rating in board["ratings"])


def test_a_bundle_with_a_seat_lost_on_time_verifies(
    client: TestClient, settings: Settings, organiser_headers: dict[str, str],
) -> None:
    """An entrant that never moves loses its rated tables on time; the bundle's replays
    (the clock's moves recorded as ``timeout`` in the log) reach those results again."""
    (idler,) = _register(settings, "Idler")
    body = _body(entrants=[idler, "bot:greedy"], boards=1, turn_timeout_s=0.05, rated=True,
                 options={"turn_limit_per_seat": 2})
    created = client.post("/v1/tournaments", json=body, headers=organiser_headers)
    assert created.status_code == 201, created.text
    tournament_id = created.json()["id"]
    assert _wait_finished(client, tournament_id, organiser_headers)["status"] == "finished"
    bundle = client.get(f"/v1/tournaments/{tournament_id}/bundle",
                        headers=organiser_headers).json()
    assert len(bundle["replays"]) == len(bundle["results"]) == 2
    for result in bundle["results"]:
        assert result["placements"][result["seating"].index(idler)] == 2  # lost on time
    assert all(entry["by"] != "agent" for replay in bundle["replays"] for entry in replay["log"])
    assert verify_bundle(bundle) == []


def test_an_entrant_forfeits_a_tournament_table_and_the_bundle_still_verifies(
    client: TestClient, settings: Settings, organiser_headers: dict[str, str],
    mint_token: MintToken, auth: Callable[[str], dict[str, str]],
) -> None:
    """An entrant that cannot play on closes its tables: each is forfeited (it places
    last, the others share first), the tournament goes on, and the bundle's forfeited
    tables verify (every logged action replays, the game had not ended)."""
    from tournament.bundle import verify_bundle

    dana, eve = _register(settings, "Dana", "Eve")
    dana_headers = auth(mint_token(agent_id=dana, name="Dana", games=[GAME]))
    body = _body(seats=3, entrants=[dana, eve, "bot:greedy"], boards=1, turn_timeout_s=60,
                 max_concurrent_tables=3, rated=True)
    created = client.post("/v1/tournaments", json=body, headers=organiser_headers)
    assert created.status_code == 201, created.text
    tournament_id = created.json()["id"]
    stranger = auth(mint_token(agent_id="agt-nobody", name="Nobody", games=[GAME]))
    forfeited: list[str] = []
    give_up = time.monotonic() + 15
    while len(forfeited) < 3:  # an entrant's tables come one at a time
        assert time.monotonic() < give_up, forfeited
        for entry in client.get("/v1/agents/me/assignments", params={"wait": 1},
                                headers=dana_headers).json()["assignments"]:
            if entry["kind"] != "table.assigned" or entry["table_id"] in forfeited:
                continue
            # Only a seated entrant may give a tournament table up.
            refused = client.post(f"/v1/tables/{entry['table_id']}/close", headers=stranger)
            assert refused.status_code in (403, 404), refused.text
            closed = client.post(f"/v1/tables/{entry['table_id']}/close", headers=dana_headers)
            assert closed.status_code == 200, closed.text
            outcome = closed.json()["outcome"]
            assert (outcome["reason"], outcome["eliminated"]) == ("forfeit", [entry["seat"]])
            forfeited.append(entry["table_id"])
    shown = _wait_finished(client, tournament_id, organiser_headers)
    assert shown["status"] == "finished"
    results = client.get(f"/v1/tournaments/{tournament_id}/results").json()["results"]
    for result in results:
        places = dict(zip(result["seating"], result["placements"], strict=True))
        # Eve never moved (rated tables): at a forfeited table that is no loss on time.
        assert places[dana] == 3 and places[eve] == places["bot:greedy"] == 1
    bundle = client.get(f"/v1/tournaments/{tournament_id}/bundle", headers=organiser_headers)
    assert bundle.status_code == 200, bundle.text
    assert verify_bundle(bundle.json()) == []
