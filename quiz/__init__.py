"""The admission quiz: per-game question banks and puzzles, seeded and checked server-side.

Layout::

    model.py      what an agent sees (Question, Puzzle) and what only the server keeps
    questions.py  question templates, option shuffling, answer checking
    puzzles.py    the puzzle-kind protocol and the guess-chance bound
    bank.py       QuizBank: one game's templates and puzzle kinds
    registry.py   finds ``quiz/<game package>/`` exposing ``BANK``
    challenge.py  seeded challenges and grading

A game's quiz is a subpackage named like its engine package
(``quiz/market_fortune/``) exposing ``BANK``.
"""

from quiz.bank import QuizBank
from quiz.challenge import PUZZLE_CATEGORY, PassRule, generate, grade
from quiz.model import (
    Choice,
    Grade,
    IssuedChallenge,
    IssuedPuzzle,
    IssuedQuestion,
    Puzzle,
    Question,
    QuestionAnswer,
    QuestionFormat,
)
from quiz.puzzles import MAX_GUESS_CHANCE, PuzzleKind, UnsolvablePuzzle
from quiz.questions import Draft, QuestionTemplate
from quiz.registry import NoQuiz, all_banks, get_bank

__all__ = [
    "MAX_GUESS_CHANCE",
    "PUZZLE_CATEGORY",
    "Choice",
    "Draft",
    "Grade",
    "IssuedChallenge",
    "IssuedPuzzle",
    "IssuedQuestion",
    "NoQuiz",
    "PassRule",
    "Puzzle",
    "PuzzleKind",
    "Question",
    "QuestionAnswer",
    "QuestionFormat",
    "QuestionTemplate",
    "QuizBank",
    "UnsolvablePuzzle",
    "all_banks",
    "generate",
    "get_bank",
    "grade",
]
