"""Building table results for the tournament tests."""

from __future__ import annotations

from collections.abc import Sequence

from tournament.results import TableResult


def result(seating: Sequence[str], places: Sequence[int], *, index: int = 0, board: int | None = None,
           round: int = 0) -> TableResult:
    """A result with the given seating and placements (board defaults to the index)."""
    return TableResult(index=index, board=index if board is None else board, round=round,
                       table_id=f"tbl_{index}", seating=tuple(seating), placements=tuple(places),
                       scores=(), reason="victory", finished_at=float(index))
