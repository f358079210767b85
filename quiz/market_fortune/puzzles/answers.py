"""Shared parsing of puzzle answers: strict, and never raising on bad input."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["AnswerModel", "CardPair", "parse"]

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
