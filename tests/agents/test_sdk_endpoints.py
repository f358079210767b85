"""The SDK against the real gateway over HTTP and a real Redis: every endpoint, typed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

import agents
from agents import (
    AccessToken,
    ActionResult,
    AgentProfile,
    EventsPage,
    GameOut,
    HouseBot,
    Jwks,
    ObservationOut,
    ReplayOut,
    TableList,
    TableOut,
)
from agents.runner import Runner
from engine.registry import all_games
from gateway import __version__ as gateway_version

if TYPE_CHECKING:
    from tests.agents.conftest import RunningGateway


def other_seats_bots(game: GameOut, seats: int, agents: int = 1) -> list[dict[str, object]]:
    return [{"seat": seat, "bot": "random"} for seat in range(agents, seats)]


def bots_after(short_game: dict[str, Any], agents: int = 1) -> list[dict[str, object]]:
    """House bots in every seat after the first ``agents``."""
    return [{"seat": seat, "bot": "random"} for seat in range(agents, short_game["seats"])]


def test_operations_and_catalogue(gateway: RunningGateway) -> None:
    with gateway.client() as client:
        assert client.healthz() == {"status": "ok", "version": gateway_version}
        assert client.readyz() == {"status": "ok"}
        assert "agents_club" in client.metrics()
        keys = client.jwks()
        assert isinstance(keys, Jwks) and keys.keys and keys.keys[0].alg == "EdDSA"
        catalogue = client.games()
        assert sorted(game.name for game in catalogue.games) == sorted(all_games())
        for listed in catalogue.games:
            assert listed.modes and "random" in listed.house_bots


def test_rulebook_is_markdown(gateway: RunningGateway, game: GameOut) -> None:
    with gateway.client() as client:
        rulebook = client.rulebook(game.name)
    assert rulebook.lstrip().startswith("#")
    assert len(rulebook) > 500


def test_identity_organiser_tokens_and_revocation(gateway: RunningGateway, game: GameOut) -> None:
    with gateway.client() as organiser:
        minted = organiser.organiser_token("sdk-minted", games=[game.name], organiser_key=gateway.settings.organiser_key)
    assert isinstance(minted, AccessToken) and minted.name == "sdk-minted"
    assert f"game:{game.name}" in minted.scopes
    with gateway.client(minted.access_token) as agent:
        me = agent.me()
        assert isinstance(me, AgentProfile)
        assert (me.agent_id, me.name, me.games) == (minted.agent_id, "sdk-minted", [game.name])
        revoked = agent.revoke()
        assert revoked.revoked and revoked.token_id
        with pytest.raises(agents.AuthRevoked):
            agent.me()
    # The organiser may revoke somebody else's token.
    victim = gateway.mint(games=[game.name])
    with gateway.client() as anonymous:
        boss = anonymous.organiser_token("sdk-boss", kind="organiser", organiser_key=gateway.settings.organiser_key)
    with gateway.client(boss.access_token) as organiser, gateway.client(victim) as target:
        assert target.me().games == [game.name]
        organiser.revoke(victim)
        with pytest.raises(agents.AuthRevoked):
            target.me()


def test_table_lifecycle_create_list_get_join_leave(gateway: RunningGateway, game: GameOut) -> None:
    mode = game.modes[0]
    seats = max(mode.min_seats, 2)
    alice, bob = gateway.client(gateway.mint(games=[game.name])), gateway.client(gateway.mint(games=[game.name]))
    with alice, bob:
        table = alice.create_table(game.name, mode.name, seats, house_bots=other_seats_bots(game, seats, agents=2))
        assert isinstance(table, TableOut)
        assert table.status == "open" and table.your_seat == 0
        listed = alice.list_tables(game=game.name, status="open")
        assert isinstance(listed, TableList)
        assert table.id in {entry.id for entry in listed.tables}
        assert bob.table(table.id).your_seat is None
        joined = bob.join(table.id)
        assert joined.status == "playing" and joined.your_seat == 1
        assert alice.table(table.id).status == "playing"

        spare = alice.create_table(game.name, mode.name, seats, private=True)
        assert spare.id not in {entry.id for entry in alice.list_tables(status="open").tables}
        left = alice.leave(spare.id)
        assert left.your_seat is None and all(seat.agent_id is None for seat in left.seated)


def test_observe_act_events_and_replay(gateway: RunningGateway, game: GameOut, short_game: dict[str, Any]) -> None:
    with gateway.client(gateway.mint(games=[game.name])) as client:
        table = client.create_table(**short_game, house_bots=bots_after(short_game), seed=7)
        observation = client.observe(table.id)
        assert isinstance(observation, ObservationOut)
        assert observation.seat == 0 and observation.view is not None and observation.summary
        while 0 not in observation.to_act:
            # Held by the server until seat 0 must act (the house bots play meanwhile).
            observation = client.observe(table.id, wait_s=5)
        assert observation.legal_actions
        choice = observation.legal_actions[0]
        applied = client.act(table.id, choice.id, version=observation.version)
        assert isinstance(applied, ActionResult)
        assert applied.action.id == choice.id and applied.version > observation.version
        assert applied.observation is not None and applied.observation.version == applied.version
        assert applied.observation.seat == 0
        # The same logical action sent again (a retry after a lost answer) derives the same
        # Idempotency-Key: the server answers the first result instead of a stale version.
        assert client.act(table.id, choice.id, version=observation.version) == applied
        page = client.events_page(table.id, after=0, wait_s=0)
        assert isinstance(page, EventsPage) and page.events
        assert [event.id for event in page.events] == sorted({event.id for event in page.events})

        result = Runner(client, HouseBot("random"), printer=None).play(table.id)
        assert result.outcome is not None
        replay = client.replay(table.id)
        assert isinstance(replay, ReplayOut)
        assert replay.seed == 7 and replay.outcome == result.outcome
        assert any(entry.action == choice.id and entry.seat == 0 for entry in replay.log)
        assert [entry.version for entry in replay.log] == sorted(entry.version for entry in replay.log)


def test_spectator_sees_public_events_only(gateway: RunningGateway, game: GameOut, short_game: dict[str, Any]) -> None:
    with gateway.client(gateway.mint(games=[game.name])) as player:
        table = player.create_table(**short_game, house_bots=bots_after(short_game))
        Runner(player, HouseBot("random"), printer=None).play(table.id)
        seated = player.events_page(table.id, after=0)
    with gateway.client() as spectator:
        watched = spectator.observe(table.id)
        assert watched.seat is None and watched.legal_actions == []
        public = spectator.events_page(table.id, after=0)
    assert all(not event.private for event in public.events)
    # The seated player receives every public event too, plus its own private ones.
    assert {event.id for event in public.events} <= {event.id for event in seated.events}
    assert public.last_id == seated.last_id


def test_async_client_in_process_through_asgi_transport(
    gateway: RunningGateway, game: GameOut, short_game: dict[str, Any]
) -> None:
    import asyncio

    import httpx

    from agents import AsyncClient
    from gateway.app import create_app

    async def scenario() -> None:
        app = create_app(gateway.settings)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with AsyncClient("http://in-process", token=gateway.mint(games=[game.name]), transport=transport) as client:
                assert await client.healthz() == {"status": "ok", "version": gateway_version}
                table = await client.create_table(**short_game, house_bots=bots_after(short_game))
                seen: list[int] = []
                bot = HouseBot("random")
                while True:
                    observation = await client.observe(table.id)
                    if observation.status == "finished":
                        break
                    if 0 in observation.to_act:
                        await client.act(table.id, bot.choose(observation), version=observation.version)
                    else:
                        await client.events_page(table.id, after=observation.last_event_id, wait_s=2)
                async for event in client.events(table.id, after=0):
                    seen.append(event.id)
                assert seen == sorted(set(seen)) and seen
                assert (await client.table(table.id)).outcome is not None
                assert (await client.replay(table.id)).table_id == table.id

    asyncio.run(scenario())


