"""Real game situations for puzzles: seeded random walks with the Market Fortune engine.

A walk deals a table with the engine and applies legal actions chosen with
seeded chance until a situation the puzzle wants appears. The walk prefers
Dominate and red plays half the time, so attacks and defence windows occur as
often as they do between players who use their Strategies.

The pair and value helpers ask the engine itself (``formable_pairs``,
``count``), so puzzles are judged by the rules the tables play by.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engine import chance
from engine.market_fortune import rules
from engine.market_fortune.effects import formable_pairs
from engine.market_fortune.scoring import count
from engine.market_fortune.state import (
    Investment,
    MarketFortuneConfig,
    MarketFortuneState,
    SeatState,
)

__all__ = ["investment_value", "valid_pairs", "walk"]

_PREFERRED = ("dominate", "play")


def walk(
    seed: int,
    *,
    seats: int,
    wanted: Callable[[MarketFortuneState], bool],
    min_steps: int = 0,
    max_steps: int = 800,
) -> MarketFortuneState | None:
    """The first state of a seeded random game, ``min_steps`` or more actions in,
    where ``wanted`` holds; None when the game ends or ``max_steps`` pass first.

    Chance draws use counters far above the engine's own (which start at 0 in
    the table's state), so the walk's choices never correlate with the deck.
    """
    state = rules.new_table(MarketFortuneConfig(mode="fortune", seats=seats), seed)
    for step in range(max_steps):
        if rules.outcome(state) is not None:
            return None
        if step >= min_steps and wanted(state):
            return state
        seat = rules.to_act(state)[0]
        legal = rules.legal_actions(state, seat)
        preferred = [action for action in legal if action.kind in _PREFERRED]
        if preferred and chance.draw_below(seed, 1_000_000 + step, 2) == 0:
            legal = preferred
        action = legal[chance.draw_below(seed, 2_000_000 + step, len(legal))]
        state, _ = rules.apply(state, seat, action)
    return None


def valid_pairs(stocks: Iterable[str], returns: Iterable[str]) -> set[tuple[str, str]]:
    """Stock + Return pairs the engine lets a seat holding these cards invest (no Innovation)."""
    holder = SeatState(hand=(*stocks, *returns))
    probe = MarketFortuneState(
        config=MarketFortuneConfig(mode="fortune", seats=2), seed=0, seats=(holder, SeatState())
    )
    return {(stock, ret) for stock, ret, innovation in formable_pairs(probe, 0) if innovation is None}


def investment_value(stock: str, ret: str) -> int:
    """The engine's count of one investment without Strategies (5.1, 8.1)."""
    return count(SeatState(investments=(Investment(stock=stock, ret=ret),))).total
