"""The tables API end to end against a real Redis: lifecycle, actions, errors, a full game."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine.core import replay as engine_replay
from engine.registry import get_game

GAME = "hab-und-gut"
PROBLEM = "application/problem+json"

Headers = dict[str, str]


@pytest.fixture()
def players(mint_token: Callable[..., str], auth: Callable[[str], Headers]) -> list[Headers]:
    """Auth headers of five agents admitted to Hab & Gut."""
    return [auth(mint_token(agent_id=f"agent-{i}", name=f"player{i}", games=(GAME,))) for i in range(5)]


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    """The response is a problem+json document with ``code``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["code"] == code and body["status"] == status
    return body


def create(client: TestClient, headers: Headers, **fields: Any) -> dict[str, Any]:
    """Create a Hab & Gut table (3 seats unless told) and return it."""
    body = {"game": GAME, "mode": "standard", "seats": 3, **fields}
    response = client.post("/v1/tables", json=body, headers=headers)
    assert response.status_code == 201, response.text
    table: dict[str, Any] = response.json()
    return table


def play_out(client: TestClient, table_id: str, seats: dict[int, Headers], limit: int = 3000) -> int:
    """Play every agent seat by its first legal action until the table ends; returns moves."""
    moves = 0
    for _ in range(limit):
        acted = False
        for seat, headers in seats.items():
            observation = client.get(f"/v1/tables/{table_id}/observation", headers=headers).json()
            if observation["status"] == "finished":
                return moves
            if seat in observation["to_act"] and observation["legal_actions"]:
                response = client.post(
                    f"/v1/tables/{table_id}/actions",
                    json={"version": observation["version"],
                          "action": observation["legal_actions"][0]["id"]},
                    headers={**headers, "Idempotency-Key": f"{table_id}-{observation['version']}"},
                )
                assert response.status_code in (200, 409), response.text
                moves += response.status_code == 200
                acted = True
        if not acted:  # bots or another seat are to act: wait for the next event
            first = next(iter(seats.values()))
            last = client.get(f"/v1/tables/{table_id}/observation", headers=first).json()
            client.get(f"/v1/tables/{table_id}/events",
                       params={"after": last["last_event_id"], "wait": 1}, headers=first)
    raise AssertionError("the table did not finish")


@pytest.mark.redis_cluster
def test_create_join_start_and_observe(client: TestClient, players: list[Headers]) -> None:
    table = create(client, players[0])
    assert table["status"] == "open" and table["your_seat"] == 0 and table["version"] == 0
    assert "seed" not in table
    assert client.post(f"/v1/tables/{table['id']}/join", headers=players[1]).json()["your_seat"] == 1
    waiting = client.get(f"/v1/tables/{table['id']}/observation", headers=players[0]).json()
    assert waiting["status"] == "open" and waiting["view"] is None and waiting["legal_actions"] == []
    started = client.post(f"/v1/tables/{table['id']}/join", headers=players[2]).json()
    assert started["status"] == "playing" and started["your_seat"] == 2
    observations = [
        client.get(f"/v1/tables/{table['id']}/observation", headers=h).json() for h in players[:3]
    ]
    for seat, observation in enumerate(observations):
        assert observation["seat"] == seat and observation["view"]["game"] == GAME
        assert observation["summary"]
        assert bool(observation["legal_actions"]) == (seat in observation["to_act"])
    spectator = client.get(f"/v1/tables/{table['id']}/observation").json()
    assert spectator["seat"] is None and spectator["legal_actions"] == []
    listed = client.get("/v1/tables", params={"game": GAME, "status": "playing"}).json()
    assert [t["id"] for t in listed["tables"]] == [table["id"]]
    assert client.get("/v1/tables", params={"status": "open"}).json()["tables"] == []


