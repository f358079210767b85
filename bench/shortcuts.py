"""Differential check of Market Fortune's shortcuts against the general path.

``rules.apply`` takes a shortcut for a Build in the main stage, a discard owed
by a task, and the end of a turn in the red stage; ``rules.apply_general``
checks every action against ``actions_now`` (what ``legal_actions`` lists),
applies its rule and runs the automatic steps. For each state of seeded games
(greedy and random seats, every mode, two to six seats, the variants in turn),
every action a shortcut would take is tried both ways, legal or not: the
Builds from all four sources, a discard of every building card the task's
seat holds and of a card it does not hold, and the end of the turn. Both ways
must give equal states and equal events, or refuse with the same rule and
message.

    .venv/bin/python bench/shortcuts.py [--pairs 1000000]

The test suite runs the same check over a few thousand pairs
(tests/engine/market_fortune/test_shortcuts.py); this script runs a million.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from engine.bots import RANDOM, bot_seed  # noqa: E402
from engine.core import IllegalAction  # noqa: E402
from engine.market_fortune import GAME, cards, rules  # noqa: E402
from engine.market_fortune.actions import SOURCES, Build, Discard, EndTurn, MarketFortuneAction  # noqa: E402
from engine.market_fortune.bots import GREEDY  # noqa: E402
from engine.market_fortune.state import MarketFortuneConfig, MarketFortuneState, Mode  # noqa: E402

__all__ = ["compare", "main", "shortcut_pairs"]

MODES: tuple[Mode, ...] = ("family", "fortune", "championship")
VARIANTS: tuple[tuple[str, ...], ...] = ((), ("momentum_red",), ("forced_count", "open_championship"))


def _candidates(state: MarketFortuneState) -> list[MarketFortuneAction]:
    """Every action a shortcut of ``apply`` would take in ``state``, legal or not."""
    if state.stage == "over":
        return []
    if state.tasks:
        hand = state.seats[state.tasks[0].seat].hand
        stranger = next(c for c in cards.STOCK_IDS if c not in hand)
        return [Discard(card=card) for card in (*hand, stranger)]
    if state.attack is not None:
        return []
    if state.stage == "main":
        return [Build(source=source) for source in SOURCES]
    if state.stage == "red":
        return [EndTurn()]
    return []


def shortcut_pairs(first_seed: int) -> Iterator[tuple[MarketFortuneState, int, MarketFortuneAction]]:
    """``(state, seat, action)`` for every shortcut candidate of seeded games, game after game."""
    seed = first_seed
    while True:
        index = seed - first_seed
        seats = cards.MIN_SEATS + index % (cards.MAX_SEATS - cards.MIN_SEATS + 1)
        config = MarketFortuneConfig(
            mode=MODES[index % len(MODES)],
            seats=seats,
            variants=VARIANTS[(index // len(MODES)) % len(VARIANTS)],
            match_target=50,
            turn_limit_per_seat=60,
        )
        bots = [GREEDY if (seat + index) % 2 else RANDOM for seat in range(seats)]
        state = GAME.new_table(config, seed)
        step = 0
        while GAME.outcome(state) is None:
            seat = GAME.to_act(state)[0]
            for action in _candidates(state):
                yield state, seat, action
            legal = GAME.legal_actions(state, seat)
            view = GAME.view(state, seat)
            chosen = bots[seat].choose(GAME, view, legal, seat, bot_seed(seed, step, seat))
            state, _ = GAME.apply(state, seat, next(a for a in legal if a == chosen))
            step += 1
        seed += 1


def compare(state: MarketFortuneState, seat: int, action: MarketFortuneAction) -> bool:
    """Apply ``action`` by the shortcut and by the general path; ``True`` if it was legal.

    :raises AssertionError: the two paths differ.
    """
    try:
        fast = rules.apply(state, seat, action)
    except IllegalAction as refused:
        try:
            rules.apply_general(state, seat, action)
        except IllegalAction as general:
            assert (type(refused), refused.rule, refused.message) == (type(general), general.rule, general.message), (
                action.id, refused.message, general.message)
            return False
        raise AssertionError(f"the shortcut refused {action.id} ({refused.message}); the general path took it") from None
    general_state, general_events = rules.apply_general(state, seat, action)
    assert fast[0] == general_state, f"{action.id}: the states differ"
    assert fast[1] == general_events, f"{action.id}: the events differ"
    return True


def main(argv: list[str] | None = None) -> int:
    """Check ``--pairs`` state/action pairs; print how many were legal and the time taken."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=70_000)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    legal = checked = 0
    for state, seat, action in shortcut_pairs(args.seed):
        legal += compare(state, seat, action)
        checked += 1
        if checked >= args.pairs:
            break
    elapsed = time.perf_counter() - started
    print(f"{checked} state/action pairs, {legal} legal, {checked - legal} refused: "
          f"shortcut == general path for every one ({elapsed:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
