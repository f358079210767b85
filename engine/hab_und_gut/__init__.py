"""Hab & Gut: trade commodity shares, steer prices with the market cards you see, give to charity.

``GAME`` implements :class:`engine.core.Game`; the rules are in
``rulebook.md`` beside this module, whose sections the engine's errors cite.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from engine.core import GameInfo, ModeInfo, Outcome, Seat, View

from . import audit, rules
from .actions import HabAction, HabActionUnion, parse_action
from .components import MAX_SEATS, MIN_SEATS
from .state import HabConfig, HabState
from .view import HabView, summary, view

__all__ = ["GAME", "HabUndGut"]

class HabUndGut:
    """The Hab & Gut game object: static facts plus the pure rule functions."""

    info = GameInfo(
        name="hab-und-gut",
        title="Hab & Gut",
        modes=(
            ModeInfo(
                name="standard",
                title="Standard",
                min_seats=MIN_SEATS,
                max_seats=MAX_SEATS,
                description=(
                    "Two rounds of four turns: trade shares, steer prices with the market "
                    "cards beside you, give to charity; the least generous is out, the "
                    "richest of the rest wins."
                ),
            ),
        ),
        variants={},
    )
    config_model = HabConfig
    state_model = HabState
    view_model: type[View] = HabView
    action_type: Any = HabActionUnion

    def new_table(self, config: HabConfig, seed: int) -> HabState:
        """Deal a new table; raises :class:`engine.core.InvalidConfig`."""
        return rules.new_table(config, seed)

    def to_act(self, state: HabState) -> list[Seat]:
        """The seat that decides now (empty once over)."""
        return rules.to_act(state)

    def legal_actions(self, state: HabState, seat: Seat) -> list[HabAction]:
        """Every action ``seat`` may take now, sorted by id."""
        return rules.legal_actions(state, seat)

    # The two calls made on every step are the rule functions themselves, not
    # methods that forward to them: one Python call less each (see bench/engine.py).
    apply = staticmethod(rules.apply)
    view = staticmethod(view)

    def outcome(self, state: HabState) -> Outcome | None:
        """The result once the table is over, else ``None``."""
        return rules.outcome(state)

    def default_action(self, state: HabState, seat: Seat) -> HabAction:
        """An always-legal action for the seat to act."""
        return rules.default_action(state, seat)

    def parse_action(self, action_id: str) -> HabAction:
        """Parse a canonical id; raises :class:`engine.core.MalformedAction`."""
        return parse_action(action_id)

    def summary(self, state: HabState, seat: Seat | None) -> str:
        """Plain-text description of ``view(state, seat)``."""
        return summary(state, seat)

    def rulebook(self) -> str:
        """``engine/hab_und_gut/rulebook.md``, read as package data (a wheel has no source tree)."""
        return resources.files(__name__).joinpath("rulebook.md").read_text(encoding="utf-8")

    def hidden_from(self, state: HabState, seat: Seat | None) -> frozenset[str]:
        """The audit hook (section 8): what ``seat`` may not see, from :mod:`.audit`."""
        return audit.hidden_from(state, seat)


GAME = HabUndGut()
"""The Hab & Gut game, found by :mod:`engine.registry`."""
