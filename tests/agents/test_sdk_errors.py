"""Every problem code the gateway answers arrives as its own SDK exception class.

The errors are provoked on the real gateway (over HTTP, real Redis); the last
test checks that every code the gateway publishes has a dedicated class.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any

import pytest

import agents
from agents import Client, HouseBot, ObservationOut
from agents._endpoints import Call, _model
from agents._exceptions import ApiError, error_class_for

if TYPE_CHECKING:
    from tests.agents.conftest import RunningGateway


def bots_after(short_game: dict[str, Any], agents_seated: int = 1) -> list[dict[str, object]]:
    return [{"seat": seat, "bot": "random"} for seat in range(agents_seated, short_game["seats"])]


def my_turn(client: Client, table_id: str) -> ObservationOut:
    """Wait (long-poll) until this client's seat must act; its observation."""
    while True:
        observation = client.observe(table_id)
        if observation.seat in observation.to_act or observation.status == "finished":
            return observation
        client.events_page(table_id, after=observation.last_event_id, wait_s=3)


def raises(expected: type[ApiError], code: str, call: Any, *args: Any, **kwargs: Any) -> ApiError:
    with pytest.raises(expected) as caught:
        call(*args, **kwargs)
    assert type(caught.value) is expected
    assert caught.value.code_received == code == expected.code
    return caught.value


def test_auth_errors(gateway: RunningGateway) -> None:
    now = int(time.time())
    with gateway.client() as anonymous:
        raises(agents.AuthMissing, "auth/missing", anonymous.me)
    cases: list[tuple[str, type[ApiError], str]] = [
        ("not-a-jwt", agents.AuthInvalid, "auth/invalid"),
        (gateway.mint(ttl_s=-30), agents.AuthExpired, "auth/expired"),
        (gateway.forged_token(nbf=now + 3600), agents.AuthNotYetValid, "auth/not_yet_valid"),
        (gateway.forged_token(aud="someone-else"), agents.WrongAudience, "auth/wrong_audience"),
        (gateway.forged_token(iss="another-club"), agents.WrongIssuer, "auth/wrong_issuer"),
    ]
    for token, expected, code in cases:
        with gateway.client(token) as client:
            raises(expected, code, client.me)
    header, _, rest = gateway.mint().partition(".")
    import base64
    import json

    fields = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    fields["kid"] = "no-such-key"
    other_header = base64.urlsafe_b64encode(json.dumps(fields).encode()).decode().rstrip("=")
    with gateway.client(f"{other_header}.{rest}") as client:
        raises(agents.UnknownKey, "auth/unknown_key", client.me)
    with gateway.client(gateway.mint()) as client:
        client.revoke()
        raises(agents.AuthRevoked, "auth/revoked", client.me)
        raises(agents.AuthRevoked, "auth/revoked", client.create_table, "market-fortune", "family", 2)


def test_scope_organiser_and_game_errors(gateway: RunningGateway, short_game: dict[str, Any]) -> None:
    with gateway.client(gateway.mint(games=())) as outsider:
        raises(agents.WrongScope, "auth/wrong_scope", outsider.create_table, **short_game)
        raises(agents.OrganiserOnly, "auth/organiser_only", outsider.organiser_token, "someone")
    with gateway.client(gateway.mint(games=[short_game["game"]])) as player:
        raises(agents.GameNotFound, "game/not_found", player.create_table, "no-such-game", "x", 2)
        raises(agents.GameNotFound, "game/not_found", player.rulebook, "no-such-game")


