"""Real gateway processes (uvicorn) on one Redis: two workers share every table.

* a full table played with requests alternating between the two processes,
  and a replay that rebuilds the final state;
* many concurrent submissions for one turn: exactly one is applied; a retry
  with one idempotency key is applied once and answered identically;
* a turn clock running out applies the default action exactly once although
  both processes sweep;
* SSE and long-poll deliver every event once, in order, and resume after a
  disconnect.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from bench.socket_failover import gateway_processes
from engine.core import replay as engine_replay
from engine.registry import get_game
from gateway.config import Settings
from gateway.security import TokenService
from gateway.store.connection import Keys
from tests.conftest import drop_namespace, server_env, sync_client

GAME = "hab-und-gut"
ORGANISER_KEY = "multiworker-organiser-key-0123456789abcdef"




class Cluster:
    """Two gateway processes on one Redis namespace, and a token minter for them."""

    def __init__(self, urls: list[str], settings: Settings) -> None:
        self.urls = urls
        self.settings = settings
        self.tokens = TokenService(settings)

    def headers(self, agent: str) -> dict[str, str]:
        """Auth headers of an agent admitted to Hab & Gut."""
        token = self.tokens.issue(agent_id=agent, name=agent, scopes={f"game:{GAME}"}).token
        return {"Authorization": f"Bearer {token}"}

    def record(self, table_id: str) -> dict[str, Any]:
        """The table's stored record (with its seed), read from Redis."""
        client = sync_client(self.settings.redis_url or "")
        try:
            key = Keys.for_url(self.settings.redis_namespace,
                               self.settings.redis_url or "").table(table_id, "table")
            raw = client.hget(key, "record")
            assert raw is not None
            stored: dict[str, Any] = json.loads(raw)
            return stored
        finally:
            client.close()

    def log(self, table_id: str) -> list[dict[str, Any]]:
        """The table's action log, read from Redis."""
        client = sync_client(self.settings.redis_url or "")
        try:
            key = Keys.for_url(self.settings.redis_namespace,
                               self.settings.redis_url or "").table(table_id, "log")
            return [json.loads(entry) for entry in client.lrange(key, 0, -1)]
        finally:
            client.close()


