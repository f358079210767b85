"""A whole game through the HTTP API: no response to any seat names a card it may not see.

After every move, every seat (and a spectator) observes, reads its new events
and tries an action out of turn; each response's text is scanned for the card
ids that :func:`engine.<game>.audit.hidden_from` says that reader may not see,
using the state read through the store at that moment.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import random
import re
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient

from engine.registry import all_games, get_game, package_of
from gateway.config import Settings
from gateway.services.records import TableRecord
from gateway.store.connection import Keys, close_client, connect
from gateway.store.tables import TableStore

_TOKEN = re.compile(r"[A-Za-z0-9.+_\-]+")


def audit_of(game_name: str) -> Any:
    """The game's ``audit`` module (its independent statement of what each seat may not see)."""
    return importlib.import_module(f"{package_of(game_name)}.audit")


def read_state(settings: Settings, table_id: str) -> tuple[Any, TableRecord]:
    """The table's current engine state and record, read through the store (on one Redis
    or a cluster)."""

    async def load() -> tuple[Any, TableRecord]:
        url = settings.redis_url or ""
        client = connect(url)
        try:
            snapshot = await TableStore(client, Keys.for_url(settings.redis_namespace, url)).load(
                table_id)
        finally:
            await close_client(client)
        assert snapshot is not None and snapshot.state is not None
        record = TableRecord.model_validate_json(snapshot.record_json)
        return get_game(record.game).state_model.model_validate_json(snapshot.state), record

    return asyncio.run(load())


def leaked(response: httpx2.Response, hidden: frozenset[str]) -> set[str]:
    """Hidden card ids that appear as whole tokens in a response body."""
    return leaked_in(response.text, hidden)


def leaked_in(text: str, hidden: frozenset[str]) -> set[str]:
    """Hidden card ids that appear as whole tokens in ``text``."""
    return set(_TOKEN.findall(text)) & hidden


def without_since(observation: dict[str, Any], told: dict[int, Any]) -> str:
    """An observation's JSON without its "since your last move" events and summary lines,
    once each of those events is checked to be one the reader's own event polls gave it.

    Those events repeat what the seat was told when they happened (and scanned then):
    a card it saw taken may be hidden from it now, in another hand, and still be
    named in the old event it was told.
    """
    since = observation.get("since_your_last_move")
    if since is None:
        return json.dumps(observation)
    for event in since:
        assert told.get(event["id"]) == event, ("not an event this seat was told", event)
    head, _, rest = observation["summary"].partition("\n\n")
    assert head.startswith(("Since your last move", "Since the table began")), head
    return json.dumps({**observation, "since_your_last_move": None, "summary": rest})


