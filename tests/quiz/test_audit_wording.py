"""The quiz points of issue 36's audit, as every seeded question words them.

A count question names the Strategy that Momentum gave for the 4th investment (so
the hand it describes can occur) and says a yellow was kept from an earlier turn;
questions whose answer a variant flips say "under the default rules"; questions
that hinge on a rule of our own say so (Market Fortune 3.2 Build discards, Hab &
Gut 7.2 tie of every seat). 200 seeds of each template.
"""

from __future__ import annotations

import random

import pytest

from quiz import get_bank

SEEDS = range(200)

WORDING: list[tuple[str, str, str, tuple[str, ...]]] = [
    # (game, template, section, phrases every prompt holds)
    ("market-fortune", "victory.count_value", "8.1", ("Besides the Strategy that Momentum gave you",)),
    ("market-fortune", "victory.count_wins", "8.2", ("Besides the Strategy that Momentum gave you",)),
    ("market-fortune", "victory.hold_back", "8.1", ("Under the default rules",)),
    ("market-fortune", "modes.championship_opener", "2.3", ("Under the default rules",)),
    ("market-fortune", "turn.build_discard", "3.2", ("the Agents Club's own rule", "the print")),
    ("hab-und-gut", "game_end.all_tied", "7.2", ("the Agents Club's own ruling", "departure from the print")),
]


@pytest.mark.parametrize(("game", "template_id", "section", "phrases"), WORDING,
                         ids=[f"{game}:{template}" for game, template, _s, _p in WORDING])
def test_every_seeded_prompt_words_the_audit_point(
    game: str, template_id: str, section: str, phrases: tuple[str, ...],
) -> None:
    template = next(t for t in get_bank(game).templates if t.id == template_id)
    assert template.section == section
    for seed in SEEDS:
        prompt = template.build(random.Random(seed)).prompt
        for phrase in phrases:
            assert phrase in prompt, (template_id, seed, prompt)
        assert "You hold no Strategy" not in prompt  # the 4th investment always drew one
        if "(yellow)" in prompt:
            assert "kept from an earlier turn" in prompt, (template_id, seed, prompt)
