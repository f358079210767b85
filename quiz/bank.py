"""A game's quiz: its question templates and its puzzle kinds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from quiz.puzzles import PuzzleKind
from quiz.questions import QuestionTemplate

__all__ = ["QuizBank"]


@dataclass(frozen=True)
class QuizBank:
    """Everything the admission of one game draws from.

    ``game`` is the engine's API name (``market-fortune``); ``rulebook`` is the
    document the questions' sections refer to (``engine/market_fortune/rulebook.md``).
    """

    game: str
    rulebook: str
    templates: Sequence[QuestionTemplate]
    puzzle_kinds: Sequence[PuzzleKind]

    def __post_init__(self) -> None:
        ids = [template.id for template in self.templates]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{self.game}: duplicate template ids")
        names = [kind.name for kind in self.puzzle_kinds]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.game}: duplicate puzzle kinds")

    @property
    def categories(self) -> tuple[str, ...]:
        """The categories the templates cover, sorted."""
        return tuple(sorted({template.category for template in self.templates}))

    def templates_in(self, category: str) -> tuple[QuestionTemplate, ...]:
        """The templates of one category, in bank order."""
        return tuple(t for t in self.templates if t.category == category)

    def puzzle_kind(self, name: str) -> PuzzleKind:
        """The puzzle kind called ``name``; raises KeyError."""
        for kind in self.puzzle_kinds:
            if kind.name == name:
                return kind
        raise KeyError(name)