@pytest.mark.redis_cluster
def test_the_open_listing_holds_joinable_tables_only(
    client: TestClient, players: list[Headers]
) -> None:
    tables = [create(client, players[0], seats=3) for _ in range(3)]
    client.post(f"/v1/tables/{tables[1]['id']}/join", headers=players[1])
    client.post(f"/v1/tables/{tables[1]['id']}/join", headers=players[2])
    first = client.get("/v1/tables", params={"status": "open", "limit": 1}).json()
    second = client.get("/v1/tables", params={"status": "open", "limit": 1,
                                              "offset": first["next_offset"]}).json()
    assert [t["id"] for t in first["tables"] + second["tables"]] == [
        tables[2]["id"], tables[0]["id"]]
    assert second["next_offset"] is None
    everything = client.get("/v1/tables").json()["tables"]
    assert [t["id"] for t in everything] == [t["id"] for t in reversed(tables)]


@pytest.mark.redis_cluster
def test_leave_before_start_and_private_tables_are_not_listed(
    client: TestClient, players: list[Headers]
) -> None:
    table = create(client, players[0], private=True)
    assert client.get("/v1/tables").json()["tables"] == []
    client.post(f"/v1/tables/{table['id']}/join", headers=players[1])
    left = client.post(f"/v1/tables/{table['id']}/leave", headers=players[0]).json()
    assert left["seated"][0]["agent_id"] is None and left["your_seat"] is None
    assert left["status"] == "open"  # another agent still sits there
    assert_problem(client.post(f"/v1/tables/{table['id']}/leave", headers=players[0]), 403,
                   "table/not_seated")
    client.post(f"/v1/tables/{table['id']}/join", headers=players[0])
    assert_problem(client.post(f"/v1/tables/{table['id']}/join", headers=players[0]), 409,
                   "table/already_seated")
    client.post(f"/v1/tables/{table['id']}/join", headers=players[2])
    # Started and private: it no longer exists for an outsider (tests/gateway/test_private_tables.py).
    assert_problem(client.post(f"/v1/tables/{table['id']}/join", headers=players[3]), 404,
                   "table/not_found")
    assert_problem(client.post(f"/v1/tables/{table['id']}/leave", headers=players[1]), 409,
                   "table/started")
    public = create(client, players[3])
    client.post(f"/v1/tables/{public['id']}/join", headers=players[0])
    client.post(f"/v1/tables/{public['id']}/join", headers=players[1])
    assert_problem(client.post(f"/v1/tables/{public['id']}/join", headers=players[4]), 409,
                   "table/full")


def test_action_errors_are_problems_with_codes(client: TestClient, players: list[Headers]) -> None:
    table = create(client, players[0], house_bots=[{"seat": 1, "bot": "random"}])
    table_id = table["id"]
    assert_problem(client.post(f"/v1/tables/{table_id}/actions", json={"version": 0, "action": "x"},
                               headers=players[0]), 409, "table/not_started")
    client.post(f"/v1/tables/{table_id}/join", headers=players[1])
    observation = client.get(f"/v1/tables/{table_id}/observation", headers=players[0]).json()
    version = observation["version"]
    idle_seat = next(s for s in (0, 2) if s not in observation["to_act"])
    idle = players[0] if idle_seat == 0 else players[1]
    url = f"/v1/tables/{table_id}/actions"
    body = assert_problem(client.post(url, json={"version": version, "action": "pass"}, headers=idle),
                          409, "action/not_your_turn")
    assert "to_act" in body
    stale = assert_problem(client.post(url, json={"version": version + 5, "action": "x"},
                                       headers=players[0]), 409, "table/stale_version")
    assert stale["current_version"] == version
    assert_problem(client.post(url, json={"version": version}, headers=players[0]), 422,
                   "request/invalid")
    assert_problem(client.post(url, json={"version": "1", "action": "x"}, headers=players[0]), 422,
                   "request/invalid")
    assert_problem(client.post(url, json={"version": version, "action": "x", "extra": 1},
                               headers=players[0]), 422, "request/invalid")
    assert_problem(client.post(url, content=b"{not json", headers={**players[0],
                               "content-type": "application/json"}), 422, "request/invalid")
    assert_problem(client.post(url, json={"version": version, "action": "x"}, headers=players[3]),
                   403, "table/not_seated")
    assert_problem(client.post(url, json={"version": version, "action": "x"}), 401, "auth/missing")
    assert_problem(client.get("/v1/tables/nope/observation"), 404, "table/not_found")
    assert_problem(client.post("/v1/tables/nope/join", headers=players[0]), 404, "table/not_found")
    assert_problem(client.post("/v1/tables", json={"game": "chess", "mode": "x", "seats": 2},
                               headers=players[0]), 404, "game/not_found")
    assert_problem(client.post("/v1/tables", json={"game": GAME, "mode": "standard", "seats": 9},
                               headers=players[0]), 422, "table/invalid_config")
    assert_problem(client.post("/v1/tables", json={"game": GAME, "mode": "standard", "seats": "3"},
                               headers=players[0]), 422, "request/invalid")
    assert_problem(client.post("/v1/tables", json={"game": GAME, "mode": "standard", "seats": 3,
                                                   "house_bots": [{"seat": 1, "bot": "genius"}]},
                               headers=players[0]), 422, "table/unknown_bot")
    assert_problem(client.get(f"/v1/tables/{table_id}/replay"), 409, "table/not_finished")
    assert_problem(client.delete(f"/v1/tables/{table_id}"), 405, "request/method_not_allowed")
    assert_problem(client.get(f"/v1/tables/{table_id}/nothing-here"), 404, "request/not_found")
    assert_problem(client.get(f"/v1/tables/{table_id}/events/stream",
                              headers={"Last-Event-ID": "abc"}), 422, "request/invalid")


