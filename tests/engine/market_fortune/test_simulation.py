"""Seeded whole-game simulations with uniformly random legal actions.

After every step: each of the 180 cards lies in exactly one place; with no
decision pending inside a rule, every seat holds at most 8 building cards and
the seat whose turn just ended holds at most 8 (4.1); no view or event a seat
(or a spectator) receives names a card in ``hidden_from`` (11); every legal
action's id round-trips; the game ends. At the end, replaying the log from
the seed rebuilds the live state exactly.

Budget: random play needs about 80-130 turns per seat to win, so 2,000 full
games (over a million steps, each checked in every seat's view) cannot fit the
test budget. The sweep therefore plays 2,000 games across 2-6 seats and the
three modes with a turn limit of 10 turns per seat (``turn_limit_per_seat``,
the 3.7 cap made shorter) and Championship matches capped to two games
(``match_game_limit``), in two worker processes. Nine games with the
rulebook's own caps (150 turns per seat; Championship matches shortened by a
40M match target) run in the same harness, with the text summaries scanned too.
"""

from __future__ import annotations

import multiprocessing
import random
import re
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import Event, events_for, replay
from engine.market_fortune import GAME, cards, legal
from engine.market_fortune.audit import card_locations, hidden_from
from engine.market_fortune.state import MarketFortuneConfig, MarketFortuneState

CARD_ID = re.compile(r"[SRX]\.[a-z_]+\.\d")
MODES = ("family", "fortune", "championship")
MAX_STEPS = 200_000
SWEEP_GAMES = 2000
SWEEP_TURNS_PER_SEAT = 10
_ROUND_TRIPPED: set[str] = set()


def _leaks(state: MarketFortuneState, events: list[Event], summaries: bool = False) -> list[str]:
    """Hidden card ids found in any seat's (or the spectator's) view, events or text summary."""
    found: list[str] = []
    for seat in (*range(len(state.seats)), None):
        hidden = hidden_from(state, seat)
        seen = GAME.view(state, seat).model_dump_json()
        seen += "".join(e.model_dump_json() for e in events_for(events, seat))
        if summaries:
            seen += GAME.summary(state, seat)
        leaked = set(CARD_ID.findall(seen)) & hidden
        found += [f"seat {seat}: {card}" for card in sorted(leaked)]
    return found


def play_checked(
    config: MarketFortuneConfig, seed: int, stats: Counter[str], summaries: bool = False
) -> MarketFortuneState:
    """Play one seeded random game, checking every invariant after every step."""
    rng = random.Random(seed)
    state = GAME.new_table(config, seed)
    card_locations(state)
    log: list[tuple[int, str]] = []
    for _ in range(MAX_STEPS):
        if GAME.outcome(state) is not None:
            break
        acting = GAME.to_act(state)
        assert len(acting) == 1
        seat = acting[0]
        options = GAME.legal_actions(state, seat)
        assert options, f"seat {seat} must act but has no legal action"
        assert [a.id for a in options] == sorted(a.id for a in options)
        for action in options:
            # A parse depends on the id alone, so each distinct id is checked once.
            if action.id not in _ROUND_TRIPPED:
                assert GAME.parse_action(action.id) == action
                assert action.text
                _ROUND_TRIPPED.add(action.id)
        assert GAME.default_action(state, seat) in options
        action = rng.choice(options)
        stats[action.kind] += 1
        if action.kind == "play":
            stats[cards.kind_of(action.card).key] += 1  # type: ignore[union-attr]
        before = state
        state, events = GAME.apply(state, seat, action)
        log.append((seat, action.id))
        card_locations(state)
        if not state.tasks:
            over = [i for i, s in enumerate(state.seats) if s.building_total() > cards.BUILDING_TOTAL]
            assert not over, f"seats {over} hold more than 8 building cards"
        if state.turn != before.turn and state.game_number == before.game_number:
            assert before.seats[before.active].building_total() <= cards.BUILDING_TOTAL or before.tasks
            assert state.seats[before.active].building_total() <= cards.BUILDING_TOTAL
        leaks = _leaks(state, events, summaries)
        assert not leaks, leaks
    else:
        pytest.fail(f"seed {seed}: no end after {MAX_STEPS} steps")
    result = GAME.outcome(state)
    assert result is not None and result.winners
    stats[f"end:{config.mode}:{result.reason}"] += 1
    assert replay(GAME, config, seed, log) == state
    return state


