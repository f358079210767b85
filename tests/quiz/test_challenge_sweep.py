"""1,000 seeded Market Fortune challenges: every puzzle solvable and hard to guess, every
question's answer the engine's, no two questions of a challenge from one category."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from quiz import MAX_GUESS_CHANCE, IssuedQuestion, generate, get_bank
from tests.quiz.market_fortune_oracle import ENGINE_ANSWERS, RULEBOOK_FACTS, rule_answer

RULEBOOK = Path(__file__).resolve().parents[2] / "engine" / "market_fortune" / "rulebook.md"
CHALLENGES = 1_000


@cache
def _rulebook() -> str:
    return " ".join(RULEBOOK.read_text(encoding="utf-8").split())


@cache
def _engine_answer(template: str, frozen: str) -> Any:
    import json

    return ENGINE_ANSWERS[template](json.loads(frozen))


def expected_value(issued: IssuedQuestion) -> Any:
    """The issued expected answer as a value: an option's text, an int or a bool."""
    question = issued.question
    if question.format == "single_choice":
        return next(o.text for o in question.options if o.id == issued.expected)
    if question.format == "integer":
        return int(issued.expected)
    return issued.expected == "yes"


def engine_value(issued: IssuedQuestion) -> Any:
    """What the engine (or, for prose rules, the rulebook) says the answer is."""
    import json

    template = issued.question.template
    if template in ENGINE_ANSWERS:
        return _engine_answer(template, json.dumps(issued.params, sort_keys=True))
    if template in RULEBOOK_FACTS:
        answer, sentence = RULEBOOK_FACTS[template]
        assert " ".join(sentence.split()) in _rulebook(), (template, sentence)
        return answer
    ruled = rule_answer(template, dict(issued.params))
    assert ruled is not None, f"no independent answer for {template}"
    return ruled


def test_every_template_has_an_independent_answer() -> None:
    for template in get_bank("market-fortune").templates:
        known = template.id in ENGINE_ANSWERS or template.id in RULEBOOK_FACTS
        assert known or template.id in {
            "strategies.red_on_action", "combat.targets", "cards.turn_effects", "modes.which_mode",
        }, template.id  # fmt: skip
    assert len(ENGINE_ANSWERS) >= 40


@pytest.mark.slow
def test_a_thousand_seeded_challenges() -> None:
    bank = get_bank("market-fortune")
    kinds_seen: dict[str, int] = {}
    templates_seen: set[str] = set()
    for seed in range(CHALLENGES):
        challenge = generate(bank, seed)
        categories = [q.question.category for q in challenge.questions]
        assert len(set(categories)) == len(categories) == 3, (seed, categories)
        for issued in challenge.questions:
            templates_seen.add(issued.question.template)
            assert expected_value(issued) == engine_value(issued), (seed, issued.question.prompt)
            assert re.fullmatch(r"\d+(\.\d+)?", issued.question.section)
        kind = bank.puzzle_kind(challenge.puzzle.puzzle.kind)
        kinds_seen[kind.name] = kinds_seen.get(kind.name, 0) + 1
        assert kind.check(challenge.puzzle, kind.solve(challenge.puzzle)), seed
        assert kind.guess_chance(challenge.puzzle) <= MAX_GUESS_CHANCE, seed
    assert set(kinds_seen) == {k.name for k in bank.puzzle_kinds}
    assert len(templates_seen) >= 60
