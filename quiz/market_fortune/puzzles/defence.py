"""Puzzle: which cards answer this attack, and what declining it costs.

Situation: a defence window (7.2) of a seeded game: who attacks with which
red, the defender's strategy hand and public counts. Task: every card of the
strategy hand that may answer this attack (the engine's legal defences: any
blue, Diamond Hands only against an attack on investments, 12.18), and the
defender's investments, building cards in hand and Strategies once the attack
on it is resolved if it declines. Both are worked out by the engine: the
defences from its legal actions, the counts by applying ``decline`` and the
decisions the attack then calls for.

Random-guess model: a guess picks a subset of the strategy hand (``2^h``)
and each count uniformly in its stated range (investments 0-4, the other two
0-20).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from engine.market_fortune import rules
from engine.market_fortune.actions import Decline
from engine.market_fortune.cards import INVESTMENTS_TO_WIN, STRATEGY_IDS, kind_of
from engine.market_fortune.state import MarketFortuneState
from quiz.market_fortune.puzzles.answers import AnswerModel, parse
from quiz.market_fortune.puzzles.situations import walk
from quiz.model import IssuedPuzzle, Puzzle
from quiz.puzzles import MAX_GUESS_CHANCE, Misfit, UnsolvablePuzzle

__all__ = ["COUNT_RANGE", "Defence", "declined_counts", "legal_defences"]

COUNT_RANGE = 20
"""Hand and Strategy counts are stated as integers from 0 to this."""
MIN_STRATEGIES = 3
"""Smallest strategy hand a situation is taken with (fewer makes the guess too easy)."""

_STRATEGIES = frozenset(STRATEGY_IDS)
_SETTLE_STEPS = 40


class _Counts(AnswerModel):
    investments: int
    hand: int
    strategies: int


class _Answer(AnswerModel):
    defences: list[str]
    if_declined: _Counts


def _window(state: MarketFortuneState) -> int | None:
    """The defender of an original target's open defence window (not a bounce), else None."""
    attack = state.attack
    if state.tasks or attack is None or attack.defender is None:
        return None
    if attack.source != attack.attacker:
        return None  # a Wrong Analyst bounce: the attacker defends itself
    return attack.defender


def legal_defences(state: MarketFortuneState, defender: int) -> list[str]:
    """The blue cards the engine lets ``defender`` answer with now, sorted."""
    return sorted(
        action.card for action in rules.legal_actions(state, defender) if action.kind == "defend"
    )


def declined_counts(state: MarketFortuneState, defender: int) -> dict[str, int]:
    """Apply ``decline`` and the decisions the hit calls for; the defender's counts after.

    The decisions are taken as the engine lists them first; the counts asked
    for do not depend on which card a choice names (a discard is one card, a
    returned investment is two cards to hand).
    """
    state, _ = rules.apply(state, defender, Decline())
    for _ in range(_SETTLE_STEPS):
        if not state.tasks:
            break
        seat = rules.to_act(state)[0]
        state, _ = rules.apply(state, seat, rules.legal_actions(state, seat)[0])
    else:
        raise UnsolvablePuzzle("the attack did not settle")
    after = state.seats[defender]
    return {
        "investments": len(after.investments),
        "hand": len(after.hand),
        "strategies": len(after.strategies),
    }


