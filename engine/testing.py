"""The conformance kit: :func:`check_game` holds any game to the engine contract.

Every registered game (and a new one before it is registered, see
docs/new-game.md) must pass it. It plays seeded games with uniformly random
choices and checks on every step what the gateway, the bots and the replays
rely on:

* action ids round-trip through ``parse_action`` and are listed sorted, each
  with a text; the default action is among the legal ones;
* ``apply`` accepts exactly the listed actions: every other id listed at any
  earlier step of the game (a sample of them) is refused with
  :class:`~engine.core.IllegalAction`, and a seat that need not decide is
  refused whatever it sends (the kit cannot invent ids a game never lists, so
  a game's own tests still try its malformed and never-legal ids);
* the state and every view survive a JSON round trip;
* no view names a card id the game's audit hook (``Game.hidden_from``) hides
  from its reader, and no event names one hidden from its reader both before
  and after the step (an event may name what the step itself showed, a card
  taken from a face-up pile);
* replaying the seed and the action log rebuilds the live state exactly.

The kit imports nothing but the engine contract, so a game's own test module
calls it with the game object and a few short configurations.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.core import Event, Game, IllegalAction, TableConfig, events_for, replay

__all__ = ["ConformanceReport", "check_game", "default_configs"]

_TOKEN = re.compile(r"[A-Za-z0-9.+_\-]+")
"""A run of id characters: card ids are found as whole tokens of a JSON text."""


@dataclass(frozen=True)
class ConformanceReport:
    """What :func:`check_game` went through, so a caller can tell it was not vacuous."""

    games: int
    steps: int
    finished: int
    refusals: int
    """Actions ``apply`` was shown to refuse."""
    ids_seen: int
    """Card ids (ids a spectator was ever refused) that reached some reader allowed to see them."""


def _tokens(text: str) -> set[str]:
    return set(_TOKEN.findall(text))


def _check_listing(game: Game[Any, Any, Any], state: Any, seat: int, legal: Sequence[Any]) -> list[str]:
    ids = [action.id for action in legal]
    assert legal, f"seat {seat} must decide but has no legal action"
    assert ids == sorted(ids), f"legal actions not sorted by id: {ids}"
    assert len(set(ids)) == len(ids), f"an id is listed twice: {ids}"
    for action, action_id in zip(legal, ids, strict=True):
        assert game.parse_action(action_id) == action, f"{action_id!r} does not round-trip"
        assert action.text, f"{action_id!r} has no text"
    assert game.default_action(state, seat) in legal, "the default action is not legal"
    return ids


def _check_refusals(
    game: Game[Any, Any, Any],
    state: Any,
    seat: int,
    seats: int,
    listed: set[str],
    pool: Sequence[str],
    rng: random.Random,
) -> int:
    """``apply`` refuses unlisted ids (a sample of ``pool``) and any action of a seat that need not act."""
    refused = 0
    for action_id in rng.sample(list(pool), min(len(pool), 12)):
        if action_id in listed:
            continue
        try:
            game.apply(state, seat, game.parse_action(action_id))
        except IllegalAction:
            refused += 1
        else:
            raise AssertionError(f"apply accepted {action_id!r}, which is not listed")
    acting = game.to_act(state)
    for other in range(seats):
        if other in acting:
            continue
        for action_id in sorted(listed)[:2]:
            try:
                game.apply(state, other, game.parse_action(action_id))
            except IllegalAction:
                refused += 1
            else:
                raise AssertionError(f"seat {other} acted with {action_id!r} out of turn")
    return refused


def _check_round_trips(game: Game[Any, Any, Any], state: Any, readers: Sequence[int | None]) -> dict[int | None, str]:
    assert game.state_model.model_validate_json(state.model_dump_json()) == state, "state JSON round trip"
    seen: dict[int | None, str] = {}
    for reader in readers:
        shown = game.view(state, reader)
        text = shown.model_dump_json()
        assert game.view_model.model_validate_json(text) == shown, f"view of {reader} JSON round trip"
        seen[reader] = text
    return seen


def _check_secrets(
    game: Game[Any, Any, Any],
    before: Any,
    state: Any,
    events: Sequence[Event],
    views: dict[int | None, str],
) -> set[str]:
    """No view names an id hidden from its reader now; no event one hidden both before and after.

    Returns every token the readers were shown.
    """
    all_ids: set[str] = set()
    for reader, text in views.items():
        hidden = game.hidden_from(state, reader)
        shown = _tokens(text)
        leaked = shown & hidden
        assert not leaked, f"the view of {reader} names hidden {sorted(leaked)}"
        told: set[str] = set()
        for event in events_for(events, reader):
            told |= _tokens(event.model_dump_json())
        secret = told & hidden
        if secret and before is not None:
            secret &= game.hidden_from(before, reader)
        assert not secret, f"an event to {reader} names hidden {sorted(secret)}"
        all_ids |= shown | told
    return all_ids


def default_configs(game: Game[Any, Any, Any]) -> list[TableConfig]:
    """One table per mode, at its fewest and at its most seats."""
    return [
        game.config_model(mode=mode.name, seats=seats)
        for mode in game.info.modes
        for seats in sorted({mode.min_seats, mode.max_seats})
    ]


def check_game(
    game: Game[Any, Any, Any],
    configs: Sequence[TableConfig] | None = None,
    *,
    seeds: Sequence[int] = (0, 1),
    max_steps: int = 400,
) -> ConformanceReport:
    """Play each config (default: :func:`default_configs`) with each seed by random
    choices and check the contract on every step.

    A game that has not ended after ``max_steps`` is checked that far (its
    replay included): pass configs with short caps where a game offers them.
    Returns what was checked; raises :class:`AssertionError` naming the first
    breach.
    """
    if configs is None:
        configs = default_configs(game)
    games = steps = finished = refusals = 0
    shown: set[str] = set()
    card_ids: set[str] = set()
    for config in configs:
        for seed in seeds:
            rng = random.Random(f"{game.info.name}:{seed}")
            state = game.new_table(config, seed)
            readers: list[int | None] = [*range(config.seats), None]
            pool: set[str] = set()
            log: list[tuple[int, str]] = []
            views = _check_round_trips(game, state, readers)
            shown |= _check_secrets(game, None, state, (), views)
            card_ids |= game.hidden_from(state, None)
            for _ in range(max_steps):
                if game.outcome(state) is not None:
                    assert game.to_act(state) == [], "a finished table still waits on a seat"
                    finished += 1
                    break
                acting = game.to_act(state)
                assert acting and acting == sorted(acting), f"to_act {acting}"
                seat = acting[0]
                legal = game.legal_actions(state, seat)
                listed = _check_listing(game, state, seat, legal)
                pool.update(listed)
                refusals += _check_refusals(game, state, seat, config.seats, set(listed), sorted(pool), rng)
                action = rng.choice(legal)
                before = state
                state, events = game.apply(state, seat, action)
                log.append((seat, action.id))
                views = _check_round_trips(game, state, readers)
                shown |= _check_secrets(game, before, state, events, views)
                card_ids |= game.hidden_from(state, None)
                steps += 1
            assert replay(game, config, seed, log) == state, "replay differs from the live state"
            games += 1
    return ConformanceReport(games, steps, finished, refusals, len(shown & card_ids))
