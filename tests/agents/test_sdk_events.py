"""The event iterator: every visible event once, in order, across forced disconnects.

The disconnects are real broken reads: a transport wrapped around httpx's own
cuts the server's SSE stream after some bytes, or drops a long-poll answer
after the server sent it, so the SDK must reconnect and resume from its last
event id.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Literal

import httpx

from agents import AsyncClient, Client, EventOut, HouseBot
from agents.runner import Runner

if TYPE_CHECKING:
    from tests.agents.conftest import RunningGateway


class _CutStream(httpx.SyncByteStream):
    """Yields the first ``budget`` bytes of a body, then fails like a reset connection."""

    def __init__(self, inner: httpx.SyncByteStream, budget: int) -> None:
        self.inner = inner
        self.budget = budget

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            if len(chunk) >= self.budget:
                yield chunk[: self.budget]
                raise httpx.ReadError("connection reset by the test")
            self.budget -= len(chunk)
            yield chunk

    def close(self) -> None:
        self.inner.close()


class DroppingTransport(httpx.BaseTransport):
    """The real HTTP transport, except that some event reads break on purpose.

    ``sse_cuts``: SSE responses cut after ``cut_bytes`` bytes (the first N streams).
    ``poll_drops``: long-poll calls (by 1-based count) whose answer is thrown away
    after the server produced it.
    """

    def __init__(self, *, sse_cuts: int = 0, cut_bytes: int = 900, poll_drops: frozenset[int] = frozenset()) -> None:
        self.inner = httpx.HTTPTransport()
        self.sse_cuts = sse_cuts
        self.cut_bytes = cut_bytes
        self.poll_drops = poll_drops
        self.polls = 0
        self.streams = 0
        self.last_event_ids: list[str | None] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        path = request.url.path
        if path.endswith("/events/stream"):
            self.streams += 1
            self.last_event_ids.append(request.headers.get("Last-Event-ID"))
            if self.streams <= self.sse_cuts:
                assert isinstance(response.stream, httpx.SyncByteStream)
                response.stream = _CutStream(response.stream, self.cut_bytes)
        elif path.endswith("/events"):
            self.polls += 1
            if self.polls in self.poll_drops:
                response.close()
                raise httpx.ReadError("answer lost by the test")
        return response

    def close(self) -> None:
        self.inner.close()


def finished_table(gateway: RunningGateway, short_game: dict[str, Any]) -> tuple[str, str, list[EventOut]]:
    """A short game played to the end; its id, the player's token and every event it may see."""
    token = gateway.mint(games=[short_game["game"]])
    with gateway.client(token) as client:
        table = client.create_table(
            **short_game, house_bots=[{"seat": s, "bot": "random"} for s in range(1, short_game["seats"])]
        )
        Runner(client, HouseBot("random"), printer=None).play(table.id)
        events: list[EventOut] = []
        after = 0
        while True:
            page = client.events_page(table.id, after=after)
            events += page.events
            if not page.events:
                return table.id, token, events
            after = page.last_id


def test_long_poll_resumes_after_lost_answers(gateway: RunningGateway, short_game: dict[str, Any]) -> None:
    table_id, token, expected = finished_table(gateway, short_game)
    transport = DroppingTransport(poll_drops=frozenset({1, 3}))
    with Client(gateway.base_url, token=token, transport=transport) as client:
        stream = client.events(table_id, after=0, mode="poll", wait_s=1)
        received = list(stream)
    assert [event.id for event in received] == [event.id for event in expected]
    assert received == expected
    assert transport.polls >= 3


def test_sse_resumes_from_the_last_event_id_after_cut_streams(gateway: RunningGateway, short_game: dict[str, Any]) -> None:
    table_id, token, expected = finished_table(gateway, short_game)
    assert len(expected) > 10
    transport = DroppingTransport(sse_cuts=3, cut_bytes=700)
    with Client(gateway.base_url, token=token, transport=transport) as client:
        stream = client.events(table_id, after=0, mode="sse")
        received = list(stream)
    assert received == expected
    assert stream.reconnects == 3
    # Each reconnection asked for the events after the last one received.
    resumed = [int(value) for value in transport.last_event_ids[1:] if value is not None]
    assert len(resumed) == 3 and resumed == sorted(resumed) and resumed[-1] < expected[-1].id