class Defence:
    """The ``defence`` puzzle kind (sections 7.2, 6.3, 12)."""

    name = "defence"
    answer_model = _Answer

    def generate(self, seed: int) -> IssuedPuzzle:
        """A defence window of a seeded game; see the module docstring."""
        rng = random.Random(seed)
        for _attempt in range(30):
            game_seed = rng.getrandbits(62)
            seats = rng.randint(3, 5)
            state = walk(game_seed, seats=seats, wanted=self._fits, min_steps=rng.randint(0, 200))
            if state is None:
                continue
            issued = self._issue(state, seats)
            if (
                issued is not None
                and self.guess_chance(issued) <= MAX_GUESS_CHANCE
                and self.check(issued, self.solve(issued))
            ):
                return issued
        raise UnsolvablePuzzle(f"{self.name}: no fitting situation for seed {seed}")

    @staticmethod
    def _fits(state: MarketFortuneState) -> bool:
        defender = _window(state)
        return defender is not None and len(state.seats[defender].strategies) >= MIN_STRATEGIES

    def _issue(self, state: MarketFortuneState, seats: int) -> IssuedPuzzle | None:
        assert state.attack is not None
        defender = _window(state)
        assert defender is not None
        counts = declined_counts(state, defender)
        if max(counts["hand"], counts["strategies"]) > COUNT_RANGE:
            return None
        red = kind_of(state.attack.card)
        own = state.seats[defender]
        return IssuedPuzzle(
            puzzle=Puzzle(
                kind=self.name,
                title="Answer the attack",
                sections=("7.2", "6.3", red.section),
                prompt=(
                    f"A seeded {seats}-seat Fortune game. Seat {state.attack.attacker} plays "
                    f"{red.name} ({state.attack.card}, section {red.section}) and you, seat {defender}, "
                    "have a defence window. (1) List every card of your strategy hand that may "
                    "answer this attack now (card ids; an empty list if none may). (2) If you "
                    "decline instead, how many investments, building cards in hand and Strategies "
                    "will you hold once this attack on you has been resolved (including any choice "
                    "it asks of you or of the attacker)?"
                ),
                situation={
                    "attacker": state.attack.attacker,
                    "you": defender,
                    "attack_card": state.attack.card,
                    "your_strategies": sorted(own.strategies),
                    "your_hand": list(own.hand),
                    "your_investments": len(own.investments),
                    "investments_per_seat": [len(seat.investments) for seat in state.seats],
                    "building_cards_per_seat": [len(seat.hand) for seat in state.seats],
                    "strategies_per_seat": [len(seat.strategies) for seat in state.seats],
                },
                answer_format=(
                    '{"defences": ["<card id>", ...], "if_declined": {"investments": <0-4>, '
                    f'"hand": <0-{COUNT_RANGE}>, "strategies": <0-{COUNT_RANGE}>}}}}'
                ),
            ),
            secret={"defences": legal_defences(state, defender), "if_declined": counts},
        )

    def misfits(self, issued: IssuedPuzzle, answer: Mapping[str, Any]) -> list[Misfit]:
        """Distinct Strategy ids, and counts in the ranges the answer format gives."""
        parsed = _Answer.model_validate(dict(answer))
        misfits: list[Misfit] = []
        for index, card in enumerate(parsed.defences):
            if card not in _STRATEGIES:
                misfits.append((("defences", str(index)), "Must be a Strategy card id such as X.risk_control.1"))
        if len(set(parsed.defences)) != len(parsed.defences):
            misfits.append((("defences",), "Must not name a card twice"))
        limits = {"investments": INVESTMENTS_TO_WIN, "hand": COUNT_RANGE, "strategies": COUNT_RANGE}
        for field, most in limits.items():
            if not 0 <= getattr(parsed.if_declined, field) <= most:
                misfits.append((("if_declined", field), f"Must be a whole number from 0 to {most}"))
        return misfits

    def check(self, issued: IssuedPuzzle, answer: Mapping[str, Any]) -> bool:
        """The exact set of legal defences and the three counts after a decline."""
        parsed = parse(_Answer, answer)
        if parsed is None or len(set(parsed.defences)) != len(parsed.defences):
            return False
        expected = issued.secret
        return bool(
            sorted(parsed.defences) == expected["defences"]
            and parsed.if_declined.model_dump() == expected["if_declined"]
        )

    def solve(self, issued: IssuedPuzzle) -> dict[str, Any]:
        """The engine's answer."""
        return {
            "defences": list(issued.secret["defences"]),
            "if_declined": dict(issued.secret["if_declined"]),
        }

    def guess_chance(self, issued: IssuedPuzzle) -> Fraction:
        """One right answer among ``2^h * 5 * 21 * 21``."""
        hand_size = len(issued.puzzle.situation["your_strategies"])
        space = 2**hand_size * (INVESTMENTS_TO_WIN + 1) * (COUNT_RANGE + 1) ** 2
        return Fraction(1, space)
