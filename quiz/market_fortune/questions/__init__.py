"""The Market Fortune question templates, by rulebook area.

Every answer is computed from :mod:`engine.market_fortune.cards`, the same
constants and catalogue the engine plays with.
"""

from quiz.market_fortune.questions import (
    investments_victory,
    setup_turn_die,
    strategies_combat,
    terms_modes,
)
from quiz.questions import QuestionTemplate

__all__ = ["TEMPLATES"]

TEMPLATES: tuple[QuestionTemplate, ...] = (
    *setup_turn_die.TEMPLATES,
    *investments_victory.TEMPLATES,
    *strategies_combat.TEMPLATES,
    *terms_modes.TEMPLATES,
)
"""All Market Fortune question templates."""
