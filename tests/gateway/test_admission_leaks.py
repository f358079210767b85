"""Secrets and expected answers never leave the server: not in a response, not in a log line.

The log capture takes every record at DEBUG from every logger, before the
platform's scrubbing handler: our own code must not emit them at all.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any

import pytest
import redis
from fastapi import FastAPI
from fastapi.testclient import TestClient

from gateway.services.admission import AdmissionSettings
from quiz import get_bank
from tests.gateway.test_admission_flow import (
    CHALLENGES,
    GAME,
    right_answers,
    stored_challenge,
    wrong_first_answer,
)

PROBLEM_KEYS = {"type", "title", "status", "detail", "code", "instance", "score"}

SECRET_SHAPED = re.compile(
    r"(?<![A-Za-z0-9_-])(acs_[A-Za-z0-9_-]{16,}|eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.)")
"""An agent secret or a signed token (a JWT's header and payload) standing on its own: not
a random id (``chl_...``) that happens to hold ``eyJ`` or ``acs_``."""


def test_secrets_and_expected_answers_stay_on_the_server(
    app: FastAPI, caplog: pytest.LogCaptureFixture, auth: Callable[[str], dict[str, str]]
) -> None:
    caplog.set_level(logging.DEBUG)
    app.state.admission_settings = AdmissionSettings()
    forbidden: list[str] = []
    responses: list[str] = []
    with TestClient(app) as client:
        # a failed attempt, then a pass
        first = client.post(CHALLENGES, json={"agent_name": "olga-bot", "game": GAME})
        issued = stored_challenge(client, first.json()["challenge_id"])
        failed = client.post(
            f"{CHALLENGES}/{first.json()['challenge_id']}/answers",
            json=wrong_first_answer(issued, right_answers(issued)),
        )
        assert failed.status_code == 403
        assert set(failed.json()) <= PROBLEM_KEYS
        responses += [first.text, failed.text]

        second = client.post(CHALLENGES, json={"agent_name": "olga-bot", "game": GAME})
        challenge_id = second.json()["challenge_id"]
        issued = stored_challenge(client, challenge_id)
        # the challenge carries the public questions and puzzle and nothing else
        assert second.json()["questions"] == [q.question.model_dump(mode="json") for q in issued.questions]
        assert second.json()["puzzle"] == issued.puzzle.puzzle.model_dump(mode="json")
        body = right_answers(issued)
        solution = body["puzzle"]
        forbidden.append(json.dumps(solution))
        forbidden += [card for card in json.dumps(solution).split('"') if card[:2] in ("S.", "R.", "X.")]
        forbidden.append(json.dumps(issued.puzzle.secret))
        passed = client.post(f"{CHALLENGES}/{challenge_id}/answers", json=body)
        assert passed.status_code == 201
        agent = passed.json()
        forbidden += [agent["secret"], agent["access_token"]]
        # the expected answers are deleted from Redis once the challenge is answered
        with redis.Redis.from_url(app.state.settings.redis_url) as peek:
            raw = peek.hgetall(app.state.keys.global_("admission", "challenge", challenge_id))
        assert b"payload" not in raw and b"answered" in raw

        credentials = {"agent_id": agent["agent_id"], "secret": agent["secret"]}
        renewed = client.post("/v1/auth/token", json=credentials)
        rotated = client.post("/v1/auth/secret", json=credentials)
        refused = client.post("/v1/auth/token", json=credentials)
        assert refused.status_code == 401
        forbidden += [renewed.json()["access_token"], rotated.json()["secret"]]
        client.post("/v1/auth/revoke", headers=auth(renewed.json()["access_token"]), json={})
        responses += [renewed.text, refused.text]

    # no response other than the pass and the rotation names a secret
    assert agent["secret"] not in renewed.text + refused.text
    for text in responses:
        for secret_text in (json.dumps(issued.puzzle.secret), '"expected"', '"params"', '"secret": "acs_'):
            assert secret_text not in text
    records = [record.getMessage() + (record.exc_text or "") for record in caplog.records]
    assert any("admission challenge" in line for line in records)  # the capture did see our logs
    for line in records:
        for secret_text in forbidden:
            assert secret_text not in line, (secret_text, line)
        assert SECRET_SHAPED.search(line) is None, line


def test_every_question_shape_is_public_only() -> None:
    """The public models have no field that could carry an expected answer."""
    from quiz.model import Puzzle, Question

    assert set(Question.model_fields) == {"id", "template", "category", "section", "format", "prompt", "options"}
    assert set(Puzzle.model_fields) == {"kind", "title", "sections", "prompt", "situation", "answer_format"}
    bank = get_bank(GAME)
    for kind in bank.puzzle_kinds:
        issued = kind.generate(11)
        public: dict[str, Any] = issued.puzzle.model_dump(mode="json")
        if issued.secret:
            assert json.dumps(issued.secret) not in json.dumps(public)
