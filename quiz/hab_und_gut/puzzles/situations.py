"""Seeded Hab & Gut games for the puzzles, and the engine replay the checkers trust.

A puzzle's secret is the table seed, the seat count and the action log up to
the moment it shows; :func:`replayed` rebuilds that state with the engine
(:func:`engine.core.replay`), so a checker judges an answer by the engine's
rules and not by a stored string.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from engine.bots import RANDOM, Bot, bot_seed, decide
from engine.core import replay
from engine.hab_und_gut import GAME
from engine.hab_und_gut.actions import HabAction
from engine.hab_und_gut.bots import GREEDY
from engine.hab_und_gut.state import HabConfig, HabState

__all__ = ["Moment", "replayed", "walk"]

Moment = tuple[HabState, HabState, list[tuple[int, str]]]
"""(state before the step, state after it, the log up to and including it)."""


def walk(game_seed: int, seats: int, stop: Callable[[HabState, HabState], bool]) -> Moment | None:
    """Play a seeded table (greedy on seat 0, random elsewhere) until ``stop(before, after)``.

    Returns ``None`` if the table ends first.
    """
    state = GAME.new_table(HabConfig(seats=seats), game_seed)
    log: list[tuple[int, str]] = []
    bots: list[Bot] = [GREEDY, *([RANDOM] * (seats - 1))]
    while GAME.outcome(state) is None:
        (seat,) = GAME.to_act(state)
        action = cast(
            HabAction, decide(bots[seat], GAME, state, seat, bot_seed(game_seed, len(log), seat))
        )
        before = state
        state, _ = GAME.apply(state, seat, action)
        log.append((seat, action.id))
        if stop(before, state):
            return before, state, log
    return None


def replayed(secret: Mapping[str, Any]) -> HabState:
    """The state a puzzle's secret (``game_seed``, ``seats``, ``log``) leads to, by the engine."""
    log = [(int(seat), str(action_id)) for seat, action_id in secret["log"]]
    state: HabState = replay(
        GAME, HabConfig(seats=int(secret["seats"])), int(secret["game_seed"]), log
    )
    return state