@pytest.fixture(scope="module")
def cluster(redis_url: str, signing_key_pem: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two uvicorn processes serving the gateway on one Redis namespace."""
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    data_dir = tmp_path_factory.mktemp("multiworker")
    settings = Settings.model_validate({
        "environment": "test", "redis_url": redis_url, "redis_namespace": namespace,
        "data_dir": data_dir, "signing_key_pem": signing_key_pem, "organiser_key": ORGANISER_KEY,
    })
    env = server_env(redis_url, namespace, data_dir, signing_key_pem,
                     AGENTS_CLUB_ORGANISER_KEY=ORGANISER_KEY, AGENTS_CLUB_SWEEPER_INTERVAL_S="0.05")
    try:
        with gateway_processes(env, 2) as (urls, _processes):
            yield Cluster(urls, settings)
    finally:
        drop_namespace(redis_url, namespace)


def new_table(cluster: Cluster, agents: list[str], **fields: Any) -> str:
    """A started Hab & Gut table with ``agents`` seated in order, opened by the organiser
    (who may choose a seed in ``fields``); returns its id."""
    body = {"game": GAME, "mode": "standard", "seats": len(agents), "join": False, **fields}
    organiser = cluster.tokens.issue(agent_id="org", name="org", scopes=(), kind="organiser").token
    created = httpx.post(f"{cluster.urls[0]}/v1/tables", json=body,
                         headers={"Authorization": f"Bearer {organiser}"})
    assert created.status_code == 201, created.text
    table_id: str = created.json()["id"]
    for index, agent in enumerate(agents):
        joined = httpx.post(f"{cluster.urls[(index + 1) % 2]}/v1/tables/{table_id}/join",
                            headers=cluster.headers(agent))
        assert joined.status_code == 200, joined.text
    return table_id


def test_two_processes_play_a_full_table_and_the_replay_matches(cluster: Cluster) -> None:
    agents = [f"mw-{uuid.uuid4().hex[:6]}-{i}" for i in range(3)]
    table_id = new_table(cluster, agents, seed=5)
    headers = {seat: cluster.headers(agent) for seat, agent in enumerate(agents)}
    rng = random.Random(1)
    requests = 0
    with httpx.Client(timeout=10) as http:
        for _ in range(3000):
            url = cluster.urls[requests % 2]
            observation = http.get(f"{url}/v1/tables/{table_id}/observation", headers=headers[0]).json()
            requests += 1
            if observation["status"] == "finished":
                break
            seat = observation["to_act"][0]
            url = cluster.urls[requests % 2]
            mine = http.get(f"{url}/v1/tables/{table_id}/observation", headers=headers[seat]).json()
            requests += 1
            url = cluster.urls[requests % 2]
            acted = http.post(f"{url}/v1/tables/{table_id}/actions", headers=headers[seat],
                              json={"version": mine["version"],
                                    "action": rng.choice(mine["legal_actions"])["id"]})
            requests += 1
            assert acted.status_code == 200, acted.text
        else:
            raise AssertionError("the table did not finish")
        replay = http.get(f"{cluster.urls[1]}/v1/tables/{table_id}/replay").json()
    game = get_game(GAME)
    rebuilt = engine_replay(game, game.config_model.model_validate(replay["config"]), replay["seed"],
                            [(entry["seat"], entry["action"]) for entry in replay["log"]])
    assert rebuilt.model_dump(mode="json") == replay["final_state"]
    assert replay["seed"] == 5 and len(replay["log"]) > 10


def test_concurrent_submissions_for_one_turn_apply_exactly_once(cluster: Cluster) -> None:
    agents = [f"race-{uuid.uuid4().hex[:6]}-{i}" for i in range(3)]
    table_id = new_table(cluster, agents)
    headers = {seat: cluster.headers(agent) for seat, agent in enumerate(agents)}
    first = httpx.get(f"{cluster.urls[0]}/v1/tables/{table_id}/observation", headers=headers[0]).json()
    seat = first["to_act"][0]
    mine = httpx.get(f"{cluster.urls[0]}/v1/tables/{table_id}/observation", headers=headers[seat]).json()
    legal = [action["id"] for action in mine["legal_actions"]]

    async def burst(same_key: bool) -> list[httpx.Response]:
        version = httpx.get(f"{cluster.urls[0]}/v1/tables/{table_id}").json()["version"]
        async with httpx.AsyncClient(timeout=10) as http:
            return await asyncio.gather(*(
                http.post(
                    f"{cluster.urls[i % 2]}/v1/tables/{table_id}/actions",
                    json={"version": version, "action": legal[0] if same_key else legal[i % len(legal)]},
                    headers={**headers[seat],
                             "Idempotency-Key": "one-key" if same_key else f"key-{i}"},
                )
                for i in range(24)
            ))

    answers = asyncio.run(burst(same_key=False))
    applied = [answer for answer in answers if answer.status_code == 200]
    assert len(applied) == 1, [answer.text for answer in answers]
    assert {answer.json()["code"] for answer in answers if answer.status_code != 200} == {
        "table/stale_version"}
    assert len(cluster.log(table_id)) == 1
    # The same seat may still be to act (several steps per turn) or not: find who is.
    now = httpx.get(f"{cluster.urls[1]}/v1/tables/{table_id}/observation", headers=headers[0]).json()
    seat = now["to_act"][0]
    mine = httpx.get(f"{cluster.urls[1]}/v1/tables/{table_id}/observation", headers=headers[seat]).json()
    legal = [action["id"] for action in mine["legal_actions"]]
    retries = asyncio.run(burst(same_key=True))
    assert {answer.status_code for answer in retries} == {200}
    assert len({answer.text for answer in retries}) == 1
    assert len(cluster.log(table_id)) == 2


def test_a_turn_clock_applies_the_default_action_once_with_two_workers(cluster: Cluster) -> None:
    timeout = 0.6
    tables = [
        new_table(cluster, [f"clock-{uuid.uuid4().hex[:6]}-{i}" for i in range(3)],
                  turn_timeout_s=timeout)
        for _ in range(6)
    ]
    started = {
        table_id: httpx.get(f"{cluster.urls[0]}/v1/tables/{table_id}/replay").status_code
        for table_id in tables
    }
    assert set(started.values()) == {409}  # not finished: nobody has acted
    time.sleep(2.2)  # three or four expiries per table, each seen by both sweepers
    for table_id in tables:
        log = cluster.log(table_id)
        assert {entry["by"] for entry in log} == {"timeout"}, log
        assert len(log) >= 2
        # Once per expiry: each default action waits a full clock after the previous one.
        gaps = [later["at"] - earlier["at"] for earlier, later in itertools.pairwise(log)]
        assert min(gaps) >= timeout * 0.95, gaps
        assert [entry["version"] for entry in log] == list(range(log[0]["version"],
                                                                log[0]["version"] + len(log)))
        events = httpx.get(f"{cluster.urls[0]}/v1/tables/{table_id}/events").json()["events"]
        assert [e["kind"] for e in events].count("turn.timeout") >= len(log)
        # What was applied is the game's default action for the seat that ran out of time.
        game = get_game(GAME)
        record = cluster.record(table_id)
        config = game.config_model.model_validate(record["config"])
        for index, entry in enumerate(log):
            before = engine_replay(game, config, record["seed"],
                                   [(e["seat"], e["action"]) for e in log[:index]])
            assert entry["seat"] == game.to_act(before)[0]
            assert entry["action"] == game.default_action(before, entry["seat"]).id


def _sse_events(response: httpx.Response, stop_after: int | None = None) -> list[dict[str, Any]]:
    """Parse SSE frames into ``{id, event, data}``; stop after ``stop_after`` game events."""
    events: list[dict[str, Any]] = []
    frame: dict[str, Any] = {}
    for line in response.iter_lines():
        if line == "":
            if "data" in frame:
                events.append(frame)
                if frame.get("event") == "end":
                    break
                if stop_after is not None and len(events) >= stop_after:
                    break
            frame = {}
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            frame[field] = value.strip()
    return events


def test_sse_and_long_poll_deliver_every_event_once_in_order_and_resume(cluster: Cluster) -> None:
    agents = [f"sse-{uuid.uuid4().hex[:6]}-{i}" for i in range(1)]
    created = httpx.post(
        f"{cluster.urls[0]}/v1/tables",
        json={"game": GAME, "mode": "standard", "seats": 3, "seed": 9,
              "house_bots": [{"seat": 1}, {"seat": 2}]},
        headers=cluster.headers(agents[0]),
    ).json()
    table_id = created["id"]
    me = cluster.headers(agents[0])
    rng = random.Random(2)
    sse_seen: list[int] = []
    with httpx.Client(timeout=30) as http:
        # Start reading over SSE from process 1, disconnect after a few events...
        with http.stream("GET", f"{cluster.urls[1]}/v1/tables/{table_id}/events/stream",
                         headers=me) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            first = _sse_events(stream, stop_after=3)
        sse_seen += [int(frame["id"]) for frame in first]
        # ...play the whole game on process 0...
        for _ in range(3000):
            observation = http.get(f"{cluster.urls[0]}/v1/tables/{table_id}/observation",
                                   headers=me).json()
            if observation["status"] == "finished":
                break
            if observation["legal_actions"]:
                http.post(f"{cluster.urls[0]}/v1/tables/{table_id}/actions", headers=me,
                          json={"version": observation["version"],
                                "action": rng.choice(observation["legal_actions"])["id"]})
            else:
                http.get(f"{cluster.urls[0]}/v1/tables/{table_id}/events", headers=me,
                         params={"after": observation["last_event_id"], "wait": 2})
        else:
            raise AssertionError("the table did not finish")
        # ...and resume with Last-Event-ID on the other process.
        with http.stream("GET", f"{cluster.urls[0]}/v1/tables/{table_id}/events/stream",
                         headers={**me, "Last-Event-ID": str(sse_seen[-1])}) as stream:
            rest = _sse_events(stream)
        assert rest[-1]["event"] == "end"
        sse_seen += [int(frame["id"]) for frame in rest if frame.get("event") != "end"]
        # Long-poll, in small pages with a "disconnect" (a fresh client) in the middle.
        polled: list[int] = []
        after = 0
        for page in range(1000):
            client = http if page % 2 else httpx.Client(timeout=30)
            body = client.get(f"{cluster.urls[page % 2]}/v1/tables/{table_id}/events",
                              headers=me, params={"after": after, "wait": 0.2}).json()
            if client is not http:
                client.close()
            polled += [event["id"] for event in body["events"]][:5]
            after = body["events"][4]["id"] if len(body["events"]) > 5 else body["last_id"]
            if not body["events"]:
                break
        # Everything this seat may see, once, in order; the same on both transports.
        everything = http.get(f"{cluster.urls[1]}/v1/tables/{table_id}/replay").json()["events"]
        # A spectator's stream of the finished table: the public events, and only those.
        with http.stream("GET", f"{cluster.urls[1]}/v1/tables/{table_id}/events/stream") as stream:
            spectator = _sse_events(stream)
    assert spectator[-1]["event"] == "end"
    audience = [event["id"] for event in everything if not event["private"]]
    assert [int(frame["id"]) for frame in spectator[:-1]] == audience
    assert sse_seen == polled
    assert sse_seen == sorted(set(sse_seen))
    assert set(audience) <= set(sse_seen)
    assert len(sse_seen) == len(polled) > 20
