"""Puzzle: settle the end of a game — donations, eliminations, final fortunes, winners.

Situation: a seeded game right after the last market pick of turn 8: the final
prices, and for every seat its money, the shares it holds, the shares face
down on its charity board (shown here, as they are about to be turned over)
and the charity money from round 1. Task: every seat's donation (7.1), who is
eliminated (7.2), every seat's money after selling its shares (7.4) and who
wins. The checker replays the game to its end with the engine and compares.

Random-guess model: every money amount is a multiple of 5, so a guess draws
each donation and each final fortune uniformly from the 1,001 multiples of 5
in 0..5000, the eliminated seats from every subset of seats and the winners
from every non-empty subset; the chance is
``1 / (1001**(2*seats) * 2**seats * (2**seats - 1))``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from engine.hab_und_gut.components import COMMODITIES, SHARE_CARDS, TRACK
from engine.hab_und_gut.state import HabState
from quiz.hab_und_gut.puzzles.situations import replayed, walk
from quiz.model import IssuedPuzzle, Puzzle
from quiz.puzzles import MAX_GUESS_CHANCE, Misfit, UnsolvablePuzzle

__all__ = ["FinalReckoning"]

AMOUNTS = 1001
"""Multiples of 5 from 0 to 5000: the guess model's range for one amount."""


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    donations: list[int]
    eliminated: list[int]
    final_money: list[int]
    winners: list[int]


def _commodities(cards: tuple[str, ...]) -> dict[str, int]:
    counts = {commodity: 0 for commodity in COMMODITIES}
    for card in cards:
        counts[SHARE_CARDS[card].commodity] += 1
    return {commodity: count for commodity, count in counts.items() if count}


def _last_pick(before: HabState, after: HabState) -> bool:
    return after.phase == "over"


class FinalReckoning:
    """The ``final_reckoning`` puzzle kind (sections 6.1, 7.1, 7.2, 7.4)."""

    name = "final_reckoning"
    answer_model = _Answer

    def generate(self, seed: int) -> IssuedPuzzle:
        """The end of a seeded game; see the module docstring."""
        rng = random.Random(seed)
        for _attempt in range(20):
            game_seed = rng.getrandbits(62)
            seats = rng.randint(3, 5)
            moment = walk(game_seed, seats, _last_pick)
            if moment is None:
                continue
            before, after, log = moment
            if not any(before.charity) or not after.eliminated:
                continue  # nothing to settle, or nobody out: too plain
            issued = IssuedPuzzle(
                puzzle=Puzzle(
                    kind=self.name,
                    title="The final reckoning",
                    sections=("6.1", "7.1", "7.2", "7.4"),
                    prompt=(
                        f"A seeded {seats}-seat Hab & Gut game has just made its last market pick "
                        "of turn 8. Settle the game: turn over and sell the charity boards, decide "
                        "who is eliminated, let every seat sell its remaining shares, and name the "
                        "winners. Seats are numbered from 0; lists go by seat number."
                    ),
                    situation={
                        "prices": {
                            commodity: TRACK[after.prices[index]]
                            for index, commodity in enumerate(COMMODITIES)
                        },
                        "seats": [
                            {
                                "seat": seat,
                                "money": before.money[seat],
                                "shares": _commodities(before.shares[seat]),
                                "charity_face_down": _commodities(before.charity[seat]),
                                "charity_money_round_1": before.charity_money[seat],
                            }
                            for seat in range(seats)
                        ],
                    },
                    answer_format=(
                        '{"donations": [<each seat\'s total charity money>], "eliminated": '
                        '[<seat>, ...], "final_money": [<each seat\'s money after selling its '
                        'shares>], "winners": [<seat>, ...]}'
                    ),
                ),
                secret={"game_seed": game_seed, "seats": seats, "log": [list(e) for e in log]},
            )
            if self.guess_chance(issued) <= MAX_GUESS_CHANCE and self.check(
                issued, self.solve(issued)
            ):
                return issued
        raise UnsolvablePuzzle(f"{self.name}: no fitting situation for seed {seed}")

    def misfits(self, issued: IssuedPuzzle, answer: Mapping[str, Any]) -> list[Misfit]:
        """One amount per seat shown, and seat lists of distinct seats that exist."""
        parsed = _Answer.model_validate(dict(answer))
        seats = len(issued.puzzle.situation["seats"])
        misfits: list[Misfit] = []
        for field in ("donations", "final_money"):
            if len(getattr(parsed, field)) != seats:
                misfits.append(((field,), f"Must list one amount for each of the {seats} seats, by seat number"))
        for field in ("eliminated", "winners"):
            listed: list[int] = getattr(parsed, field)
            if any(not 0 <= seat < seats for seat in listed):
                misfits.append(((field,), f"Seats are numbered 0 to {seats - 1}"))
            if len(set(listed)) != len(listed):
                misfits.append(((field,), "Must not name a seat twice"))
        return misfits

    def check(self, issued: IssuedPuzzle, answer: Mapping[str, Any]) -> bool:
        """Every figure and both seat sets equal the engine's settlement (seat order free)."""
        try:
            parsed = _Answer.model_validate(dict(answer))
        except (ValidationError, TypeError, ValueError):
            return False
        final = replayed(issued.secret)
        return (
            tuple(parsed.donations) == final.donations
            and sorted(parsed.eliminated) == list(final.eliminated)
            and len(set(parsed.eliminated)) == len(parsed.eliminated)
            and tuple(parsed.final_money) == final.money
            and sorted(parsed.winners) == list(final.winners)
            and len(set(parsed.winners)) == len(parsed.winners)
        )

    def solve(self, issued: IssuedPuzzle) -> dict[str, Any]:
        """The engine's settlement."""
        final = replayed(issued.secret)
        return {
            "donations": list(final.donations),
            "eliminated": list(final.eliminated),
            "final_money": list(final.money),
            "winners": list(final.winners),
        }

    def guess_chance(self, issued: IssuedPuzzle) -> Fraction:
        seats = int(issued.secret["seats"])
        return Fraction(1, AMOUNTS ** (2 * seats) * 2**seats * (2**seats - 1))