def test_illegal_and_malformed_actions_name_what_is_legal(
    client: TestClient, players: list[Headers]
) -> None:
    table = create(client, players[0], seats=3, house_bots=[{"seat": 1}, {"seat": 2}])
    table_id = table["id"]
    observation = wait_for_my_turn(client, table_id, players[0])
    url = f"/v1/tables/{table_id}/actions"
    malformed = assert_problem(client.post(url, json={"version": observation["version"],
                                                      "action": "no-such-action"},
                                           headers=players[0]), 422, "action/malformed")
    assert malformed["detail"]
    structured = client.post(url, json={"version": observation["version"],
                                        "action": {"kind": "no-such-kind"}}, headers=players[0])
    assert structured.status_code == 422 and structured.json()["code"] in (
        "request/invalid", "action/malformed")


def wait_for_my_turn(client: TestClient, table_id: str, headers: Headers) -> dict[str, Any]:
    """Poll until ``headers``' seat must act (house bots act in the background)."""
    for _ in range(100):
        observation: dict[str, Any] = client.get(
            f"/v1/tables/{table_id}/observation", headers=headers).json()
        if observation["legal_actions"]:
            return observation
        client.get(f"/v1/tables/{table_id}/events",
                   params={"after": observation["last_event_id"], "wait": 1}, headers=headers)
    raise AssertionError("never my turn")


@pytest.mark.redis_cluster
def test_idempotent_retry_is_applied_once_and_a_reused_key_is_refused(
    client: TestClient, players: list[Headers]
) -> None:
    table = create(client, players[0], seats=3, house_bots=[{"seat": 1}, {"seat": 2}])
    observation = wait_for_my_turn(client, table["id"], players[0])
    url = f"/v1/tables/{table['id']}/actions"
    body = {"version": observation["version"], "action": observation["legal_actions"][0]["id"]}
    headers = {**players[0], "Idempotency-Key": "retry-me"}
    first = client.post(url, json=body, headers=headers)
    again = client.post(url, json=body, headers=headers)
    assert first.status_code == again.status_code == 200
    assert _the_action(first.json()) == _the_action(again.json())
    other = {"version": observation["version"], "action": observation["legal_actions"][-1]["id"]}
    if other != body:
        assert_problem(client.post(url, json=other, headers=headers), 409, "idempotency/conflict")
    # Applied once: the version moved on by exactly one step, and however far the table
    # has moved since (house bots), the retry tells the same action.
    assert first.json()["version"] == observation["version"] + 1
    wait_for_my_turn(client, table["id"], players[0])
    late = client.post(url, json=body, headers=headers)
    assert late.status_code == 200 and _the_action(late.json()) == _the_action(first.json())


