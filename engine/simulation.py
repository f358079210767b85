"""Playouts: one table played to the end by house bots, over the generic contract.

:func:`play_table` is what the ``simulate`` CLI, ``bench/engine.py`` and the
whole-game tests share. It knows nothing about any particular game: it asks
``to_act`` who decides, lets that seat's bot choose from the seat's view
(:func:`engine.bots.decide`), applies the action, and optionally hands every
step to a check callback (for invariant sweeps).

What a playout reports about turns and cards comes from the public events
(what a spectator sees), so nothing hidden is counted. A :class:`PlayoutProbe`
reads them; by default:

* a *turn* is a public event whose ``kind`` is in :data:`TURN_EVENT_KINDS`;
* a *card played* is a public event whose ``kind`` is in
  :data:`PLAY_EVENT_KINDS`, named by the first of :data:`CARD_DATA_KEYS` in its
  ``data``.

A game whose events use other words exports its own ``PROBE`` from its
``bots`` module (``engine/<game>/bots.py``); :func:`probe_for` finds it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.bots import Bot, UnknownBot, bot_seed, decide, game_bots_module
from engine.core import Action, Event, Game, Outcome, Seat, TableConfig, events_for

__all__ = [
    "CARD_DATA_KEYS",
    "DEFAULT_PROBE",
    "PLAY_EVENT_KINDS",
    "TURN_EVENT_KINDS",
    "Playout",
    "PlayoutDidNotEnd",
    "PlayoutProbe",
    "Step",
    "StepCheck",
    "card_played_default",
    "is_turn_default",
    "play_table",
    "probe_for",
]

TURN_EVENT_KINDS: frozenset[str] = frozenset({"turn_started", "turn_start", "turn_began"})
"""Public event kinds that mark the start of a seat's turn."""

PLAY_EVENT_KINDS: frozenset[str] = frozenset(
    {"strategy_played", "card_played", "red_played", "blue_played", "defence_played"}
)
"""Public event kinds that mark a card being played."""

CARD_DATA_KEYS: tuple[str, ...] = ("card_kind", "strategy", "card", "name")
"""Keys of ``Event.data`` that may name the card played, in order of preference."""

DEFAULT_MAX_STEPS = 100_000
"""A playout longer than this is a bug in the game's termination rules."""


class PlayoutDidNotEnd(RuntimeError):
    """A table was still running after ``max_steps`` actions (or nobody could act)."""


@dataclass(frozen=True)
class Step:
    """One applied action, handed to the check callback."""

    index: int
    """0-based position of the action in the table's log."""
    seat: Seat
    action: Action
    before: Any
    """The state the action was applied to."""
    state: Any
    """The state after the action."""
    events: tuple[Event, ...]
    """Every event of the step, unredacted (use :func:`engine.core.events_for`)."""


StepCheck = Callable[[Step], None]
"""Called after every step; raise (e.g. ``AssertionError``) to stop the playout."""


@dataclass(frozen=True)
class Playout:
    """The record of one finished table."""

    game: str
    config: TableConfig
    seed: int
    bots: tuple[str, ...]
    """Bot name per seat."""
    outcome: Outcome
    steps: int
    """Actions applied, by every seat (defences and effect choices included)."""
    turns: int
    """Turns started, as announced by the public events."""
    cards_played: Mapping[str, int]
    """Card name -> times played, from the public events."""
    log: tuple[tuple[Seat, str], ...]
    """``(seat, action id)`` per step: with the seed, enough to replay the table."""
    final_state: Any = field(repr=False)

    @property
    def end_reason(self) -> str:
        """Why the table ended (``victory``, ``turn_limit``, ...)."""
        return self.outcome.reason


def is_turn_default(event: Event) -> bool:
    """Whether a public event starts a turn (see :data:`TURN_EVENT_KINDS`)."""
    return event.kind in TURN_EVENT_KINDS


def card_played_default(event: Event) -> str | None:
    """The card a public event says was played, or ``None`` (see the module doc)."""
    if event.kind not in PLAY_EVENT_KINDS:
        return None
    for key in CARD_DATA_KEYS:
        value = event.data.get(key)
        if isinstance(value, str):
            return value
    return None


@dataclass(frozen=True)
class PlayoutProbe:
    """How a game's public events tell a playout about turns and cards played."""

    is_turn: Callable[[Event], bool] = is_turn_default
    """Whether a public event starts a turn."""
    card_played: Callable[[Event], str | None] = card_played_default
    """The name of the card a public event says was played, or ``None``."""
    opening_turns: int = 0
    """Turns already begun when the table is dealt, before any event (e.g. 1 when
    the deal itself starts the opener's turn without announcing it)."""


DEFAULT_PROBE = PlayoutProbe()
"""The probe for games that use the default event words."""


def probe_for(game: Game[Any, Any, Any]) -> PlayoutProbe:
    """The game's own ``PROBE`` (from ``engine/<game>/bots.py``), else :data:`DEFAULT_PROBE`."""
    try:
        module = game_bots_module(game.info.name)
    except UnknownBot:  # a game outside the registry, such as a test fixture
        return DEFAULT_PROBE
    probe = getattr(module, "PROBE", None)
    return probe if isinstance(probe, PlayoutProbe) else DEFAULT_PROBE


def play_table(
    game: Game[Any, Any, Any],
    config: TableConfig,
    seed: int,
    bots: Sequence[Bot],
    *,
    check: StepCheck | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    probe: PlayoutProbe | None = None,
) -> Playout:
    """Play one table from ``new_table(config, seed)`` to its outcome.

    ``bots[i]`` decides for seat ``i``. When several seats must decide at once,
    the lowest-numbered one goes first (``to_act`` is sorted), which keeps the
    playout deterministic. ``probe`` defaults to :func:`probe_for` the game.

    :raises ValueError: if the number of bots is not the number of seats.
    :raises PlayoutDidNotEnd: if the table neither ends nor lets anyone act
        within ``max_steps`` actions.
    """
    if len(bots) != config.seats:
        raise ValueError(f"{config.seats} seats need {config.seats} bots, got {len(bots)}")
    probe = probe or probe_for(game)
    state = game.new_table(config, seed)
    log: list[tuple[Seat, str]] = []
    turns = probe.opening_turns
    cards: Counter[str] = Counter()
    outcome = game.outcome(state)
    while outcome is None:
        if len(log) >= max_steps:
            raise PlayoutDidNotEnd(f"no outcome after {max_steps} steps (seed {seed})")
        deciders = game.to_act(state)
        if not deciders:
            raise PlayoutDidNotEnd(f"nobody to act and no outcome (seed {seed}, step {len(log)})")
        seat = deciders[0]
        action = decide(bots[seat], game, state, seat, bot_seed(seed, len(log), seat))
        before = state
        state, events = game.apply(state, seat, action)
        for event in events_for(events, None):
            if probe.is_turn(event):
                turns += 1
            name = probe.card_played(event)
            if name is not None:
                cards[name] += 1
        if check is not None:
            check(Step(len(log), seat, action, before, state, tuple(events)))
        log.append((seat, action.id))
        outcome = game.outcome(state)
    return Playout(
        game=game.info.name,
        config=config,
        seed=seed,
        bots=tuple(bot.name for bot in bots),
        outcome=outcome,
        steps=len(log),
        turns=turns,
        cards_played=dict(cards),
        log=tuple(log),
        final_state=state,
    )
