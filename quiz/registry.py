"""Finds the quizzes: every subpackage of :mod:`quiz` that exposes ``BANK``.

A game's quiz is ``quiz/<engine package name>/`` whose ``__init__`` defines
``BANK`` (a :class:`~quiz.bank.QuizBank`), mirroring :mod:`engine.registry`:
adding a game's admission needs no change anywhere else.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

import quiz
from quiz.bank import QuizBank

__all__ = ["NoQuiz", "all_banks", "get_bank"]


class NoQuiz(KeyError):
    """No quiz exists for that game."""


@cache
def all_banks() -> dict[str, QuizBank]:
    """Every quiz bank by its game's API name, sorted."""
    found: dict[str, QuizBank] = {}
    for module_info in pkgutil.iter_modules(quiz.__path__):
        if not module_info.ispkg:
            continue
        module = importlib.import_module(f"quiz.{module_info.name}")
        bank = getattr(module, "BANK", None)
        if isinstance(bank, QuizBank):
            found[bank.game] = bank
    return dict(sorted(found.items()))


def get_bank(game: str) -> QuizBank:
    """The quiz bank of ``game``; raises :class:`NoQuiz`."""
    try:
        return all_banks()[game]
    except KeyError:
        raise NoQuiz(game) from None
