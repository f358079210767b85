"""The Market Fortune admission quiz: question templates and puzzle kinds.

Sections cited are those of ``engine/market_fortune/rulebook.md``.
"""

from quiz.bank import QuizBank
from quiz.market_fortune.puzzles import PUZZLE_KINDS
from quiz.market_fortune.questions import TEMPLATES

__all__ = ["BANK"]

BANK = QuizBank(
    game="market-fortune",
    rulebook="engine/market_fortune/rulebook.md",
    templates=TEMPLATES,
    puzzle_kinds=PUZZLE_KINDS,
)
"""The bank the admission draws Market Fortune challenges from."""
