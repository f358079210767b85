"""Market Fortune puzzle kinds, each generated from seeded games and judged by the engine."""

from quiz.market_fortune.puzzles.best_portfolio import BestPortfolio
from quiz.market_fortune.puzzles.best_risks import BestRisks
from quiz.market_fortune.puzzles.defence import Defence
from quiz.puzzles import PuzzleKind

__all__ = ["PUZZLE_KINDS", "BestPortfolio", "BestRisks", "Defence"]

PUZZLE_KINDS: tuple[PuzzleKind, ...] = (BestPortfolio(), BestRisks(), Defence())
"""Every Market Fortune puzzle kind."""
