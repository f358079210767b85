"""Puzzle kinds: situations from seeded games, checked by the engine's rules.

A :class:`PuzzleKind` generates an :class:`~quiz.model.IssuedPuzzle` from a
seed, checks any answer against the situation (every correct answer passes,
not one stored string), finds one solution (which is how the generator proves
each puzzle solvable) and computes the chance that a random guess passes.

The random-guess model of each kind is stated in its docstring: a guess is
drawn uniformly from the well-formed answers built from what the puzzle shows.
Generators reject situations whose chance is above :data:`MAX_GUESS_CHANCE`.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from quiz.model import IssuedPuzzle

__all__ = ["MAX_GUESS_CHANCE", "Misfit", "PuzzleKind", "UnsolvablePuzzle"]

MAX_GUESS_CHANCE = Fraction(1, 10_000)
"""The most a uniformly random well-formed answer may pass with."""


Misfit = tuple[tuple[str, ...], str]
"""Where an answer does not fit its puzzle (the path inside the answer) and why."""


class UnsolvablePuzzle(RuntimeError):
    """A generator could not find a fitting situation within its attempts."""


@runtime_checkable
class PuzzleKind(Protocol):
    """What a game's puzzle kind provides (one module per kind)."""

    name: str
    """Stable machine name, e.g. ``best_portfolio``."""

    @property
    def answer_model(self) -> type[BaseModel]:
        """The answer's shape (strict, unknown fields refused): an answer that does not
        fit it is refused before grading (``request/invalid``), so a typo never spends
        a challenge."""
        ...

    def misfits(self, issued: IssuedPuzzle, answer: Mapping[str, Any]) -> list[Misfit]:
        """Where an answer that fits :attr:`answer_model` still does not fit this puzzle's
        question (four pairs where four are asked, one entry per seat shown, a Stock id
        where a Stock is asked): refused before grading like a type error, so the
        challenge stays open. Names only what the puzzle already shows, never whether
        an answer is right."""
        ...

    def generate(self, seed: int) -> IssuedPuzzle:
        """A solvable puzzle for ``seed`` whose guess chance is at most :data:`MAX_GUESS_CHANCE`.

        :raises UnsolvablePuzzle: when no fitting situation was found.
        """
        ...

    def check(self, issued: IssuedPuzzle, answer: Mapping[str, Any]) -> bool:
        """True when ``answer`` solves ``issued``; any malformed answer is False."""
        ...

    def solve(self, issued: IssuedPuzzle) -> dict[str, Any]:
        """One correct answer (tests and the generator's solvability proof)."""
        ...

    def guess_chance(self, issued: IssuedPuzzle) -> Fraction:
        """Probability that a uniformly random well-formed answer passes."""
        ...
