"""Admission over HTTP against a real Redis: pass, fail, expiry, one submission, renewal, rotation, revocation."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from engine.hab_und_gut.components import COMMODITIES
from gateway.services.admission import AdmissionSettings
from quiz import all_banks, get_bank
from quiz.model import IssuedChallenge
from tests.conftest import sync_client
from tests.fake_clock import FakeClock

GAME = "market-fortune"
CHALLENGES = "/v1/admission/challenges"


def stored_challenge(client: TestClient, challenge_id: str) -> IssuedChallenge:
    """The server-side challenge (expected answers included), read from Redis as the service stored it."""
    from gateway.services.admission import StoredChallenge

    app = client.app
    assert isinstance(app, FastAPI)
    settings = app.state.settings
    with sync_client(settings.redis_url) as peek:
        raw = peek.hget(app.state.keys.global_("admission", "challenge", challenge_id), "payload")
    assert raw is not None
    return StoredChallenge.model_validate_json(raw).issued


def right_answers(issued: IssuedChallenge, game: str = GAME) -> dict[str, Any]:
    """A correct submission, built from the stored expectations and the puzzle's own solver."""
    answers: dict[str, Any] = {}
    for item in issued.questions:
        question = item.question
        if question.format == "integer":
            answers[question.id] = int(item.expected)
        elif question.format == "yes_no":
            answers[question.id] = item.expected == "yes"
        else:
            answers[question.id] = item.expected
    kind = get_bank(game).puzzle_kind(issued.puzzle.puzzle.kind)
    return {"answers": answers, "puzzle": kind.solve(issued.puzzle)}