def _sweep_configs(count: int) -> list[tuple[MarketFortuneConfig, int]]:
    plans = []
    for index in range(count):
        mode = MODES[index % 3]
        seats = cards.MIN_SEATS + (index // 3) % (cards.MAX_SEATS - cards.MIN_SEATS + 1)
        variants: tuple[str, ...] = ("momentum_red",) if index % 7 == 0 else ()
        config = MarketFortuneConfig(
            mode=mode,  # type: ignore[arg-type]
            seats=seats,
            variants=variants,
            turn_limit_per_seat=SWEEP_TURNS_PER_SEAT,
            match_game_limit=2,
        )
        plans.append((config, 10_000 + index))
    return plans


def _play_plans(plans: list[tuple[MarketFortuneConfig, int]]) -> Counter[str]:
    stats: Counter[str] = Counter()
    for config, seed in plans:
        play_checked(config, seed, stats)
    return stats


@pytest.mark.slow
def test_two_thousand_random_games_keep_every_invariant() -> None:
    plans = _sweep_configs(SWEEP_GAMES)
    # The games are independent: two worker processes halve the wall time on
    # the two-core CI machine; a failing check re-raises here with its message.
    workers = 2
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        parts = list(pool.map(_play_plans, [plans[i::workers] for i in range(workers)]))
    stats: Counter[str] = sum(parts, Counter())
    ends = {key: n for key, n in stats.items() if key.startswith("end:")}
    assert sum(ends.values()) == SWEEP_GAMES
    # The sweep must reach the rules it is meant to check, not only the cap.
    assert stats["end:family:victory"] > 0 and stats["end:fortune:victory"] > 0
    for kind in ("build", "risk", "dominate", "optimise", "play", "defend", "decline", "declare", "discard"):
        assert stats[kind] > 0, kind


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_full_length_random_games(mode: str) -> None:
    stats: Counter[str] = Counter()
    extra: dict[str, Any] = {"match_target": 40} if mode == "championship" else {}
    for seed in range(3):
        config = MarketFortuneConfig(mode=mode, seats=3 + seed, **extra)  # type: ignore[arg-type]
        play_checked(config, 500 + seed, stats, summaries=True)


def test_apply_checks_exactly_the_listed_actions() -> None:
    # apply validates directly (its fast path); it must agree with legal_actions.
    rng = random.Random(3)
    every_id = _global_candidates()
    for seed in range(4):
        config = MarketFortuneConfig(mode=MODES[seed % 3], seats=2 + seed, turn_limit_per_seat=15)
        state = GAME.new_table(config, seed)
        while GAME.outcome(state) is None:
            seat = GAME.to_act(state)[0]
            listed = {a.id for a in GAME.legal_actions(state, seat)}
            candidates = _candidates(state, seat) | set(rng.sample(every_id, 40)) | listed
            for action_id in sorted(candidates):
                assert legal.allowed(state, GAME.parse_action(action_id)) == (action_id in listed), action_id
            state, _ = GAME.apply(state, seat, GAME.parse_action(rng.choice(sorted(listed))))


def _candidates(state: MarketFortuneState, seat: int) -> set[str]:
    """Action ids built from every card near the seat: a superset of the legal ones."""
    mine = state.seats[seat]
    near = set(mine.hand) | set(mine.strategies) | set(state.stock_pile) | set(state.return_pile)
    for other in state.seats:
        near |= set(other.strategies)
    invested = [c for inv in mine.investments for c in (inv.stock, inv.ret)]
    ids = {"dominate", "end", "decline", "declare", "next_game"}
    ids |= {f"{verb}:{s}" for verb in ("build", "draw") for s in ("stock_deck", "return_deck", "stock_pile", "return_pile")}
    for card in near | set(invested):
        if card[0] == "X":
            ids |= {f"defend:{card}", f"take:{card}", f"play:{card}"} | {f"play:{card}@{s}" for s in range(len(state.seats))}
        else:
            ids |= {f"discard:{card}", f"give:{card}", f"take:{card}"}
        if card[0] == "S":
            ids |= {f"return:{card}", f"mark:{card}"}
    stocks = [c for c in mine.hand if c[0] == "S"]
    returns = [c for c in mine.hand if c[0] == "R"]
    innovations = [c for c in mine.strategies if "innovation" in c]
    for verb in ("risk", "form"):
        ids |= {f"{verb}:{s}+{r}" for s in stocks for r in returns}
        ids |= {f"{verb}:{s}+{r}+{i}" for s in stocks for r in returns for i in innovations}
    ids |= {f"optimise:{a}:{b}" for a in invested for b in mine.hand}
    return ids


def _global_candidates() -> list[str]:
    ids = []
    for card in cards.ALL_CARD_IDS:
        ids += [f"discard:{card}", f"take:{card}"] if card[0] != "X" else [f"defend:{card}", f"play:{card}@1"]
    return ids


def test_states_and_views_survive_json_round_trips() -> None:
    # The gateway stores states as JSON and validates views against view_model.
    rng = random.Random(11)
    for seed, mode in enumerate(MODES):
        config = MarketFortuneConfig(mode=mode, seats=3 + seed, turn_limit_per_seat=8, match_game_limit=2)  # type: ignore[arg-type]
        state = GAME.new_table(config, seed)
        while GAME.outcome(state) is None:
            assert GAME.state_model.model_validate_json(state.model_dump_json()) == state
            for seat in (*range(config.seats), None):
                seen = GAME.view(state, seat)
                assert GAME.view_model.model_validate_json(seen.model_dump_json()) == seen
            seat = GAME.to_act(state)[0]
            state, _ = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    mode=st.sampled_from(MODES),
    seats=st.integers(min_value=cards.MIN_SEATS, max_value=cards.MAX_SEATS),
    data=st.data(),
)
def test_no_choice_sequence_loses_a_card_or_leaks_one(seed: int, mode: str, seats: int, data: st.DataObject) -> None:
    # Hypothesis picks every choice, so a failure shrinks to a short action log.
    config = MarketFortuneConfig(mode=mode, seats=seats, turn_limit_per_seat=4, match_game_limit=2)  # type: ignore[arg-type]
    state = GAME.new_table(config, seed)
    log: list[tuple[int, str]] = []
    while GAME.outcome(state) is None:
        seat = GAME.to_act(state)[0]
        options = GAME.legal_actions(state, seat)
        action = options[data.draw(st.integers(min_value=0, max_value=len(options) - 1))]
        state, events = GAME.apply(state, seat, action)
        log.append((seat, action.id))
        card_locations(state)
        assert not _leaks(state, events)
    assert replay(GAME, config, seed, log) == state
