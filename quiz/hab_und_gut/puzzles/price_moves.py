"""Puzzle: where the prices stand after a whole market phase.

Situation: the six prices (track space and value) when a market phase of a
seeded game begins, and every pick of that phase in order (seat, card face,
in full or halved). Task: the price of every commodity once the phase is over
(rulebook 5.1, 5.3: halving, stopping at the ends of the track). The checker
replays the game with the engine and compares.

Random-guess model: a guess names one of the 30 track prices for each of the
six commodities, uniformly; the chance is ``(1/30)**6``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from engine.hab_und_gut import GAME
from engine.hab_und_gut.actions import Halve, Play
from engine.hab_und_gut.components import COMMODITIES, TRACK
from engine.hab_und_gut.rules import price_of
from engine.hab_und_gut.state import HabState
from quiz.hab_und_gut.puzzles.situations import replayed, walk
from quiz.model import IssuedPuzzle, Puzzle
from quiz.puzzles import MAX_GUESS_CHANCE, Misfit, UnsolvablePuzzle

__all__ = ["PriceMoves"]

MIN_COMMODITIES_MOVED = 4
"""A phase that touches fewer commodities is too plain a puzzle."""


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    prices: dict[str, int]


def _market_phase_over(turn: int) -> Callable[[HabState, HabState], bool]:
    """A :func:`walk` stop: the last pick of ``turn``'s market phase has just been made."""

    def stop(before: HabState, after: HabState) -> bool:
        return (
            before.turn == turn
            and before.phase == "market"
            and (after.turn != turn or after.phase == "over")
        )

    return stop


class PriceMoves:
    """The ``price_moves`` puzzle kind (sections 5.1, 5.3)."""

    name = "price_moves"
    answer_model = _Answer

    def generate(self, seed: int) -> IssuedPuzzle:
        """A market phase of a seeded game; see the module docstring."""
        rng = random.Random(seed)
        for _attempt in range(20):
            game_seed = rng.getrandbits(62)
            seats = rng.randint(3, 5)
            turn = rng.randint(1, 8)
            moment = walk(game_seed, seats, _market_phase_over(turn))
            if moment is None:
                continue
            _, _, log = moment
            # Every seat makes exactly two picks, so the phase is the log's tail.
            opening_log = log[: -2 * seats]
            opening = replayed({"game_seed": game_seed, "seats": seats, "log": opening_log})
            picks = self._picks(log[-2 * seats :])
            if len({pick["commodity"] for pick in picks}) < MIN_COMMODITIES_MOVED:
                continue
            issued = IssuedPuzzle(
                puzzle=Puzzle(
                    kind=self.name,
                    title="Prices after a market phase",
                    sections=("5.1", "5.3"),
                    prompt=(
                        f"A seeded {seats}-seat Hab & Gut game, turn {turn}. The market phase "
                        "begins with the prices below; the seats then make the picks listed, in "
                        "this order (a full card moves its marker by its value in spaces, a halved "
                        "one by half of it; a marker stops at either end of its track). Give the "
                        "price of every commodity when the phase is over."
                    ),
                    situation={
                        "track": list(TRACK),
                        "prices": [
                            {
                                "commodity": commodity,
                                "space": opening.prices[index],
                                "price": TRACK[opening.prices[index]],
                            }
                            for index, commodity in enumerate(COMMODITIES)
                        ],
                        "picks": picks,
                    },
                    answer_format=(
                        '{"prices": {"coal": <price>, "wheat": <price>, "coffee": <price>, '
                        '"rubber": <price>, "tea": <price>, "salt": <price>}}'
                    ),
                ),
                secret={"game_seed": game_seed, "seats": seats, "log": [list(e) for e in log]},
            )
            if self.guess_chance(issued) <= MAX_GUESS_CHANCE and self.check(
                issued, self.solve(issued)
            ):
                return issued
        raise UnsolvablePuzzle(f"{self.name}: no fitting situation for seed {seed}")

    @staticmethod
    def _picks(steps: list[tuple[int, str]]) -> list[dict[str, Any]]:
        """The public picks of the phase: who played which face, and how (no card ids)."""
        picks: list[dict[str, Any]] = []
        for seat, action_id in steps:
            action = GAME.parse_action(action_id)
            if not isinstance(action, (Play, Halve)):
                raise ValueError(f"{action_id} is not a market pick")
            picks.append(
                {
                    "seat": seat,
                    "commodity": action.commodity,
                    "value": action.value,
                    "mode": "full" if isinstance(action, Play) else "half",
                }
            )
        return picks

    @staticmethod
    def _final(issued: IssuedPuzzle) -> dict[str, int]:
        state = replayed(issued.secret)
        return {commodity: price_of(state, commodity) for commodity in COMMODITIES}

    def misfits(self, issued: IssuedPuzzle, answer: Mapping[str, Any]) -> list[Misfit]:
        """One price for each of the six commodities, by name."""
        parsed = _Answer.model_validate(dict(answer))
        misfits: list[Misfit] = [
            (("prices",), f"Must give a price for {commodity}")
            for commodity in COMMODITIES if commodity not in parsed.prices
        ]
        misfits += [
            (("prices", name), f"No such commodity; the six are {', '.join(COMMODITIES)}")
            for name in sorted(set(parsed.prices) - set(COMMODITIES))
        ]
        return misfits

    def check(self, issued: IssuedPuzzle, answer: Mapping[str, Any]) -> bool:
        """The six prices equal the engine's after replaying the phase."""
        try:
            parsed = _Answer.model_validate(dict(answer))
        except (ValidationError, TypeError, ValueError):
            return False
        return parsed.prices == self._final(issued)

    def solve(self, issued: IssuedPuzzle) -> dict[str, Any]:
        """The engine's prices."""
        return {"prices": self._final(issued)}

    def guess_chance(self, issued: IssuedPuzzle) -> Fraction:
        """One track price per commodity, uniformly: ``(1/30)**6``."""
        return Fraction(1, len(TRACK) ** len(COMMODITIES))