def _the_action(answer: dict[str, Any]) -> dict[str, Any]:
    """What an action's answer tells of the action itself (its observation is of the
    table as it is when the answer is made)."""
    return {key: answer[key] for key in ("table_id", "version", "action", "events")}


def test_a_retry_after_later_moves_tells_the_same_action_and_the_table_now(
    client: TestClient, players: list[Headers]
) -> None:
    table = create(client, players[0], house_bots=[{"seat": 1}, {"seat": 2}])
    url = f"/v1/tables/{table['id']}/actions"
    observation = wait_for_my_turn(client, table["id"], players[0])
    sent: list[tuple[str, dict[str, Any], Any]] = []
    while observation["legal_actions"]:  # until the turn passes to the bot
        body = {"version": observation["version"], "action": observation["legal_actions"][0]["id"]}
        key = f"turn-{len(sent)}"
        answer = client.post(url, json=body, headers={**players[0], "Idempotency-Key": key})
        assert answer.status_code == 200, answer.text
        sent.append((key, body, answer.json()))
        observation = answer.json()["observation"]
        if observation["status"] == "finished":
            pytest.skip("the first turn ended the table")
    now = wait_for_my_turn(client, table["id"], players[0])
    assert now["version"] > sent[-1][2]["version"]  # the bot moved since
    for key, body, first in sent:
        late = client.post(url, json=body, headers={**players[0], "Idempotency-Key": key})
        assert late.status_code == 200, late.text
        assert _the_action(late.json()) == _the_action(first)
        # Its observation is the seat's as it is now: what GET .../observation says.
        assert late.json()["observation"] == client.get(
            f"/v1/tables/{table['id']}/observation", headers=players[0]).json()
        assert late.json()["status"] == now["status"]


def test_full_game_against_house_bots_ends_with_a_matching_replay(
    client: TestClient, players: list[Headers]
) -> None:
    table = create(client, players[0], seats=3, seed=7,
                   house_bots=[{"seat": 1, "bot": "random"}, {"seat": 2, "bot": "greedy"}])
    started = time.monotonic()
    play_out(client, table["id"], {0: players[0]})
    assert time.monotonic() - started < 60
    replay = client.get(f"/v1/tables/{table['id']}/replay").json()
    assert replay["seed"] == 7 and replay["outcome"] is not None
    assert [entry["version"] for entry in replay["log"]] == sorted(e["version"] for e in replay["log"])
    assert {entry["by"] for entry in replay["log"]} == {"agent", "house_bot"}
    game = get_game(GAME)
    rebuilt = engine_replay(
        game, game.config_model.model_validate(replay["config"]), replay["seed"],
        [(entry["seat"], entry["action"]) for entry in replay["log"]],
    )
    assert rebuilt.model_dump(mode="json") == replay["final_state"]
    finished = replay["events"][-1]
    assert finished["kind"] == "table.finished"
    # It says who won in short; the game's own end event before it says how (not twice).
    assert finished["text"] != replay["events"][-2]["text"]
    assert finished["text"].startswith("The table is over (")
    assert (f"seat {replay['outcome']['winners'][0]} wins" in finished["text"]
            if len(replay["outcome"]["winners"]) == 1 else "share the win" in finished["text"])
    assert_problem(client.post(f"/v1/tables/{table['id']}/actions",
                               json={"version": 0, "action": "x"}, headers=players[0]),
                   409, "table/finished")


