"""The Market Fortune question bank: size, coverage, rulebook citations, seeded rendering."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

from quiz import get_bank
from quiz.questions import render

RULEBOOK = Path(__file__).resolve().parents[2] / "engine" / "market_fortune" / "rulebook.md"
CATEGORIES = {
    "setup", "turn_actions", "investments", "die", "strategies",
    "combat", "victory", "modes", "market_terms", "cards",
}  # fmt: skip


def _rulebook_sections() -> set[str]:
    return set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?) ", RULEBOOK.read_text(), flags=re.MULTILINE))


def test_bank_is_registered_with_forty_templates_over_every_category() -> None:
    bank = get_bank("market-fortune")
    assert len(bank.templates) >= 40
    assert set(bank.categories) == CATEGORIES
    per_category = Counter(t.category for t in bank.templates)
    assert min(per_category.values()) >= 2


def test_every_question_cites_an_existing_section_and_renders_well() -> None:
    sections = _rulebook_sections()
    bank = get_bank("market-fortune")
    parametrised = 0
    for template in bank.templates:
        prompts = set()
        for seed in range(60):
            issued = render(template, random.Random(seed), 1)
            question = issued.question
            assert question.section in sections, (template.id, question.section)
            assert question.category == template.category
            if question.format == "single_choice":
                assert 3 <= len(question.options) <= 6
                assert issued.expected in {o.id for o in question.options}
                assert len({o.text for o in question.options}) == len(question.options)
            prompts.add(question.prompt)
            # the expected answer never appears in the public question's JSON as a field
            assert "expected" not in question.model_dump_json()
        parametrised += len(prompts) > 1
    assert parametrised >= 20, parametrised