def test_spectator_follows_a_live_bot_table_over_sse_through_drops(
    gateway: RunningGateway, short_game: dict[str, Any]
) -> None:
    with gateway.client(gateway.mint(games=[short_game["game"]])) as organiser:
        table = organiser.create_table(
            **short_game, join=False,
            house_bots=[{"seat": s, "bot": "random"} for s in range(short_game["seats"])],
        )
    transport = DroppingTransport(sse_cuts=2, cut_bytes=1500)
    with Client(gateway.base_url, transport=transport) as spectator:
        live = list(spectator.events(table.id, mode="sse"))
        final = spectator.table(table.id)
        after_the_fact = spectator.events_page(table.id, after=0)
    assert final.status == "finished" and final.outcome is not None
    assert [event.id for event in live] == sorted({event.id for event in live})
    assert all(not event.private for event in live)
    assert live == after_the_fact.events  # followed live through two cuts: the same as read afterwards


def test_async_stream_matches_the_sync_one(gateway: RunningGateway, short_game: dict[str, Any]) -> None:
    table_id, token, expected = finished_table(gateway, short_game)

    async def follow(mode: Literal["poll", "sse"]) -> list[EventOut]:
        async with AsyncClient(gateway.base_url, token=token) as client:
            return [event async for event in client.events(table_id, after=0, mode=mode)]

    assert asyncio.run(follow("poll")) == expected
    assert asyncio.run(follow("sse")) == expected


def test_an_sse_stream_outlives_its_token_when_the_client_can_renew_it(
    gateway: RunningGateway,
    short_game: dict[str, Any],
    oracle: Callable[[str], tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    # The server closes a stream when its token expires; with the agent's credentials
    # the SDK renews the token and resumes after the last event, so nothing is lost.
    from agents import AgentCredentials

    name = f"sse-renew-{uuid.uuid4().hex[:6]}"
    with gateway.client() as newcomer:
        challenge = newcomer.create_challenge(name, short_game["game"])
        passed = newcomer.answer_challenge(challenge.challenge_id, *oracle(name))
    assert passed.secret is not None
    with gateway.client(gateway.mint(games=[short_game["game"]])) as host, \
            gateway.client(passed.access_token) as me:
        table = host.create_table(**short_game)
        me.join(table.id)
        short_lived = gateway.tokens.issue(
            agent_id=passed.agent_id, name=passed.name, scopes=passed.scopes, ttl_s=1).token
        transport = DroppingTransport()
        received: list[EventOut] = []
        with Client(gateway.base_url, token=short_lived, transport=transport,
                    credentials=AgentCredentials(passed.agent_id, passed.secret)) as reader:
            stream = reader.events(table.id, after=0, mode="sse")
            follower = threading.Thread(target=lambda: received.extend(stream), daemon=True)
            follower.start()
            # Past the token's expiry (and the verifier's leeway) the server closes the
            # stream; the client renews its token and opens the stream again.
            deadline = time.monotonic() + 1 + gateway.settings.jwt_leeway_s + 10
            while transport.streams < 2 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert transport.streams == 2 and reader.token != short_lived
            for _ in range(500):
                acted = False
                for client in (host, me):
                    now = client.observe(table.id)
                    if now.status == "finished":
                        break
                    if now.legal_actions:
                        client.act(table.id, now.legal_actions[0].id, version=now.version)
                        acted = True
                if not acted:
                    break
            follower.join(timeout=30)
            assert not follower.is_alive()
        expected: list[EventOut] = []
        after = 0
        while page := me.events_page(table.id, after=after).events:
            expected += page
            after = page[-1].id
    assert received == expected and expected[-1].kind == "table.finished"
    assert transport.last_event_ids[1] is not None  # it resumed after its last event


def test_a_stream_may_renew_each_token_it_outlives_but_not_one_refused_at_once() -> None:
    # A spectator stream may outlive many tokens; a token refused right after its
    # renewal (before the server took it) is a real error, not one to renew again.
    from agents import AgentCredentials
    from agents._events import _Cursor

    expired = httpx.Response(401, json={"code": "auth/expired"})
    credentials = AgentCredentials("agt_x", "acs_y")
    cursor = _Cursor(after=None, max_failures=3)
    assert cursor.may_renew(expired, credentials)
    assert not cursor.may_renew(expired, credentials)  # refused again at once: give up
    cursor.accepted()  # the renewed token opened the stream; later it expires too
    assert cursor.may_renew(expired, credentials)
    assert not cursor.may_renew(expired, None)  # nothing to renew with
    assert not cursor.may_renew(httpx.Response(401, json={"code": "auth/revoked"}), credentials)
