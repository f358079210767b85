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

import httpx
import pytest
from fastapi.testclient import TestClient

from engine.registry import all_games, get_game
from gateway.config import Settings
from gateway.services.records import TableRecord
from gateway.store.connection import Keys, connect
from gateway.store.tables import TableStore

_TOKEN = re.compile(r"[A-Za-z0-9.+_\-]+")


def audit_of(game_name: str) -> Any:
    """The game's ``audit`` module (its independent statement of what each seat may not see)."""
    package = type(get_game(game_name)).__module__.split(".")[1]
    return importlib.import_module(f"engine.{package}.audit")


def read_state(settings: Settings, table_id: str) -> tuple[Any, TableRecord]:
    """The table's current engine state and record, read through the store."""

    async def load() -> tuple[Any, TableRecord]:
        client = connect(settings.redis_url or "")
        try:
            snapshot = await TableStore(client, Keys(settings.redis_namespace)).load(table_id)
        finally:
            await client.aclose()
        assert snapshot is not None and snapshot.state is not None
        record = TableRecord.model_validate(snapshot.record)
        return get_game(record.game).state_model.model_validate_json(snapshot.state), record

    return asyncio.run(load())


def leaked(response: httpx.Response, hidden: frozenset[str]) -> set[str]:
    """Hidden card ids that appear as whole tokens in a response body."""
    return set(_TOKEN.findall(response.text)) & hidden


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
    created = client.post("/v1/tables", json={"game": game_name, "mode": mode.name, "seats": count,
                                              "seed": 18}, headers=seats[0]).json()
    table_id = created["id"]
    for headers in seats[1:]:
        client.post(f"/v1/tables/{table_id}/join", headers=headers)
    readers: list[tuple[int | None, dict[str, str]]] = [*enumerate(seats), (None, {})]
    cursors = {seat: 0 for seat, _ in readers}
    rng = random.Random(3)
    scanned = 0
    cards_seen: set[str] = set()
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
            for index, answer in enumerate(answers):
                assert answer.status_code < 500, answer.text
                secret = hidden_then if index == 1 else hidden
                assert not leaked(answer, secret), (seat, answer.url, leaked(answer, secret))
                cards_seen |= set(_TOKEN.findall(answer.text)) & set(audit.card_locations(state))
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
