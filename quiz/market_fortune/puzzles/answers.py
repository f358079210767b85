"""Shared parsing of puzzle answers: strict, and never raising on bad input."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.market_fortune.cards import RETURN_IDS, STOCK_IDS
from quiz.puzzles import Misfit

__all__ = ["AnswerModel", "CardPair", "pair_misfits", "parse"]

_STOCKS = frozenset(STOCK_IDS)
_RETURNS = frozenset(RETURN_IDS)

CardPair = Annotated[list[str], Field(min_length=2, max_length=2)]
"""``["<Stock id>", "<Return id>"]`` (a JSON array, so a list even in strict mode)."""

M = TypeVar("M", bound=BaseModel)


class AnswerModel(BaseModel):
    """Base of puzzle answers: unknown fields refused, nothing coerced."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def parse(model: type[M], answer: Mapping[str, Any]) -> M | None:
    """``answer`` as ``model``, or None when it does not fit (a wrong answer, not an error)."""
    try:
        return model.model_validate(dict(answer))
    except (ValidationError, TypeError, ValueError):
        return None


def pair_misfits(path: tuple[str, ...], pair: list[str]) -> list[Misfit]:
    """A ``[Stock id, Return id]`` pair whose members are not such ids (``S.energy.3``,
    ``R.energy.2``): a shape error, whatever the puzzle shows."""
    misfits: list[Misfit] = []
    if pair[0] not in _STOCKS:
        misfits.append(((*path, "0"), "Must be a Stock id such as S.energy.3"))
    if pair[1] not in _RETURNS:
        misfits.append(((*path, "1"), "Must be a Return id such as R.energy.2"))
    return misfits