@pytest.mark.parametrize("game_name", sorted(all_games()))
def test_no_response_names_a_card_its_reader_may_not_see(
    game_name: str, client: TestClient, settings: Settings,
    mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    audit = audit_of(game_name)
    mode = get_game(game_name).info.modes[0]
    count = max(mode.min_seats, 3)
    seats = [auth(mint_token(agent_id=f"agent-{i}", name=f"p{i}", games=(game_name,)))
             for i in range(count)]
    organiser = auth(mint_token(agent_id="org", name="org", kind="organiser"))
    created = client.post("/v1/tables", json={"game": game_name, "mode": mode.name, "seats": count,
                                              "seed": 18, "join": False}, headers=organiser).json()
    table_id = created["id"]
    for headers in seats:
        client.post(f"/v1/tables/{table_id}/join", headers=headers)
    readers: list[tuple[int | None, dict[str, str]]] = [*enumerate(seats), (None, {})]
    cursors = {seat: 0 for seat, _ in readers}
    rng = random.Random(3)
    scanned = 0
    cards_seen: set[str] = set()
    told: dict[int | None, dict[int, Any]] = {seat: {} for seat, _ in readers}
    """Per reader, every event its /events polls gave it (each scanned when it came)."""
    before: Any = None
    for _move in range(3000):
        state, record = read_state(settings, table_id)
        for seat, headers in readers:
            hidden = audit.hidden_from(state, seat)
            # Events of the last move may name what the seat knew before it (a card it
            # gave away): they may not name a card hidden both before and after.
            hidden_then = hidden & audit.hidden_from(before, seat) if before is not None else hidden
            answers = [
                client.get(f"/v1/tables/{table_id}/observation", headers=headers),
                client.get(f"/v1/tables/{table_id}/events", params={"after": cursors[seat]},
                           headers=headers),
                client.get(f"/v1/tables/{table_id}", headers=headers),
            ]
            if seat is not None and record.status == "playing":
                answers.append(client.post(f"/v1/tables/{table_id}/actions", headers=headers,
                                           json={"version": 0, "action": "end"}))
            for event in answers[1].json()["events"]:
                told[seat][event["id"]] = event
            for index, answer in enumerate(answers):
                assert answer.status_code < 500, answer.text
                secret = hidden_then if index == 1 else hidden
                text = answer.text
                if index == 0:
                    text = without_since(answer.json(), told[seat])
                assert not leaked_in(text, secret), (seat, answer.url, leaked_in(text, secret))
                cards_seen |= set(_TOKEN.findall(text)) & set(audit.card_locations(state))
                scanned += 1
            cursors[seat] = answers[1].json()["last_id"]
        if record.status == "finished":
            break
        observation = client.get(f"/v1/tables/{table_id}/observation",
                                 headers=seats[0]).json()
        actor = observation["to_act"][0]
        mine = client.get(f"/v1/tables/{table_id}/observation", headers=seats[actor]).json()
        choice = rng.choice(mine["legal_actions"])["id"]
        acted = client.post(f"/v1/tables/{table_id}/actions", headers=seats[actor],
                            json={"version": mine["version"], "action": choice})
        assert acted.status_code == 200, acted.text
        after, _record = read_state(settings, table_id)
        secret = audit.hidden_from(state, actor) & audit.hidden_from(after, actor)
        assert not leaked(acted, secret), json.loads(acted.text)
        before = state
    else:
        raise AssertionError("the table did not finish")
    assert scanned > 100
    # The scan is not vacuous: card ids do reach readers allowed to see them.
    assert len(cards_seen) > 20


@pytest.mark.parametrize("game_name", sorted(all_games()))
def test_tournament_routes_name_no_card_while_its_tables_are_played(
    game_name: str, settings: Settings,
    mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
    organiser_headers: dict[str, str],
) -> None:
    """Progress, standings, ratings, results, exports, the report and the assignments name
    no card hidden from anyone at a table still being played, and an embargoed replay
    tells nothing (one board: nothing is published before the end)."""
    from gateway.app import create_app

    quick = settings.model_copy(update={"sweeper_interval_s": 0.01})
    with TestClient(create_app(quick)) as client:
        _scan_tournament(game_name, client, settings, mint_token, auth, organiser_headers)


_SHORT_OPTIONS = {"market-fortune": {"turn_limit_per_seat": 4}}


def _scan_tournament(
    game_name: str, client: TestClient, settings: Settings,
    mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
    organiser_headers: dict[str, str],
) -> None:
    from gateway.store.auth import AuthStore

    audit = audit_of(game_name)
    mode = get_game(game_name).info.modes[0]
    seats = max(mode.min_seats, 3)

    async def register() -> list[str]:
        redis_client = connect(settings.redis_url or "")
        try:
            store = AuthStore(redis_client, Keys(settings.redis_namespace))
            return [(await store.create_agent(name=f"leak{i}", scopes=[f"game:{game_name}"]))[0]
                    .agent_id for i in range(seats - 1)]
        finally:
            await redis_client.aclose()

    agents = asyncio.run(register())
    agent_headers = [auth(mint_token(agent_id=agent, name=agent, games=(game_name,)))
                     for agent in agents]
    organiser = auth(mint_token(agent_id="org", name="org", kind="organiser"))
    created = client.post("/v1/tournaments", headers=organiser_headers, json={
        "name": "leaks", "game": game_name, "mode": mode.name, "seats": seats,
        "entrants": [*agents, "bot:random"], "format": "duplicate", "boards": 1,
        "options": _SHORT_OPTIONS.get(game_name, {}),
        "turn_timeout_s": 0.02, "max_concurrent_tables": 1})
    assert created.status_code == 201, created.text
    tournament_id = created.json()["id"]
    base = f"/v1/tournaments/{tournament_id}"
    scanned = embargoes = 0
    for _look in range(2000):
        tables = client.get(base, headers=organiser).json()["tables"]
        secret: set[str] = set()
        finished = []
        for table in tables:
            if table["status"] == "waiting":
                continue
            state, record = read_state(settings, table["table_id"])
            if record.status == "finished":
                finished.append(table["table_id"])
            else:  # no card of a deal still in play may appear anywhere below
                secret |= set(audit.card_locations(state))
        answers = [
            client.get(base), client.get("/v1/tournaments"), client.get(f"{base}/results"),
            client.get(f"{base}/results.csv"), client.get(f"{base}/replays.jsonl"),
            client.get(f"{base}/report"),
            *(client.get("/v1/agents/me/assignments", headers=headers) for headers in agent_headers),
            *(client.get(f"/v1/tables/{table_id}/replay", headers=agent_headers[0])
              for table_id in finished),
        ]
        shown = client.get(base).json()
        if shown["status"] != "running":
            break
        for answer in answers:
            assert answer.status_code < 500, answer.text
            assert not leaked(answer, frozenset(secret)), (answer.url, leaked(answer, frozenset(secret)))
            scanned += 1
        for replay in answers[len(answers) - len(finished):]:
            if replay.status_code == 200:  # every table of the board just ended
                progress = client.get(base).json()["progress"]
                assert progress["done"] == progress["total"]
                continue
            assert replay.json()["code"] == "replay/embargoed" and "seed" not in replay.json()
            embargoes += 1
    else:
        raise AssertionError("the tournament did not finish")
    assert scanned > 20 and embargoes > 0  # not vacuous: scanned mid-board, after a table ended
