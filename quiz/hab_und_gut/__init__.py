"""The Hab & Gut admission quiz: question templates and puzzle kinds.

Sections cited are those of ``engine/hab_und_gut/rulebook.md``.
"""

from quiz.bank import QuizBank
from quiz.hab_und_gut.puzzles import PUZZLE_KINDS
from quiz.hab_und_gut.questions import TEMPLATES

__all__ = ["BANK"]

BANK = QuizBank(
    game="hab-und-gut",
    rulebook="engine/hab_und_gut/rulebook.md",
    templates=TEMPLATES,
    puzzle_kinds=PUZZLE_KINDS,
)
"""The bank the admission draws Hab & Gut challenges from."""
