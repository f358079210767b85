"""docs/agents.md: a puzzle answer whose shape does not fit the question is refused with
``422 request/invalid`` before grading, for every answer kind of every puzzle, and the
challenge stays answerable (the right answer then passes).

A wrong shape is what the answer format and the situation shown already rule out: four
pairs where four are asked, one entry per seat shown, a Stock id where a Stock is asked,
a count in the stated range. A well-shaped wrong answer is graded (and spends the
challenge); ``tests/gateway/test_admission_flow.py`` covers that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from gateway.services.admission import AdmissionSettings
from quiz import all_banks, get_bank
from quiz.model import IssuedChallenge
from tests.gateway.test_admission_flow import (
    CHALLENGES,
    right_answers,
    stored_challenge,
    wrong_but_well_shaped,
)

Case = Callable[[IssuedChallenge, dict[str, Any]], dict[str, Any]]


def _pairs(count: int) -> Case:
    def build(issued: IssuedChallenge, right: dict[str, Any]) -> dict[str, Any]:
        pairs = list(right["investments"])
        return {"investments": (pairs * 2)[:count]}
    return build


def _seat_dropped(issued: IssuedChallenge, right: dict[str, Any]) -> dict[str, Any]:
    risks = dict(right["risks"])
    risks.pop(sorted(risks, key=int)[-1])
    return {"risks": risks}


def _seat_added(issued: IssuedChallenge, right: dict[str, Any]) -> dict[str, Any]:
    return {"risks": {**right["risks"], "9": None}}


def _swapped_risk(issued: IssuedChallenge, right: dict[str, Any]) -> dict[str, Any]:
    return {"risks": {seat: ["R.energy.1", "S.energy.1"] for seat in right["risks"]}}


SHAPE_CASES: dict[str, dict[str, Case]] = {
    "best_portfolio": {
        "three pairs": _pairs(3),
        "five pairs": _pairs(5),
        "a Return where the Stock goes": lambda i, r: {
            "investments": [[pair[1], pair[0]] for pair in r["investments"]]},
        "a card that does not exist": lambda i, r: {
            "investments": [["S.energy.9", pair[1]] for pair in r["investments"]]},
    },
    "best_risks": {
        "a seat left out": _seat_dropped,
        "a seat not shown": _seat_added,
        "a Return where the Stock goes": _swapped_risk,
    },
    "defence": {
        "a card named twice": lambda i, r: {**r, "defences": [*r["defences"], "X.risk_control.1", "X.risk_control.1"]},
        "not a Strategy id": lambda i, r: {**r, "defences": ["decline"]},
        "a negative count": lambda i, r: {**r, "if_declined": {**r["if_declined"], "hand": -1}},
        "investments above four": lambda i, r: {**r, "if_declined": {**r["if_declined"], "investments": 5}},
    },
    "price_moves": {
        "a commodity left out": lambda i, r: {"prices": {k: v for k, v in list(r["prices"].items())[1:]}},
        "a commodity that does not exist": lambda i, r: {"prices": {**r["prices"], "gold": 40}},
    },
    "final_reckoning": {
        "one donation short": lambda i, r: {**r, "donations": r["donations"][:-1]},
        "one fortune too many": lambda i, r: {**r, "final_money": [*r["final_money"], 0]},
        "a seat that does not exist": lambda i, r: {**r, "eliminated": [*r["eliminated"], 9]},
        "a winner named twice": lambda i, r: {**r, "winners": [*r["winners"], *r["winners"]]},
        "an empty answer": lambda i, r: {},
    },
}
"""Per puzzle kind, every way its answer can be wrong-shaped, built from the right answer."""

EVERY_KIND: dict[str, Case] = {
    "an empty answer": lambda i, r: {},
    "a field the format does not have": lambda i, r: {**r, "confidence": 0.9},
    "every field the wrong JSON type": lambda i, r: {key: "?" for key in r},
}
"""Wrong shapes every puzzle kind refuses alike."""


def test_every_puzzle_kind_has_its_shape_cases() -> None:
    kinds = {kind.name for bank in all_banks().values() for kind in bank.puzzle_kinds}
    assert kinds == set(SHAPE_CASES)


@pytest.mark.parametrize("seed", range(6))
def test_a_right_answer_never_misfits(seed: int) -> None:
    for bank in all_banks().values():
        for kind in bank.puzzle_kinds:
            issued = kind.generate(seed)
            assert kind.misfits(issued, kind.solve(issued)) == []


@pytest.fixture()
def roomy_client(app: FastAPI) -> Iterator[TestClient]:
    """Admission defaults, with room for the challenges it takes to meet every puzzle kind."""
    app.state.admission_settings = AdmissionSettings(challenges_per_name=100, challenges_per_address=100)
    with TestClient(app) as client:
        yield client


def _one_challenge_per_kind(client: TestClient, game: str) -> dict[str, tuple[str, IssuedChallenge]]:
    wanted = {kind.name for kind in get_bank(game).puzzle_kinds}
    found: dict[str, tuple[str, IssuedChallenge]] = {}
    for attempt in range(40):
        if set(found) == wanted:
            break
        created = client.post(CHALLENGES, json={"agent_name": f"shape-{attempt}-bot", "game": game})
        assert created.status_code == 201, created.text
        challenge_id = created.json()["challenge_id"]
        issued = stored_challenge(client, challenge_id)
        found.setdefault(issued.puzzle.puzzle.kind, (challenge_id, issued))
    assert set(found) == wanted
    return found


@pytest.mark.parametrize("game", sorted(all_banks()))
def test_every_wrong_shape_is_refused_before_grading_and_the_challenge_stays_open(
    roomy_client: TestClient, game: str
) -> None:
    for kind, (challenge_id, issued) in sorted(_one_challenge_per_kind(roomy_client, game).items()):
        body = right_answers(issued, game)
        for case, build in {**SHAPE_CASES[kind], **EVERY_KIND}.items():
            puzzle = build(issued, body["puzzle"])
            refused = roomy_client.post(f"{CHALLENGES}/{challenge_id}/answers",
                                        json={"answers": body["answers"], "puzzle": puzzle})
            assert refused.status_code == 422, (kind, case, refused.text)
            problem = refused.json()
            assert problem["code"] == "request/invalid", (kind, case)
            assert problem["errors"] and all(e["loc"][:2] == ["body", "puzzle"] for e in problem["errors"]), (kind, case)
        well_shaped = wrong_but_well_shaped(issued)
        assert get_bank(game).puzzle_kind(kind).misfits(issued.puzzle, well_shaped) == []
        passed = roomy_client.post(f"{CHALLENGES}/{challenge_id}/answers", json=body)
        assert passed.status_code == 201, (kind, passed.text)