def test_game_scope_is_checked(
    client: TestClient, players: list[Headers],
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    other_game = auth(mint_token(agent_id="mf-only", name="mf", games=("market-fortune",)))
    assert_problem(client.post("/v1/tables", headers=other_game,
                               json={"game": GAME, "mode": "standard", "seats": 3}),
                   403, "auth/wrong_scope")
    table = create(client, players[0])
    assert_problem(client.post(f"/v1/tables/{table['id']}/join", headers=other_game), 403,
                   "auth/wrong_scope")


@pytest.mark.redis_cluster
def test_racing_for_the_last_seat_seats_exactly_one(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    racers = [auth(mint_token(agent_id=f"racer-{i}", name=f"r{i}", games=(GAME,))) for i in range(8)]
    table = create(client, racers[0], seats=3, house_bots=[{"seat": 1}])
    answers: list[Any] = []
    barrier = threading.Barrier(7)

    def join(headers: Headers) -> None:
        barrier.wait()
        answers.append(client.post(f"/v1/tables/{table['id']}/join", headers=headers))

    threads = [threading.Thread(target=join, args=(h,)) for h in racers[1:]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(a.status_code for a in answers) == [200] + [409] * 6
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"table/full"}
    final = client.get(f"/v1/tables/{table['id']}").json()
    assert final["status"] == "playing"
    assert sum(s["kind"] == "agent" for s in final["seated"]) == 2


def test_variants_are_passed_to_the_game_and_unknown_ones_refused(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    game = get_game("market-fortune")
    me = auth(mint_token(agent_id="variant", name="v", games=("market-fortune",)))
    variant = next(iter(game.info.variants))
    made = client.post("/v1/tables", headers=me, json={
        "game": "market-fortune", "mode": "family", "seats": 2, "variants": [variant]})
    assert made.status_code == 201 and made.json()["variants"] == [variant]
    assert_problem(client.post("/v1/tables", headers=me, json={
        "game": "market-fortune", "mode": "family", "seats": 2, "variants": ["no-such-rule"]}),
        422, "table/invalid_config")
    wrong_mode = assert_problem(client.post("/v1/tables", headers=me, json={
        "game": "market-fortune", "mode": "no-such-mode", "seats": 2}), 422, "table/invalid_config")
    # The detail names the first reason itself: many clients print only the detail.
    assert wrong_mode["detail"].startswith("The table configuration does not fit this game (mode: ")
    assert wrong_mode["errors"][0]["loc"] == ["mode"]
    assert_problem(client.post("/v1/tables", headers=me, json={
        "game": "market-fortune", "mode": "family", "seats": 2,
        "house_bots": [{"seat": 2}]}), 422, "table/invalid_config")


@pytest.mark.parametrize("value", ["1", True, 1.0, "1e3", [1]])
def test_an_option_of_the_wrong_type_is_refused_not_coerced(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers], value: Any,
) -> None:
    """``options`` went to the game's config model in lax mode: ``"1"``, ``true`` and
    ``1.0`` were silently read as the integer 1 (``true`` set a turn limit of one),
    where every other request field refuses a wrong type."""
    me = auth(mint_token(agent_id="typed", name="t", games=("market-fortune",)))
    body = {"game": "market-fortune", "mode": "family", "seats": 2, "house_bots": [{"seat": 1}]}
    refused = client.post("/v1/tables", headers=me,
                          json={**body, "options": {"turn_limit_per_seat": value}})
    problem = assert_problem(refused, 422, "table/invalid_config")
    assert problem["errors"][0]["loc"] == ["turn_limit_per_seat"]
    made = client.post("/v1/tables", headers=me, json={**body, "options": {"turn_limit_per_seat": 1}})
    assert made.status_code == 201, made.text


@pytest.mark.parametrize("option", [{"mode": "family"}, {"seats": 3}, {"variants": ["x"]}])
def test_an_option_naming_a_request_field_is_refused_not_dropped(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
    option: dict[str, Any],
) -> None:
    """``options: {"seats": 3}`` beside ``seats: 2`` was silently dropped (the request's
    own field won): a client that put a field in the wrong place got a table it did not
    ask for, and no word of it."""
    me = auth(mint_token(agent_id="placed", name="p", games=("market-fortune",)))
    body = {"game": "market-fortune", "mode": "fortune", "seats": 2, "options": option}
    problem = assert_problem(client.post("/v1/tables", headers=me, json=body),
                             422, "table/invalid_config")
    assert next(iter(option)) in problem["detail"]