def wrong_first_answer(issued: IssuedChallenge, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with the first question answered wrongly."""
    first = issued.questions[0]
    wrong: Any
    if first.question.format == "integer":
        wrong = int(first.expected) + 1
    elif first.question.format == "yes_no":
        wrong = first.expected != "yes"
    else:
        wrong = next(o.id for o in first.question.options if o.id != first.expected)
    return {**body, "answers": {**body["answers"], first.question.id: wrong}}


def wrong_but_well_shaped(issued: IssuedChallenge) -> dict[str, Any]:
    """Per puzzle kind, an answer that fits the puzzle's shape (``misfits`` finds nothing)
    and that no situation makes right."""
    situation = issued.puzzle.puzzle.situation
    kind = issued.puzzle.puzzle.kind
    if kind == "best_portfolio":
        return {"investments": [["S.energy.1", "R.energy.1"]] * 4}  # one pair four times
    if kind == "best_risks":
        return {"risks": {seat: ["S.energy.1", "R.banking.1"] for seat in situation["hands"]}}
    if kind == "defence":
        return {"defences": [], "if_declined": {"investments": 4, "hand": 20, "strategies": 20}}
    if kind == "price_moves":
        return {"prices": {commodity: -1 for commodity in COMMODITIES}}
    seats = len(situation["seats"])
    return {"donations": [-1] * seats, "eliminated": [], "final_money": [-1] * seats, "winners": [0]}


def wrong_puzzle(issued: IssuedChallenge, game: str = GAME) -> dict[str, Any]:
    """A puzzle answer of the kind's shape that does not solve it (graded, and wrong)."""
    kind = get_bank(game).puzzle_kind(issued.puzzle.puzzle.kind)
    wrong = wrong_but_well_shaped(issued)
    kind.answer_model.model_validate(wrong)
    assert kind.misfits(issued.puzzle, wrong) == []
    assert not kind.check(issued.puzzle, wrong)
    return wrong


@pytest.fixture()
def admission_client(app: FastAPI) -> Iterator[TestClient]:
    """A client whose admission settings are the defaults (tests override fields per case)."""
    app.state.admission_settings = AdmissionSettings()
    with TestClient(app) as client:
        yield client


def ask(client: TestClient, name: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    response = client.post(CHALLENGES, json={"agent_name": name, "game": GAME}, headers=headers or {})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.redis_cluster
def test_pass_registers_the_agent_with_a_scoped_token_and_a_one_time_secret(
    admission_client: TestClient, auth: Callable[[str], dict[str, str]]
) -> None:
    challenge = ask(admission_client, "alice-bot")
    assert len(challenge["questions"]) == 3
    assert len({q["category"] for q in challenge["questions"]}) == 3
    assert challenge["puzzle"]["kind"] in {"best_portfolio", "best_risks", "defence"}
    assert 0 < challenge["expires_in"] <= 600
    issued = stored_challenge(admission_client, challenge["challenge_id"])
    body = right_answers(issued)
    passed = admission_client.post(f"{CHALLENGES}/{challenge['challenge_id']}/answers", json=body)
    assert passed.status_code == 201, passed.text
    result = passed.json()
    assert result["scopes"] == [f"game:{GAME}"]
    assert result["secret"].startswith("acs_")
    assert result["score"] == {
        "questions_correct": 3, "questions_total": 3, "puzzle_solved": True, "missed_categories": [],
    }  # fmt: skip
    me = admission_client.get("/v1/agents/me", headers=auth(result["access_token"]))
    assert me.status_code == 200
    assert me.json()["agent_id"] == result["agent_id"]
    assert me.json()["games"] == [GAME]


def answer(client: TestClient, challenge_id: str, body: dict[str, Any]) -> Any:
    return client.post(f"{CHALLENGES}/{challenge_id}/answers", json=body)


def register(client: TestClient, name: str) -> dict[str, Any]:
    """Pass an admission as ``name``; the result body (token, agent id, secret)."""
    challenge = ask(client, name)
    body = right_answers(stored_challenge(client, challenge["challenge_id"]))
    response = answer(client, challenge["challenge_id"], body)
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()
    return result


def test_fail_returns_the_score_and_missed_categories_never_the_answers(
    admission_client: TestClient,
) -> None:
    challenge = ask(admission_client, "bob-bot")
    issued = stored_challenge(admission_client, challenge["challenge_id"])
    body = wrong_first_answer(issued, right_answers(issued))
    body["puzzle"] = wrong_puzzle(issued)
    failed = answer(admission_client, challenge["challenge_id"], body)
    assert failed.status_code == 403
    assert failed.headers["content-type"].startswith("application/problem+json")
    problem = failed.json()
    assert problem["code"] == "admission/failed"
    assert problem["score"] == {
        "questions_correct": 2, "questions_total": 3, "puzzle_solved": False,
        "missed_categories": [issued.questions[0].question.category, "puzzle"],
    }  # fmt: skip
    assert "expected" not in failed.text and "secret" not in failed.text
    # the name stays free: nobody was registered
    assert admission_client.post(
        CHALLENGES, json={"agent_name": "bob-bot", "game": GAME}
    ).status_code == 201


@pytest.mark.redis_cluster
def test_one_submission_per_challenge(admission_client: TestClient) -> None:
    challenge = ask(admission_client, "carol-bot")
    body = right_answers(stored_challenge(admission_client, challenge["challenge_id"]))
    assert answer(admission_client, challenge["challenge_id"], body).status_code == 201
    again = answer(admission_client, challenge["challenge_id"], body)
    assert again.status_code == 409
    assert again.json()["code"] == "admission/already_answered"
    # a failed submission also uses the challenge up
    second = ask(admission_client, "dave-bot")
    issued = stored_challenge(admission_client, second["challenge_id"])
    wrong = wrong_first_answer(issued, right_answers(issued))
    assert answer(admission_client, second["challenge_id"], wrong).status_code == 403
    assert answer(admission_client, second["challenge_id"], wrong).json()["code"] == (
        "admission/already_answered"
    )
    unknown = answer(admission_client, "chl_nothing", body)
    assert unknown.status_code == 404 and unknown.json()["code"] == "admission/not_found"


def test_late_answers_fail_with_their_own_code(app: FastAPI) -> None:
    app.state.admission_settings = AdmissionSettings(challenge_ttl_s=1)
    app.state.clock = clock = FakeClock()
    with TestClient(app) as client:
        challenge = ask(client, "erin-bot")
        assert challenge["expires_in"] == 1
        body = right_answers(stored_challenge(client, challenge["challenge_id"]))
        clock.now = challenge["expires_at"] + 0.01
        late = answer(client, challenge["challenge_id"], body)
        assert late.status_code == 410
        assert late.json()["code"] == "admission/expired"


@pytest.mark.redis_cluster
def test_renewal_rotation_and_revocation(
    admission_client: TestClient, auth: Callable[[str], dict[str, str]]
) -> None:
    agent = register(admission_client, "frank-bot")
    credentials = {"agent_id": agent["agent_id"], "secret": agent["secret"]}
    renewed = admission_client.post("/v1/auth/token", json=credentials)
    assert renewed.status_code == 200, renewed.text
    token = renewed.json()["access_token"]
    assert renewed.json()["scopes"] == [f"game:{GAME}"]
    assert admission_client.get("/v1/agents/me", headers=auth(token)).status_code == 200

    wrong = admission_client.post("/v1/auth/token", json={**credentials, "secret": "acs_wrong"})
    assert wrong.status_code == 401 and wrong.json()["code"] == "auth/invalid_credentials"
    nobody = admission_client.post("/v1/auth/token", json={**credentials, "agent_id": "agt_none"})
    assert nobody.status_code == 401 and nobody.json()["code"] == "auth/invalid_credentials"

    rotated = admission_client.post("/v1/auth/secret", json=credentials)
    assert rotated.status_code == 200, rotated.text
    new_secret = rotated.json()["secret"]
    assert new_secret != agent["secret"]
    assert admission_client.post("/v1/auth/token", json=credentials).status_code == 401
    # Whoever learnt the old secret may hold tokens the agent never saw: the rotation
    # revoked both live ones, the admission's and the exchanged one.
    assert rotated.json()["revoked_tokens"] == 2
    for old in (agent["access_token"], token):
        refused = admission_client.get("/v1/agents/me", headers=auth(old))
        assert refused.status_code == 401 and refused.json()["code"] == "auth/revoked"
    fresh = admission_client.post(
        "/v1/auth/token", json={"agent_id": agent["agent_id"], "secret": new_secret}
    )
    assert fresh.status_code == 200
    fresh_token = fresh.json()["access_token"]
    other = admission_client.post(
        "/v1/auth/token", json={"agent_id": agent["agent_id"], "secret": new_secret}
    ).json()["access_token"]

    revoked = admission_client.post("/v1/auth/revoke", headers=auth(fresh_token), json={})
    assert revoked.status_code == 200, revoked.text
    refused = admission_client.get("/v1/agents/me", headers=auth(fresh_token))
    assert refused.status_code == 401 and refused.json()["code"] == "auth/revoked"
    assert admission_client.get("/v1/agents/me", headers=auth(other)).status_code == 200
    # A second rotation counts only what was still live: the token revoked by hand is not.
    again = admission_client.post(
        "/v1/auth/secret", json={"agent_id": agent["agent_id"], "secret": new_secret}
    )
    assert again.status_code == 200 and again.json()["revoked_tokens"] == 2
    assert admission_client.get("/v1/agents/me", headers=auth(other)).status_code == 401


def test_a_rotation_stops_a_second_admission_asked_with_an_old_token(
    admission_client: TestClient, auth: Callable[[str], dict[str, str]]
) -> None:
    # A thief with a stolen token asks for another game's admission; the owner rotates
    # the secret before the thief answers: the pass is refused and grants nothing.
    agent = register(admission_client, "ivan-bot")
    stolen = agent["access_token"]
    other_game = "hab-und-gut"
    asked = admission_client.post(
        CHALLENGES, json={"agent_name": "ivan-bot", "game": other_game}, headers=auth(stolen))
    assert asked.status_code == 201, asked.text
    challenge_id = asked.json()["challenge_id"]
    rotated = admission_client.post(
        "/v1/auth/secret", json={"agent_id": agent["agent_id"], "secret": agent["secret"]})
    assert rotated.status_code == 200 and rotated.json()["revoked_tokens"] == 1
    body = right_answers(stored_challenge(admission_client, challenge_id), other_game)
    refused = answer(admission_client, challenge_id, body)
    assert refused.status_code == 401, refused.text
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert refused.json()["code"] == "auth/revoked"
    fresh = admission_client.post(
        "/v1/auth/token", json={"agent_id": agent["agent_id"], "secret": rotated.json()["secret"]})
    assert fresh.json()["scopes"] == [f"game:{GAME}"]  # the other game was not granted


def test_a_token_for_one_game_does_not_open_another(
    admission_client: TestClient, auth: Callable[[str], dict[str, str]]
) -> None:
    agent = register(admission_client, "grace-bot")
    other = admission_client.post(
        "/v1/tables",
        json={"game": "hab-und-gut", "mode": "standard", "seats": 3},
        headers=auth(agent["access_token"]),
    )
    assert other.status_code == 403, other.text
    assert other.json()["code"] == "auth/wrong_scope"
    own = admission_client.post(
        "/v1/tables",
        json={"game": GAME, "mode": "fortune", "seats": 2},
        headers=auth(agent["access_token"]),
    )
    assert own.status_code == 201, own.text


def test_passing_a_second_game_adds_its_scope(
    admission_client: TestClient,
    auth: Callable[[str], dict[str, str]],
    organiser_headers: dict[str, str],
) -> None:
    # An agent admitted to Hab & Gut (minted by the organiser) takes the Market Fortune admission.
    minted = admission_client.post(
        "/v1/auth/organiser/tokens",
        json={"name": "heidi-bot", "games": ["hab-und-gut"]},
        headers=organiser_headers,
    )
    assert minted.status_code == 201, minted.text
    token = minted.json()["access_token"]
    challenge = ask(admission_client, "heidi-bot", headers=auth(token))
    body = right_answers(stored_challenge(admission_client, challenge["challenge_id"]))
    passed = answer(admission_client, challenge["challenge_id"], body)
    assert passed.status_code == 201, passed.text
    result = passed.json()
    assert result["agent_id"] == minted.json()["agent_id"]
    assert result["secret"] is None
    assert result["scopes"] == ["game:hab-und-gut", f"game:{GAME}"]
    again = admission_client.post(
        CHALLENGES, json={"agent_name": "heidi-bot", "game": GAME},
        headers=auth(result["access_token"]),
    )
    assert again.status_code == 409 and again.json()["code"] == "admission/already_admitted"
    mismatch = admission_client.post(
        CHALLENGES, json={"agent_name": "someone-else", "game": GAME}, headers=auth(token)
    )
    assert mismatch.status_code == 403 and mismatch.json()["code"] == "admission/name_mismatch"


@pytest.mark.parametrize(
    ("name", "status", "code"),
    [
        ("ab", 422, "request/invalid"),
        ("x" * 33, 422, "request/invalid"),
        ("bad name", 422, "request/invalid"),
        ("-dash-first", 422, "request/invalid"),
        ("naïve-bot", 422, "request/invalid"),
        ("Admin", 422, "agent/name_reserved"),
        ("organiser", 422, "agent/name_reserved"),
        ("house-bot-7", 422, "agent/name_reserved"),
    ],
)
def test_names_are_validated(admission_client: TestClient, name: str, status: int, code: str) -> None:
    response = admission_client.post(CHALLENGES, json={"agent_name": name, "game": GAME})
    assert response.status_code == status, response.text
    assert response.json()["code"] == code


@pytest.mark.redis_cluster
def test_names_are_unique_case_insensitively(admission_client: TestClient) -> None:
    register(admission_client, "ivan-bot")
    taken = admission_client.post(CHALLENGES, json={"agent_name": "IVAN-bot", "game": GAME})
    assert taken.status_code == 409 and taken.json()["code"] == "agent/name_taken"


def test_unknown_game_and_strict_bodies(admission_client: TestClient) -> None:
    unknown = admission_client.post(CHALLENGES, json={"agent_name": "judy-bot", "game": "chess"})
    assert unknown.status_code == 404 and unknown.json()["code"] == "game/not_found"
    extra = admission_client.post(
        CHALLENGES, json={"agent_name": "judy-bot", "game": GAME, "admin": True}
    )
    assert extra.status_code == 422 and extra.json()["code"] == "request/invalid"
    challenge = ask(admission_client, "judy-bot")
    floaty = answer(admission_client, challenge["challenge_id"], {"answers": {"q1": 1.5}, "puzzle": {}})
    assert floaty.status_code == 422 and floaty.json()["code"] == "request/invalid"


@pytest.mark.parametrize("game", sorted(all_banks()))
def test_wrongly_typed_answers_are_refused_naming_each_field_and_spend_nothing(
    admission_client: TestClient, game: str
) -> None:
    """docs/agents.md: a value of the wrong JSON type is 422 ``request/invalid``, not a
    wrong answer; the challenge stays answerable."""
    created = admission_client.post(CHALLENGES, json={"agent_name": f"typo-{game}", "game": game})
    assert created.status_code == 201, created.text
    challenge_id = created.json()["challenge_id"]
    issued = stored_challenge(admission_client, challenge_id)
    body = right_answers(issued, game)
    typed_wrong: dict[str, Any] = {}
    for item in issued.questions:
        question = item.question
        if question.format == "integer":
            typed_wrong[question.id] = item.expected  # "4" for 4
        elif question.format == "yes_no":
            typed_wrong[question.id] = "true" if item.expected == "yes" else "false"
        else:
            typed_wrong[question.id] = 1  # an option's position, not its id
    refused = answer(admission_client, challenge_id, {
        "answers": typed_wrong, "puzzle": {"answer": body["puzzle"]}})
    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert problem["code"] == "request/invalid"
    named = {tuple(error["loc"][:3]) for error in problem["errors"]}
    for item in issued.questions:
        assert ("body", "answers", item.question.id) in named
        assert item.question.id in problem["detail"]
    assert any(error["loc"][:2] == ["body", "puzzle"] for error in problem["errors"])
    assert "nothing was graded" in problem["detail"]
    for item in issued.questions:  # the refusal names no expected answer
        if item.question.format == "single_choice":
            assert all(o.id in refused.text for o in item.question.options)
    # a puzzle answer missing a field is refused the same way
    partial = dict(body["puzzle"])
    partial.pop(sorted(partial)[0])
    missing = answer(admission_client, challenge_id, {"answers": body["answers"], "puzzle": partial})
    assert missing.status_code == 422 and missing.json()["code"] == "request/invalid"
    # still answerable: the right answers pass
    passed = answer(admission_client, challenge_id, body)
    assert passed.status_code == 201, passed.text


def test_every_registered_game_has_a_quiz() -> None:
    """Admission works per game: a game package without a quiz bank would leave
    its tables unreachable for admitted agents (the route answers
    ``admission/no_quiz`` then)."""
    from engine.registry import all_games

    assert set(all_games()) <= set(all_banks())


@pytest.mark.parametrize("game", sorted(all_banks()))
def test_every_game_with_a_quiz_admits_through_the_same_routes(
    admission_client: TestClient, game: str
) -> None:
    response = admission_client.post(CHALLENGES, json={"agent_name": "pat-bot", "game": game})
    assert response.status_code == 201, response.text
    challenge = response.json()
    assert len({q["category"] for q in challenge["questions"]}) == 3
    body = right_answers(stored_challenge(admission_client, challenge["challenge_id"]), game)
    passed = answer(admission_client, challenge["challenge_id"], body)
    assert passed.status_code == 201, passed.text
    assert passed.json()["scopes"] == [f"game:{game}"]
