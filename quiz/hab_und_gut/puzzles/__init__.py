"""Hab & Gut puzzle kinds, generated from seeded games and judged by replaying them with the engine."""

from quiz.hab_und_gut.puzzles.final_reckoning import FinalReckoning
from quiz.hab_und_gut.puzzles.price_moves import PriceMoves
from quiz.puzzles import PuzzleKind

__all__ = ["PUZZLE_KINDS", "FinalReckoning", "PriceMoves"]

PUZZLE_KINDS: tuple[PuzzleKind, ...] = (PriceMoves(), FinalReckoning())
"""Every Hab & Gut puzzle kind."""