def test_table_errors(gateway: RunningGateway, short_game: dict[str, Any]) -> None:
    game = short_game["game"]
    alice = gateway.client(gateway.mint(games=[game]))
    bob = gateway.client(gateway.mint(games=[game]))
    carol = gateway.client(gateway.mint(games=[game]))
    with alice, bob, carol:
        raises(agents.TableNotFound, "table/not_found", alice.table, "no-such-table")
        raises(agents.InvalidTableConfig, "table/invalid_config", alice.create_table, **{**short_game, "seats": 12})
        raises(
            agents.UnknownHouseBot, "table/unknown_bot", alice.create_table,
            **short_game, house_bots=[{"seat": 1, "bot": "genius"}],
        )
        table = alice.create_table(**short_game, house_bots=bots_after(short_game, 2))
        raises(agents.AlreadySeated, "table/already_seated", alice.join, table.id)
        raises(agents.NotSeated, "table/not_seated", bob.leave, table.id)
        raises(agents.TableNotStarted, "table/not_started", alice.act, table.id, "anything", version=0)
        raises(agents.TableNotFinished, "table/not_finished", alice.replay, table.id)
        bob.join(table.id)
        raises(agents.TableFull, "table/full", carol.join, table.id)
        raises(agents.TableStarted, "table/started", alice.leave, table.id)
        raises(agents.NotSeated, "table/not_seated", carol.act, table.id, "anything", version=0)

        seen_by_alice = alice.observe(table.id)
        acting, waiting = (alice, bob) if 0 in seen_by_alice.to_act else (bob, alice)
        observation = acting.observe(table.id)
        assert observation.seat in observation.to_act
        legal = observation.legal_actions[0].id
        stale = raises(agents.StaleVersion, "table/stale_version", acting.act, table.id, legal, version=observation.version + 1)
        assert isinstance(stale, agents.StaleVersion) and stale.current_version == observation.version
        waiting_seen = waiting.observe(table.id)
        assert waiting_seen.legal_actions == []
        raises(agents.NotYourTurn, "action/not_your_turn", waiting.act, table.id, legal, version=observation.version)
        raises(agents.MalformedAction, "action/malformed", acting.act, table.id, "%%not an action%%", version=observation.version)

        first = acting.act(table.id, legal, version=observation.version, idempotency_key="sdk-test-key-1")
        again = acting.act(table.id, legal, version=observation.version, idempotency_key="sdk-test-key-1")
        assert again == first  # the same key and body: the stored answer, applied once
        raises(
            agents.IdempotencyConflict, "idempotency/conflict", acting.act, table.id,
            legal, version=observation.version + 1, idempotency_key="sdk-test-key-1",
        )
        finish_both(alice, bob, table.id)
        raises(agents.TableFinished, "table/finished", alice.act, table.id, legal, version=0)


def finish_both(alice: Client, bob: Client, table_id: str) -> None:
    """Play both agent seats to the end (alternating, single thread)."""
    bot = HouseBot("random")
    while True:
        progressed = False
        for client in (alice, bob):
            observation = client.observe(table_id)
            if observation.status == "finished":
                return
            if observation.seat in observation.to_act and observation.legal_actions:
                with contextlib.suppress(agents.StaleVersion, agents.NotYourTurn):
                    client.act(table_id, bot.choose(observation), version=observation.version)
                progressed = True
        if not progressed:
            alice.events_page(table_id, after=alice.observe(table_id).last_event_id, wait_s=2)


def test_illegal_action_names_the_rule(gateway: RunningGateway, short_game: dict[str, Any]) -> None:
    """An id the game parses but the rules forbid now: one legal earlier, not legal any more."""
    with gateway.client(gateway.mint(games=[short_game["game"]])) as player:
        table = player.create_table(**short_game, house_bots=bots_after(short_game), seed=11)
        seen: set[str] = set()
        for _turn in range(60):
            observation = my_turn(player, table.id)
            assert observation.status != "finished", "no illegal candidate found in a whole game"
            legal = {option.id for option in observation.legal_actions}
            gone = sorted(seen - legal)
            if gone:
                illegal = raises(agents.IllegalAction, "action/illegal", player.act, table.id, gone[0], version=observation.version)
                assert illegal.detail
                return
            seen |= legal
            player.act(table.id, observation.legal_actions[0].id, version=observation.version)
        pytest.fail("no action id went from legal to illegal in 60 turns")


def test_request_errors(gateway: RunningGateway, short_game: dict[str, Any]) -> None:
    with gateway.client(gateway.mint(games=[short_game["game"]])) as client:
        invalid = raises(agents.InvalidRequest, "request/invalid", client.create_table, **{**short_game, "seats": 0})
        assert isinstance(invalid, agents.InvalidRequest) and invalid.errors
        assert "(body.seats: " in str(invalid)  # the message says why, not only that
        raises(agents.RouteNotFound, "request/not_found", client.send, Call("GET", "/v1/nowhere", _model(dict)))
        raises(
            agents.MethodNotAllowed, "request/method_not_allowed", client.send,
            Call("DELETE", "/v1/games", _model(dict)),
        )


def test_every_published_code_has_its_own_class(gateway: RunningGateway) -> None:
    from gateway.openapi_docs import PROBLEM_CATALOGUE

    assert PROBLEM_CATALOGUE, "the app registered no problem codes"
    missing = {code for code in PROBLEM_CATALOGUE if error_class_for(code).code != code}
    assert not missing, f"codes without an SDK exception class: {sorted(missing)}"


def test_an_invalid_table_config_says_why(gateway: RunningGateway, game: agents.GameOut) -> None:
    mode = game.modes[0]
    with gateway.client(gateway.mint(games=[game.name])) as client:
        refused = raises(
            agents.InvalidTableConfig, "table/invalid_config", client.create_table,
            game.name, mode.name, mode.max_seats + 1,
        )
    assert refused.errors and refused.errors[0]["loc"] == ["seats"]
    # The reason is told once: the server's detail quotes it, so the SDK does not repeat it.
    assert str(refused).startswith(f"422 table/invalid_config: {refused.detail}")
    assert str(refused).count("seats: Input should be") == 1
