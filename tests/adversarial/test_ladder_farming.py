"""Farming the ladder (issue 33, B3 and B4).

* The sybil: a farmer opened a private rated two-seat table, its own second agent joined
  and never moved, and the turn clock played for it: 10 of 10 wins. An agent now never
  opens a rated table: rated games are drawn by the public rated queue, which seats the
  waiting agents at random and never two that joined from one address at one table.
* The idler: an agent that never moves had the clock play for it and could still be
  rated on the clock's play; it now loses on time, whatever the clock's moves scored.
* The closer: a creator closed its rated tables whenever it was behind, and closed tables
  were not rated. A queue table has no creator to close it, and leaving it during play
  forfeits it: rated as a loss for the leaver, so quitting every table only drags its
  rating down.

The queue probes run on two apps sharing one Redis namespace (two workers), each agent's
requests alternating between them and coming from the address the agent is given, so the
draws race across workers as behind a load balancer.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import pytest
from fastapi.testclient import TestClient
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.app import create_app
from gateway.config import Settings
from gateway.security import TokenService

GAME = "market-fortune"
QUEUE = f"/v1/games/{GAME}/rated-queue"
FAMILY_FOR_TWO = {"mode": "family", "seats": 2}
Headers = dict[str, str]
TABLES = 3


class Agent(NamedTuple):
    agent_id: str
    headers: Headers


ADDRESS_HEADER = "x-test-address"


def from_address(app: ASGIApp) -> ASGIApp:
    """``app`` seeing each request come from the address its ``X-Test-Address`` names, as
    the server sees a proxy's ``X-Forwarded-For`` when it trusts the proxy."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            named = dict(scope["headers"]).get(ADDRESS_HEADER.encode())
            if named is not None:
                scope = {**scope, "client": (named.decode(), 1)}
        await app(scope, receive, send)

    return wrapped


class Gateway:
    """Two workers (apps) on one Redis namespace; an agent's requests alternate between them."""

    def __init__(self, workers: list[TestClient], tokens: TokenService) -> None:
        self.workers = workers
        self.tokens = tokens
        self._turn = itertools.count()

    def agent(self, name: str, address: str) -> Agent:
        token = self.tokens.issue(agent_id=f"agt_{name}", name=name, scopes={f"game:{GAME}"}).token
        return Agent(f"agt_{name}", {"Authorization": f"Bearer {token}", ADDRESS_HEADER: address})

    def send(self, method: str, path: str, who: Agent | None = None, **kwargs: Any) -> Any:
        worker = self.workers[next(self._turn) % len(self.workers)]
        headers = who.headers if who is not None else {}
        return worker.request(method, path, headers=headers, **kwargs)


@pytest.fixture()
def gateway(settings: Settings) -> Iterator[Gateway]:
    """A pool is drawn as soon as it can seat a table."""
    quick = settings.model_copy(update={"rated_queue_gather_s": 0.0})
    first, second = create_app(quick), create_app(quick)
    with TestClient(from_address(first)) as one, TestClient(from_address(second)) as two:
        yield Gateway([one, two], first.state.tokens)


def join(gateway: Gateway, who: Agent) -> dict[str, Any]:
    answer = gateway.send("POST", QUEUE, who, json=FAMILY_FOR_TWO)
    assert answer.status_code == 200, answer.text
    ticket: dict[str, Any] = answer.json()
    return ticket


def seated(gateway: Gateway, who: Agent) -> dict[str, Any]:
    """The agent's ticket once a draw seated it."""
    give_up = time.monotonic() + 20
    while True:
        ticket: dict[str, Any] = gateway.send("GET", QUEUE, who, params={"wait_s": 2}).json()
        if ticket["status"] == "seated":
            return ticket
        assert ticket["status"] == "waiting", ticket
        assert time.monotonic() < give_up, "never drawn"


def ladder(gateway: Gateway, at_least: int) -> dict[str, Any]:
    give_up = time.monotonic() + 15
    while True:
        board: dict[str, Any] = gateway.send("GET", f"/v1/games/{GAME}/leaderboard").json()
        if board["tables"] >= at_least:
            return board
        assert time.monotonic() < give_up, "the results never reached the ladder"
        time.sleep(0.05)


