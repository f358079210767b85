"""Admission and credentials through the SDK, against the real gateway and Redis.

The right answers come from the server's own stored challenge (the ``oracle``
fixture peeks at Redis on the test side); the SDK only carries them.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

import agents
from agents import AdmissionPassed, ChallengeCreated, Question

if TYPE_CHECKING:
    from tests.agents.conftest import RunningGateway

Oracle = Callable[[str], tuple[dict[str, Any], dict[str, Any]]]


def new_name() -> str:
    return f"sdk-{uuid.uuid4().hex[:10]}"


def admit(gateway: RunningGateway, oracle: Oracle, name: str, game: str = "market-fortune") -> AdmissionPassed:
    with gateway.client() as client:
        challenge = client.create_challenge(name, game)
        answers, puzzle = oracle(name)
        return client.answer_challenge(challenge.challenge_id, answers, puzzle)


def test_challenge_is_typed_and_holds_no_expected_answers(gateway: RunningGateway) -> None:
    with gateway.client() as client:
        challenge = client.create_challenge(new_name(), "market-fortune")
    assert isinstance(challenge, ChallengeCreated)
    assert len(challenge.questions) == 3 and all(isinstance(q, Question) for q in challenge.questions)
    assert len({q.category for q in challenge.questions}) == 3
    assert challenge.expires_in > 0 and challenge.puzzle.answer_format
    assert "expected" not in challenge.model_dump_json()


def test_pass_then_renew_rotate_and_revoke(gateway: RunningGateway, oracle: Oracle) -> None:
    name = new_name()
    passed = admit(gateway, oracle, name)
    assert passed.secret and passed.scopes == ["game:market-fortune"]
    with gateway.client() as client:
        renewed = client.exchange_credentials(passed.agent_id, passed.secret)
        assert renewed.agent_id == passed.agent_id and renewed.access_token != passed.access_token
        rotated = client.rotate_secret(passed.agent_id, passed.secret)
        assert rotated.secret != passed.secret
        with pytest.raises(agents.InvalidCredentials):
            client.exchange_credentials(passed.agent_id, passed.secret)
        fresh = client.exchange_credentials(passed.agent_id, rotated.secret)
    with gateway.client(fresh.access_token) as agent:
        assert agent.me().name == name
        with pytest.raises(agents.AlreadyAdmitted):
            agent.create_challenge(name, "market-fortune")
        with pytest.raises(agents.NameMismatch):
            agent.create_challenge(new_name(), "hab-und-gut")
        agent.revoke()
        with pytest.raises(agents.AuthRevoked):
            agent.me()


def test_adding_a_second_game_to_an_admitted_agent(gateway: RunningGateway, oracle: Oracle) -> None:
    name = new_name()
    passed = admit(gateway, oracle, name)
    with gateway.client(passed.access_token) as agent:
        challenge = agent.create_challenge(name, "hab-und-gut")
        answers, puzzle = oracle(name)
        second = agent.answer_challenge(challenge.challenge_id, answers, puzzle)
    assert second.secret is None and set(second.scopes) == {"game:market-fortune", "game:hab-und-gut"}


def test_admission_errors(gateway: RunningGateway, oracle: Oracle) -> None:
    name = new_name()
    with gateway.client() as client:
        challenge = client.create_challenge(name, "market-fortune")
        answers, puzzle = oracle(name)
        first = challenge.questions[0]  # answered wrongly, with a value of its type
        wrong_of: dict[str, Callable[[], object]] = {
            "integer": lambda: answers[first.id] + 1,
            "yes_no": lambda: answers[first.id] in (False, "no"),
            "single_choice": lambda: next(o.id for o in first.options if o.id != answers[first.id]),
        }
        wrong_first = wrong_of[first.format]()
        wrong = {**answers, first.id: wrong_first}
        with pytest.raises(agents.InvalidRequest) as refused:  # a puzzle answer of the wrong shape
            client.answer_challenge(challenge.challenge_id, wrong, {})
        assert any(error["loc"][:2] == ["body", "puzzle"] for error in refused.value.errors)
        with pytest.raises(agents.AdmissionFailed) as failed:  # it was not spent
            client.answer_challenge(challenge.challenge_id, wrong, puzzle)
        assert failed.value.score["puzzle_solved"] is True and failed.value.score["questions_correct"] < 3
        with pytest.raises(agents.AlreadyAnswered):
            client.answer_challenge(challenge.challenge_id, answers, puzzle)
        with pytest.raises(agents.ChallengeNotFound):
            client.answer_challenge("no-such-challenge", answers, puzzle)
        with pytest.raises(agents.NameReserved):
            client.create_challenge("housekeeper", "market-fortune")
        with pytest.raises(agents.GameNotFound):
            client.create_challenge(new_name(), "no-such-game")
        with pytest.raises(agents.InvalidRequest):
            client.create_challenge("x", "market-fortune")  # too short a name
        with pytest.raises(agents.InvalidCredentials):
            client.exchange_credentials("agt_nobody", "acs_nothing")
        with pytest.raises(agents.RulebookNotFound):
            client.rulebook("market-fortune", lang="xx")
    taken = admit(gateway, oracle, new_name())
    with gateway.client() as client, pytest.raises(agents.NameTaken):
        client.create_challenge(taken.name.upper(), "market-fortune")


def test_late_answers_fail_with_their_own_code(gateway: RunningGateway, oracle: Oracle) -> None:
    from gateway.services.admission import AdmissionSettings

    previous = getattr(gateway.app.state, "admission_settings", None)
    gateway.app.state.admission_settings = AdmissionSettings(challenge_ttl_s=1)
    try:
        name = new_name()
        with gateway.client() as client:
            challenge = client.create_challenge(name, "market-fortune")
            answers, puzzle = oracle(name)
            time.sleep(1.2)
            with pytest.raises(agents.ChallengeExpired):
                client.answer_challenge(challenge.challenge_id, answers, puzzle)
    finally:
        gateway.app.state.admission_settings = previous


def test_an_expired_token_is_renewed_with_the_agent_credentials(gateway: RunningGateway, oracle: Oracle) -> None:
    from agents import AgentCredentials, AsyncClient

    passed = admit(gateway, oracle, new_name())
    assert passed.secret is not None
    expired = gateway.tokens.issue(agent_id=passed.agent_id, name=passed.name, scopes=passed.scopes, ttl_s=-5).token
    credentials = AgentCredentials(passed.agent_id, passed.secret)
    assert passed.secret not in repr(credentials)
    with gateway.client(expired) as plain, pytest.raises(agents.AuthExpired):
        plain.me()
    with gateway.client(expired, credentials=credentials) as renewing:
        assert renewing.me().agent_id == passed.agent_id
        assert renewing.token not in (expired, passed.access_token)

    async def renew_async() -> str:
        async with AsyncClient(gateway.base_url, token=expired, credentials=credentials) as client:
            return (await client.me()).agent_id

    import asyncio

    assert asyncio.run(renew_async()) == passed.agent_id
    wrong = AgentCredentials(passed.agent_id, "acs_wrong")
    with gateway.client(expired, credentials=wrong) as hopeless, pytest.raises(agents.InvalidCredentials):
        hopeless.me()


def test_a_client_that_rotates_its_own_secret_goes_on_working(
    gateway: RunningGateway, oracle: Oracle
) -> None:
    from agents import AgentCredentials, AsyncClient

    passed = admit(gateway, oracle, new_name())
    assert passed.secret is not None
    credentials = AgentCredentials(passed.agent_id, passed.secret)
    with gateway.client(passed.access_token, credentials=credentials) as client:
        rotated = client.rotate_secret(passed.agent_id, passed.secret)
        assert rotated.revoked_tokens == 1  # the admission's token
        assert client.credentials == AgentCredentials(passed.agent_id, rotated.secret)
        assert client.token != passed.access_token
        assert client.me().agent_id == passed.agent_id
    with gateway.client(passed.access_token) as old, pytest.raises(agents.AuthRevoked):
        old.me()

    async def rotate_async(secret: str) -> tuple[str, str]:
        async with AsyncClient(gateway.base_url, credentials=AgentCredentials(
                passed.agent_id, secret)) as client:
            again = await client.rotate_secret(passed.agent_id, secret)
            assert client.token is None  # it held no token: it gets one when it asks
            return again.secret, (await client.renew_token()).agent_id

    import asyncio

    newest, agent_id = asyncio.run(rotate_async(rotated.secret))
    assert agent_id == passed.agent_id and newest != rotated.secret


def test_an_event_stream_renews_an_expired_token_too(
    gateway: RunningGateway, oracle: Oracle, short_game: dict[str, Any]
) -> None:
    from agents import AgentCredentials

    passed = admit(gateway, oracle, new_name())
    assert passed.secret is not None
    with gateway.client(passed.access_token) as host:
        table = host.create_table(
            **short_game, join=False, house_bots=[{"seat": s, "bot": "random"} for s in range(short_game["seats"])]
        )
    expired = gateway.tokens.issue(agent_id=passed.agent_id, name=passed.name, scopes=passed.scopes, ttl_s=-5).token
    credentials = AgentCredentials(passed.agent_id, passed.secret)
    with gateway.client(expired, credentials=credentials) as watcher:
        events = list(watcher.events(table.id, mode="sse"))
        assert watcher.token != expired
    assert events and events[-1].id >= len(events)


def test_a_client_with_only_credentials_gets_its_first_token(
    gateway: RunningGateway, oracle: Oracle, short_game: dict[str, Any]
) -> None:
    """Coming back later: agent id and secret, no token; the first authenticated call buys one."""
    from agents import AgentCredentials, AsyncClient

    passed = admit(gateway, oracle, new_name())
    assert passed.secret is not None
    credentials = AgentCredentials(passed.agent_id, passed.secret)
    with gateway.client(credentials=credentials) as client:
        assert client.games().games and client.token is None  # an open route buys no token
        assert client.me().agent_id == passed.agent_id
        assert client.token not in (None, passed.access_token)
        table = client.create_table(
            **short_game, join=False, house_bots=[{"seat": s, "bot": "random"} for s in range(short_game["seats"])]
        )
    with gateway.client(credentials=credentials) as watcher:
        events = list(watcher.events(table.id, mode="sse"))
        assert watcher.token is not None
    assert events and events[-1].id >= len(events)

    async def come_back() -> tuple[str, str | None, int]:
        async with AsyncClient(gateway.base_url, credentials=credentials) as client:
            agent_id = (await client.me()).agent_id
            token = client.token
        async with AsyncClient(gateway.base_url, credentials=credentials) as watcher:
            seen = [event async for event in watcher.events(table.id, mode="sse")]
        return agent_id, token, len(seen)

    import asyncio

    agent_id, token, seen = asyncio.run(come_back())
    assert agent_id == passed.agent_id and token is not None and seen == len(events)
    wrong = AgentCredentials(passed.agent_id, "acs_wrong")
    with gateway.client(credentials=wrong) as hopeless, pytest.raises(agents.InvalidCredentials):
        hopeless.me()
