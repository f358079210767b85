"""The WebSocket for bots (``/v1/ws``) against the real app and Redis: auth once, pushes,
actions answered like HTTP, resume after a reconnect, revocation closes the socket.

The tests of what Redis carries (pushes woken by publishes, actions, resume, revocation)
run on the Redis Cluster and on a Redis without ``CONFIG`` too; the longer ones (two agents
playing a whole game, token expiry) only on the single Redis, where they check the
socket's own logic.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from agents.wire.socket import (
    CLOSE_AUTH_EXPIRED,
    CLOSE_AUTH_FAILED,
    CLOSE_AUTH_REVOKED,
    CLOSE_PROTOCOL,
)
from gateway.app import create_app
from gateway.config import Settings
from gateway.security import PendingRevocation, TokenService
from gateway.services.loaded_table import LoadedTable
from gateway.store.tables import TableStore
from gateway.store.waits import ChangeListener
from tests.gateway.tables_helpers import GAME, agents, seated_table

Auth = Callable[[str], dict[str, str]]


def _until(socket: WebSocketTestSession, kind: str, table_id: str | None = None) -> dict[str, Any]:
    """The next message of ``kind`` (for ``table_id``); the ones before it are skipped."""
    for _ in range(1000):
        message: dict[str, Any] = socket.receive_json()
        if message["type"] == kind and (table_id is None or message.get("table_id") == table_id):
            return message
    raise AssertionError(f"no {kind} message")


def _decision(socket: WebSocketTestSession, table_id: str) -> dict[str, Any]:
    """The next pushed observation at which the seat must decide: past it the table waits
    for this seat (the house bot's moves before it are in flight meanwhile)."""
    while True:
        observation: dict[str, Any] = _until(socket, "observation", table_id)["observation"]
        if observation["legal_actions"]:
            return observation


@contextlib.contextmanager
def _seat_deciding(
    client: TestClient, mint_token: Callable[..., str], name: str,
) -> Iterator[tuple[WebSocketTestSession, dict[str, str], str, dict[str, Any]]]:
    """The socket of a new agent ``name`` (its headers, its table against a house bot and
    the pushed decision), once its seat must decide: nothing moves then but this seat."""
    headers = {"Authorization": f"Bearer {mint_token(agent_id=name, name=name, games=(GAME,))}"}
    table_id = _bot_table(client, headers)
    with client.websocket_connect("/v1/ws", headers=headers) as socket:
        socket.receive_json()
        socket.send_json({"type": "subscribe", "table_id": table_id})
        yield socket, headers, table_id, _decision(socket, table_id)


def _without_instance(problem: dict[str, Any]) -> dict[str, Any]:
    """An HTTP problem document as the socket sends it: the same, but for ``instance``
    (HTTP's request path)."""
    return {key: value for key, value in problem.items() if key != "instance"}


def _bot_table(client: TestClient, headers: dict[str, str]) -> str:
    """A started Market Fortune table with one agent (``headers``) against a house bot."""
    created = client.post("/v1/tables", headers=headers, json={
        "game": GAME, "mode": "family", "seats": 2, "house_bots": [{"seat": 1}]})
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


def _play_over_socket(socket: WebSocketTestSession, table_id: str, *, stop_after: int | None = None,
                      after_version: int = -1, events_after: int | None = 0,
                      told_before: list[tuple[int, int]] | None = None,
                      ) -> tuple[list[int], list[int], dict[str, Any] | None]:
    """Play the first legal action of every pushed observation; returns the versions
    decided at, the event ids read, and the end message (``None`` when stopped early)."""
    socket.send_json({"type": "subscribe", "table_id": table_id, "after_version": after_version,
                      "events_after": events_after})
    decided: list[int] = []
    event_ids: list[int] = []
    known = 0  # the newest event told so far, pushed or in an action's answer
    while True:
        message = socket.receive_json()
        if message["type"] == "events":
            event_ids += [event["id"] for event in message["events"]]
            known = max([known, *event_ids])
        elif message["type"] == "end":
            return decided, event_ids, message
        elif message["type"] == "observation":
            observation = message["observation"]
            if told_before is not None:  # (the decision's last event, the newest one told)
                told_before.append((observation["last_event_id"], known))
            if not observation["legal_actions"]:  # a first subscription's: not a decision
                assert after_version == -1 and not decided
                continue
            if stop_after is not None and len(decided) == stop_after:
                return decided, event_ids, None
            decided.append(observation["version"])
            socket.send_json({"type": "act", "ref": f"r{observation['version']}",
                              "table_id": table_id, "version": observation["version"],
                              "action": observation["legal_actions"][0]["id"],
                              "idempotency_key": f"k{observation['version']}"})
        elif message["type"] == "accepted":
            assert message["result"]["version"] == int(message["ref"][1:]) + 1
            known = max([known, *(event["id"] for event in message["result"]["events"])])
        else:
            raise AssertionError(message)


@pytest.mark.redis_cluster
@pytest.mark.managed_redis
def test_a_whole_game_against_a_house_bot_over_the_socket(
    client: TestClient, mint_token: Callable[..., str], auth: Auth,
) -> None:
    [headers] = agents(mint_token, auth, "ws", 1)
    table_id = _bot_table(client, headers)
    with client.websocket_connect("/v1/ws", headers=headers) as socket:
        welcome = socket.receive_json()
        assert welcome["type"] == "welcome" and welcome["agent_id"] == "ws0"
        told_before: list[tuple[int, int]] = []
        decided, event_ids, end = _play_over_socket(socket, table_id, told_before=told_before)
    assert end is not None and end["observation"]["status"] == "finished"
    # Each decision came after every event before it that the seat may see: pushed, or
    # in the answer to its own action.
    visible = set(event_ids)
    for last_event_id, told in told_before:
        assert told >= max((i for i in visible if i <= last_event_id), default=0), (
            last_event_id, told)
    assert end["observation"]["outcome"] is not None
    assert decided == sorted(set(decided)) and len(decided) > 3  # each decision pushed once
    assert event_ids == sorted(set(event_ids)) and event_ids[0] == 1  # each event once, in order
    # The same events, redacted the same way, as the HTTP long-poll gives this seat.
    polled = client.get(f"/v1/tables/{table_id}/events", headers=headers).json()
    assert [event["id"] for event in polled["events"]][:len(event_ids)] == event_ids[:len(
        polled["events"])]
    log = client.get(f"/v1/tables/{table_id}/replay", headers=headers).json()["log"]
    mine = [entry["version"] - 1 for entry in log if entry["seat"] == 0]
    assert mine == decided  # every decision was applied once, none lost or doubled


@contextlib.contextmanager
def _subscribed(
    client: TestClient, seats: list[dict[str, str]], table_id: str,
) -> Iterator[list[WebSocketTestSession]]:
    """A socket of this one worker for each of the two ``seats``, welcomed and
    subscribed to ``table_id``."""
    with client.websocket_connect("/v1/ws", headers=seats[0]) as first, \
            client.websocket_connect("/v1/ws", headers=seats[1]) as second:
        sockets = [first, second]
        for socket in sockets:
            assert socket.receive_json()["type"] == "welcome"
            socket.send_json({"type": "subscribe", "table_id": table_id})
        yield sockets


def test_two_agents_play_each_other_on_their_own_sockets(
    client: TestClient, mint_token: Callable[..., str], auth: Auth,
) -> None:
    seats = agents(mint_token, auth, "duo", 2)
    table_id = seated_table(client, seats, seed=7)
    with _subscribed(client, seats, table_id) as sockets:
        ended = [False, False]
        for _ in range(2000):
            if all(ended):
                break
            to_act = client.get(f"/v1/tables/{table_id}/observation").json()["to_act"]
            turn = to_act[0] if to_act else ended.index(False)
            message = sockets[turn].receive_json()
            if message["type"] == "end":
                ended[turn] = True
            elif message["type"] == "observation" and message["observation"]["legal_actions"]:
                observation = message["observation"]
                sockets[turn].send_json({
                    "type": "act", "ref": "r", "table_id": table_id,
                    "version": observation["version"],
                    "action": observation["legal_actions"][-1]["id"]})
    assert all(ended)
    assert client.get(f"/v1/tables/{table_id}").json()["status"] == "finished"


@pytest.mark.redis_cluster
@pytest.mark.managed_redis
def test_an_action_is_answered_like_http(
    client: TestClient, mint_token: Callable[..., str], auth: Auth,
) -> None:
    [headers] = agents(mint_token, auth, "same", 1)
    table_id = _bot_table(client, headers)
    observation = client.get(f"/v1/tables/{table_id}/observation", headers=headers,
                             params={"wait": 10}).json()
    over_http = client.post(f"/v1/tables/{table_id}/actions", headers=headers, json={
        "version": observation["version"] + 5, "action": "nonsense"})
    with client.websocket_connect("/v1/ws", headers=headers) as socket:
        socket.receive_json()
        socket.send_json({"type": "act", "ref": "stale", "table_id": table_id,
                          "version": observation["version"] + 5, "action": "nonsense"})
        refused = _until(socket, "problem")
        assert refused["ref"] == "stale" and refused["table_id"] == table_id
        assert refused["problem"] == _without_instance(over_http.json())
        socket.send_json({"type": "act", "ref": "x", "table_id": table_id, "version": "one"})
        invalid = _until(socket, "problem")
        assert invalid["ref"] == "x" and invalid["problem"]["code"] == "request/invalid"
        socket.send_json({"type": "act", "ref": "nowhere", "table_id": "nope", "version": 0,
                          "action": "end"})
        assert _until(socket, "problem")["problem"]["code"] == "table/not_found"
        socket.send_json({"type": "act", "ref": "ok", "table_id": table_id,
                          "version": observation["version"],
                          "action": observation["legal_actions"][0]["id"],
                          "idempotency_key": "once"})
        accepted = _until(socket, "accepted")
        # A retry with the same key is answered again, not applied twice.
        socket.send_json({"type": "act", "ref": "again", "table_id": table_id,
                          "version": observation["version"],
                          "action": observation["legal_actions"][0]["id"],
                          "idempotency_key": "once"})
        again = _until(socket, "accepted")
    assert accepted["ref"] == "ok" and again["ref"] == "again"
    assert again["result"] == accepted["result"]
    assert accepted["result"]["version"] == observation["version"] + 1
    # An observation in the answer only when the seat must decide again at once.
    following = accepted["result"]["observation"]
    assert following is None or (following["legal_actions"]
                                 and following["version"] == accepted["result"]["version"])


@pytest.mark.redis_cluster
@pytest.mark.managed_redis
def test_resume_after_a_reconnect_loses_and_doubles_nothing(
    client: TestClient, mint_token: Callable[..., str], auth: Auth,
) -> None:
    [headers] = agents(mint_token, auth, "resume", 1)
    table_id = _bot_table(client, headers)
    decided: list[int] = []
    event_ids: list[int] = []
    end = None
    for _connection in range(500):
        last_version = decided[-1] if decided else -1
        last_event = event_ids[-1] if event_ids else 0
        with client.websocket_connect("/v1/ws", headers=headers) as socket:
            socket.receive_json()
            more, events, end = _play_over_socket(
                socket, table_id, stop_after=3, after_version=last_version,
                events_after=last_event)
        decided += more
        event_ids += events
        if end is not None:
            break
    assert end is not None
    assert decided == sorted(set(decided))
    assert event_ids == sorted(set(event_ids))
    everything = client.get(f"/v1/tables/{table_id}/events", headers=headers,
                            params={"after": 0}).json()
    assert event_ids[:len(everything["events"])] == [e["id"] for e in everything["events"]]
    log = client.get(f"/v1/tables/{table_id}/replay", headers=headers).json()["log"]
    assert [entry["version"] - 1 for entry in log if entry["seat"] == 0] == decided


def test_the_token_may_come_as_the_first_message(
    client: TestClient, mint_token: Callable[..., str],
) -> None:
    token = mint_token(agent_id="browser", name="browser", games=(GAME,))
    with client.websocket_connect("/v1/ws") as socket:
        socket.send_json({"type": "auth", "token": token})
        assert socket.receive_json()["agent_id"] == "browser"
    with client.websocket_connect("/v1/ws") as socket:
        socket.send_json({"type": "subscribe", "table_id": "t"})
        with pytest.raises(WebSocketDisconnect) as refused:
            socket.receive_json()
    assert refused.value.code == CLOSE_PROTOCOL


@pytest.mark.parametrize("header", ["Bearer not-a-jwt", "Basic abc"])
def test_a_bad_token_closes_the_socket(client: TestClient, header: str) -> None:
    with client.websocket_connect("/v1/ws", headers={"Authorization": header}) as socket, \
            pytest.raises(WebSocketDisconnect) as refused:
        socket.receive_json()
    assert refused.value.code == CLOSE_AUTH_FAILED
    assert refused.value.reason == "auth/invalid"


@pytest.mark.redis_cluster
@pytest.mark.managed_redis
def test_revocation_closes_the_socket_at_once(
    client: TestClient, mint_token: Callable[..., str],
) -> None:
    with _seat_deciding(client, mint_token, "revoked") as (socket, headers, _table_id, _seen):
        # nothing moves now: any later push came after the revocation
        assert client.post("/v1/auth/revoke", headers=headers).status_code < 300
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(100):  # nothing but the close may come now
                message = socket.receive_json()
                assert message["type"] not in ("observation", "events", "accepted"), message
    assert closed.value.code == CLOSE_AUTH_REVOKED
    assert closed.value.reason == "auth/revoked"


def test_while_the_listener_is_down_a_revoked_token_cannot_act_over_its_socket(
    client: TestClient, mint_token: Callable[..., str],
) -> None:
    """An action at the version the socket was told skips the revocation read, because a
    revocation's publish closes the socket. While the listener cannot hear that publish
    (its link is down), the action reads the revocation, as over HTTP, and is refused."""
    with _seat_deciding(client, mint_token, "unheard") as (socket, headers, table_id, observation):
        assert client.portal is not None
        assert isinstance(client.app, FastAPI)
        listener: ChangeListener = client.app.state.waiters.listener
        client.portal.call(listener.aclose)
        assert client.post("/v1/auth/revoke", headers=headers).status_code < 300
        socket.send_json({"type": "act", "ref": "r", "table_id": table_id,
                          "version": observation["version"],
                          "action": observation["legal_actions"][0]["id"], "idempotency_key": "k"})
        answer = _until(socket, "problem")
        assert answer["problem"]["code"] == "auth/revoked", answer
    table = client.get(f"/v1/tables/{table_id}").json()
    assert table["version"] == observation["version"], "the revoked token's action applied"


@pytest.mark.redis_cluster
@pytest.mark.managed_redis
def test_after_a_renewal_the_new_token_holds_the_socket(
    client: TestClient, mint_token: Callable[..., str],
) -> None:
    first, second = (mint_token(agent_id="renewed", name="renewed", games=(GAME,))
                     for _ in range(2))
    with client.websocket_connect("/v1/ws", headers={"Authorization": f"Bearer {first}"}) as socket:
        assert socket.receive_json()["type"] == "welcome"
        socket.send_json({"type": "auth", "token": second})
        _until(socket, "welcome")
        # The worker watches the second token's revocation mark and no longer the first's:
        # a renewal that kept the old watch would hold one per renewal until the socket ends.
        state = client.app.state  # type: ignore[attr-defined]
        first_mark, second_mark = (
            PendingRevocation.of(state.tokens.verify_cached(token), state.keys).revoked_key
            for token in (first, second))
        assert state.waiters.watched(second_mark) and not state.waiters.watched(first_mark)
        # The first token's revocation no longer ends the connection (it would have by
        # the time the subscription answers).
        assert client.post("/v1/auth/revoke",
                           headers={"Authorization": f"Bearer {first}"}).status_code < 300
        time.sleep(0.3)
        table_id = _bot_table(client, {"Authorization": f"Bearer {second}"})
        socket.send_json({"type": "subscribe", "table_id": table_id})
        _decision(socket, table_id)
        # The second one's does, at once.
        assert client.post("/v1/auth/revoke",
                           headers={"Authorization": f"Bearer {second}"}).status_code < 300
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(100):
                message = socket.receive_json()
                assert message["type"] not in ("observation", "events", "accepted"), message
    assert closed.value.code == CLOSE_AUTH_REVOKED


def test_expiry_closes_the_socket(settings: Settings) -> None:
    quick = settings.model_copy(update={"jwt_leeway_s": 0})
    with TestClient(create_app(quick)) as client:
        tokens: TokenService = client.app.state.tokens  # type: ignore[attr-defined]
        # 2 s, not 1: `exp` is whole seconds, so a 1 s token may expire before the upgrade.
        token = tokens.issue(agent_id="expiring", name="expiring", scopes=(), ttl_s=2).token
        with client.websocket_connect(
                "/v1/ws", headers={"Authorization": f"Bearer {token}"}) as socket:
            assert socket.receive_json()["type"] == "welcome"
            with pytest.raises(WebSocketDisconnect) as closed:
                socket.receive_json()
    assert closed.value.code == CLOSE_AUTH_EXPIRED
    assert closed.value.reason == "auth/expired"


def test_a_renewed_token_serves_the_subscriptions_past_the_first_ones_expiry(
        settings: Settings) -> None:
    quick = settings.model_copy(update={"jwt_leeway_s": 0})
    with TestClient(create_app(quick)) as client:
        tokens: TokenService = client.app.state.tokens  # type: ignore[attr-defined]

        def token(ttl_s: int) -> str:
            return tokens.issue(agent_id="renewer", name="renewer", scopes=(f"game:{GAME}",),
                               ttl_s=ttl_s).token

        first = token(2)
        table_id = _bot_table(client, {"Authorization": f"Bearer {first}"})
        with client.websocket_connect(
                "/v1/ws", headers={"Authorization": f"Bearer {first}"}) as socket:
            assert socket.receive_json()["type"] == "welcome"
            socket.send_json({"type": "subscribe", "table_id": table_id, "after_version": -1})
            _until(socket, "observation", table_id)
            socket.send_json({"type": "auth", "token": token(60)})
            _until(socket, "welcome")
            time.sleep(2.2)  # the first token has expired: its subscription must not care
            socket.send_json({"type": "unsubscribe", "table_id": table_id})
            decided, _event_ids, end = _play_over_socket(socket, table_id)
    assert end is not None and end["observation"]["status"] == "finished" and decided


@pytest.mark.redis_cluster
@pytest.mark.managed_redis
def test_a_table_not_visible_is_refused_like_http(
    client: TestClient, mint_token: Callable[..., str], auth: Auth,
) -> None:
    owner, stranger = agents(mint_token, auth, "private", 2)
    created = client.post("/v1/tables", headers=owner, json={
        "game": GAME, "mode": "family", "seats": 2, "private": True}).json()
    over_http = client.get(f"/v1/tables/{created['id']}/observation", headers=stranger)
    with client.websocket_connect("/v1/ws", headers=stranger) as socket:
        socket.receive_json()
        socket.send_json({"type": "subscribe", "table_id": created["id"], "events_after": 0})
        refused = _until(socket, "problem")
    assert refused["problem"] == _without_instance(over_http.json())


@contextlib.contextmanager
def _handovers(
    client: TestClient, seats: list[dict[str, str]], table_id: str, *, pick: int,
) -> Iterator[Iterator[tuple[int, dict[str, Any]]]]:
    """Both seats of ``table_id`` :func:`_subscribed` and pushed their first decision.
    Yields an iterator that plays on, each seat taking the ``pick``-th of its legal
    actions (acting only when iterated), and gives ``(seat, observation)`` each time the
    decision passes to the other seat."""
    with _subscribed(client, seats, table_id) as sockets:
        pushed = [_until(socket, "observation", table_id)["observation"] for socket in sockets]

        def play() -> Iterator[tuple[int, dict[str, Any]]]:
            turn = pushed[0]["to_act"][0]
            observation = pushed[turn]
            while True:
                sockets[turn].send_json({
                    "type": "act", "ref": "r", "table_id": table_id,
                    "version": observation["version"],
                    "action": observation["legal_actions"][pick]["id"]})
                accepted = _until(sockets[turn], "accepted", table_id)
                if accepted["result"]["observation"] is not None:  # still this seat's decision
                    observation = accepted["result"]["observation"]
                    continue
                turn = 1 - turn
                observation = _until(sockets[turn], "observation", table_id)["observation"]
                yield turn, observation

        yield play()


@pytest.mark.redis_cluster
@pytest.mark.managed_redis
def test_a_seat_on_the_committing_worker_is_pushed_the_written_table_without_a_read(
    client: TestClient, mint_token: Callable[..., str], auth: Auth,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both sockets are on this one worker, so every wake comes from its own commit: the
    seat to decide is pushed the table the commit wrote, with no read of the turn stream,
    and the push is the observation a read gives (the same as ``GET .../observation``).
    Its action on that decision is tried on the table it was told, with no read either."""
    seats = agents(mint_token, auth, "local", 2)
    table_id = seated_table(client, seats, seed=11)
    reads: list[str] = []
    loads: list[str] = []
    read_turns, load = TableStore.turns_then_table, TableStore.load_for_action

    async def counted(store: TableStore, table: str, *args: Any, **kwargs: Any) -> Any:
        reads.append(table)
        return await read_turns(store, table, *args, **kwargs)

    async def loaded(store: TableStore, table: str, *args: Any, **kwargs: Any) -> Any:
        loads.append(table)
        return await load(store, table, *args, **kwargs)

    with _handovers(client, seats, table_id, pick=-1) as handovers:
        monkeypatch.setattr(TableStore, "turns_then_table", counted)
        monkeypatch.setattr(TableStore, "load_for_action", loaded)
        for turn, observation in itertools.islice(handovers, 6):
            read = client.get(f"/v1/tables/{table_id}/observation", headers=seats[turn]).json()
            assert observation == read
            assert observation["since_your_last_move"], "the other seat's move is told"
    assert reads == [], "a wake from this worker's own commit read the table again"
    # The test's own GET .../observation reads (one per handover), and no action's.
    assert len(loads) == 6, "an action on the decision just told read the table again"


def _parsed_versions(table_id: str) -> list[int]:
    """The versions of ``table_id`` of which a parsed table is alive in this process."""
    gc.collect()
    return sorted(each.version for each in gc.get_objects()
                  if isinstance(each, LoadedTable) and each.snapshot.table_id == table_id)


@pytest.mark.redis_cluster
@pytest.mark.managed_redis
def test_a_socket_waiting_for_its_partners_holds_no_parsed_table(
    client: TestClient, mint_token: Callable[..., str], auth: Auth,
) -> None:
    """Between its action and its next decision a seat's socket holds no parsed table
    (its own write, and the table it was told, are stale then): the only one alive is
    the one the partner was told and will act on. At thousands of sockets, what each
    holds is what every full collection walks."""
    seats = agents(mint_token, auth, "idle", 2)
    table_id = seated_table(client, seats, seed=12)
    with _handovers(client, seats, table_id, pick=0) as handovers:
        for _turn, observation in itertools.islice(handovers, 3):
            time.sleep(0.1)  # both subscriptions are back to waiting
            assert _parsed_versions(table_id) == [observation["version"]], (
                "a waiting socket held a parsed table besides the one its partner acts on")


@pytest.mark.redis_cluster
@pytest.mark.managed_redis
def test_an_action_on_a_table_moved_on_meanwhile_is_answered_as_over_http(
    client: TestClient, mint_token: Callable[..., str], auth: Auth,
) -> None:
    """The socket acts on the table it told the seat; when the same agent acted over HTTP
    in between, the socket's action is refused as stale, and a retry of the HTTP action's
    key is that action told again, exactly as HTTP answers both."""
    [headers] = agents(mint_token, auth, "moved", 1)
    table_id = _bot_table(client, headers)
    with client.websocket_connect("/v1/ws", headers=headers) as socket:
        socket.receive_json()
        socket.send_json({"type": "subscribe", "table_id": table_id})
        observation = _until(socket, "observation", table_id)["observation"]
        while not observation["legal_actions"]:
            observation = _until(socket, "observation", table_id)["observation"]
        version, action = observation["version"], observation["legal_actions"][0]["id"]
        over_http = client.post(f"/v1/tables/{table_id}/actions", json={
            "version": version, "action": action}, headers={**headers, "Idempotency-Key": "h"})
        assert over_http.status_code == 200, over_http.text
        socket.send_json({"type": "act", "ref": "late", "table_id": table_id,
                          "version": version, "action": action, "idempotency_key": "s"})
        refused = _until(socket, "problem")
        stale_over_http = client.post(f"/v1/tables/{table_id}/actions", json={
            "version": version, "action": action}, headers={**headers, "Idempotency-Key": "t"})
        socket.send_json({"type": "act", "ref": "again", "table_id": table_id,
                          "version": version, "action": action, "idempotency_key": "h"})
        again = _until(socket, "accepted")
    assert refused["ref"] == "late" and refused["problem"]["code"] == "table/stale_version"
    assert refused["problem"]["current_version"] > version
    assert stale_over_http.json()["code"] == "table/stale_version"
    first = over_http.json()
    assert again["ref"] == "again"
    assert (again["result"]["version"], again["result"]["action"], again["result"]["events"]) == (
        first["version"], first["action"], first["events"])