def test_an_agent_never_opens_a_rated_table(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    farmer = auth(mint_token(agent_id="farmer", name="farmer", games=(GAME,)))
    sybil = auth(mint_token(agent_id="sybil", name="sybil", games=(GAME,)))
    against_bots = {"house_bots": [{"seat": 1, "bot": "random"}]}
    for arranged in ({"private": True}, {"private": False}, against_bots):
        refused = client.post("/v1/tables", headers=farmer, json={
            "game": GAME, "mode": "family", "seats": 2, "rated": True, "turn_timeout_s": 1,
            **arranged})
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == "table/rated_not_allowed"
    # Unrated, the same table is still there to practise at, and rates nobody.
    table = client.post("/v1/tables", headers=farmer, json={
        "game": GAME, "mode": "family", "seats": 2, "private": True, "turn_timeout_s": 1})
    assert client.post(f"/v1/tables/{table.json()['id']}/join", headers=sybil).status_code == 200
    assert client.get(f"/v1/games/{GAME}/leaderboard").json()["tables"] == 0


def test_the_sybil_never_meets_its_farmer(gateway: Gateway) -> None:
    """The farmer and its sybil queue from one address beside two honest agents, round
    after round; the sybil hands out its table at once (it leaves: a forfeit). Every one of
    its losses goes to an honest agent, never to the farmer."""
    farmer = gateway.agent("farmer", "198.51.100.1")
    sybil = gateway.agent("sybil", "198.51.100.1")
    honest = [gateway.agent(f"honest-{n}", f"203.0.113.{n}") for n in (1, 2)]
    everyone = [farmer, sybil, *honest]
    for _round in range(TABLES):
        for who in everyone:
            join(gateway, who)
        tickets = {who.agent_id: seated(gateway, who) for who in everyone}
        assert tickets[farmer.agent_id]["table_id"] != tickets[sybil.agent_id]["table_id"]
        left = gateway.send("POST", f"/v1/tables/{tickets[sybil.agent_id]['table_id']}/leave",
                            sybil)
        assert left.status_code == 200, left.text
        assert left.json()["outcome"]["reason"] == "forfeit"
    ratings = {rating["entrant"]: rating for rating in ladder(gateway, TABLES)["ratings"]}
    assert ratings[sybil.agent_id]["games"] == TABLES
    assert farmer.agent_id not in ratings  # its tables are still being played: no free win
    assert ratings[sybil.agent_id]["mu"] < 25  # 25: a newcomer's mu
    assert all(ratings[who.agent_id]["mu"] > 25 for who in honest if who.agent_id in ratings)


def test_the_queue_seats_every_agent_once_across_workers(gateway: Gateway) -> None:
    """Twelve agents join at once through two workers: six tables, each agent at exactly
    one, none lost, each table's seats as its tickets say."""
    agents = [gateway.agent(f"racer-{n}", f"192.0.2.{n}") for n in range(12)]
    with ThreadPoolExecutor(max_workers=12) as pool:
        list(pool.map(lambda who: join(gateway, who), agents))
        tickets = list(pool.map(lambda who: seated(gateway, who), agents))
    tables: dict[str, list[str]] = {}
    for who, ticket in zip(agents, tickets, strict=True):
        tables.setdefault(ticket["table_id"], []).append(who.agent_id)
    assert sorted(len(seats) for seats in tables.values()) == [2] * 6
    for table_id, sitting in tables.items():
        mine = next(who for who in agents if who.agent_id == sitting[0])
        shown = gateway.send("GET", f"/v1/tables/{table_id}", mine)
        assert shown.status_code == 200, shown.text
        assert sorted(seat["agent_id"] for seat in shown.json()["seated"]) == sorted(sitting)
        assert shown.json()["status"] == "playing"


def test_the_leaver_forfeits_what_it_leaves(gateway: Gateway) -> None:
    """The quitter cannot close a queue table (it created none), and leaving it during play
    is rated as its loss: quitting every table drags its rating below its opponent's."""
    quitter = gateway.agent("quitter", "198.51.100.20")
    opponent = gateway.agent("opponent", "198.51.100.21")
    before = ladder(gateway, 0)["tables"]
    for _ in range(TABLES):
        join(gateway, quitter)
        join(gateway, opponent)
        table_id = seated(gateway, quitter)["table_id"]
        closed = gateway.send("POST", f"/v1/tables/{table_id}/close", quitter)
        assert closed.status_code == 403, closed.text
        assert closed.json()["code"] == "table/not_creator"
        left = gateway.send("POST", f"/v1/tables/{table_id}/leave", quitter)
        assert left.status_code == 200, left.text
        assert left.json()["outcome"]["reason"] == "forfeit"
    ratings = {rating["entrant"]: rating
               for rating in ladder(gateway, before + TABLES)["ratings"]}
    assert ratings[quitter.agent_id]["games"] == TABLES
    assert ratings[quitter.agent_id]["mu"] < 25 < ratings[opponent.agent_id]["mu"]
    assert ratings[quitter.agent_id]["ordinal"] < ratings[opponent.agent_id]["ordinal"]


def test_an_agent_that_never_moves_loses_on_time(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    idler = auth(mint_token(agent_id="idler", name="idler", games=(GAME,)))
    organiser = auth(mint_token(agent_id="org", name="org", kind="organiser"))
    table = client.post("/v1/tables", headers=organiser, json={
        "game": GAME, "mode": "family", "seats": 3, "rated": True, "join": False,
        "turn_timeout_s": 0.05, "options": {"turn_limit_per_seat": 2},
        "house_bots": [{"seat": 0, "bot": "random"}, {"seat": 1, "bot": "random"}]})
    assert table.status_code == 201, table.text
    assert client.post(f"/v1/tables/{table.json()['id']}/join", headers=idler).status_code == 200
    give_up = time.monotonic() + 20
    while client.get(f"/v1/games/{GAME}/leaderboard").json()["tables"] < 1:
        assert time.monotonic() < give_up, "the table never reached the ladder"
        time.sleep(0.05)
    ratings = {rating["entrant"]: rating
               for rating in client.get(f"/v1/games/{GAME}/leaderboard").json()["ratings"]}
    assert ratings["idler"]["mu"] < 25 < ratings["bot:random"]["mu"]
