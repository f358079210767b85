"""Shared wording for Market Fortune questions: card names and draft shortcuts."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from engine.market_fortune.cards import (
    CATALOGUE,
    INDUSTRIES,
    VALUES,
    StrategyKind,
    card_industry,
    card_type,
    card_value,
)
from quiz.questions import Draft

__all__ = [
    "BLUES",
    "REDS",
    "card_words",
    "choice",
    "fraction_words",
    "integer",
    "pick_distractors",
    "random_investment",
    "seat_list",
    "yes_no",
]

REDS: tuple[StrategyKind, ...] = tuple(k for k in CATALOGUE if k.colour == "red")
BLUES: tuple[StrategyKind, ...] = tuple(k for k in CATALOGUE if k.colour == "blue")


def card_words(card_id: str) -> str:
    """A building card as the rulebook names it, with its id: ``S.energy.3 (energy Stock, 3M)``."""
    kind = "Stock" if card_type(card_id) == "stock" else "Return"
    return f"{card_id} ({card_industry(card_id)} {kind}, {card_value(card_id)}M)"


def random_investment(rng: random.Random, industry: str | None = None) -> tuple[str, str]:
    """A Stock and a Return of one industry (random unless given)."""
    chosen = industry or rng.choice(INDUSTRIES)
    return f"S.{chosen}.{rng.choice(VALUES)}", f"R.{chosen}.{rng.choice(VALUES)}"


def fraction_words(value: Fraction) -> str:
    """A probability as ``a/b`` in lowest terms."""
    return f"{value.numerator}/{value.denominator}"


def seat_list(seats: Sequence[int]) -> str:
    """``seats 1 and 3``, ``seat 2`` or ``nobody``."""
    if not seats:
        return "nobody"
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(str(s) for s in seats[:-1]) + f" and {seats[-1]}"


def pick_distractors(rng: random.Random, answer: str, pool: Sequence[str], count: int = 3) -> list[str]:
    """Up to ``count`` distinct wrong options drawn from ``pool``."""
    wrong = sorted({text for text in pool if text != answer})
    return rng.sample(wrong, min(count, len(wrong)))


def integer(prompt: str, answer: int, *, section: str | None = None, **params: Any) -> Draft:
    return Draft(prompt=prompt, format="integer", answer=answer, section=section, params=params)


def yes_no(prompt: str, answer: bool, *, section: str | None = None, **params: Any) -> Draft:
    return Draft(prompt=prompt, format="yes_no", answer=answer, section=section, params=params)


def choice(
    prompt: str,
    answer: str,
    distractors: Sequence[str],
    params: Mapping[str, Any] | None = None,
    *,
    section: str | None = None,
) -> Draft:
    """A single-choice question (the framework shuffles the options)."""
    return Draft(
        prompt=prompt,
        format="single_choice",
        answer=answer,
        distractors=tuple(distractors),
        section=section,
        params=dict(params or {}),
    )
