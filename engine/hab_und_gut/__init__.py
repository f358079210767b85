"""Hab & Gut: trade commodity shares, steer prices with the market cards you see, give to charity.

``GAME`` satisfies :class:`engine.core.Game`, assembled as data from the rule
functions (:func:`engine.assembly.assemble`). The game keeps its own action
ids (``parse_action``: a market card is named by its face), its turn clock's
choice (``default_action``: ``end`` in the stock phase) and its plain-text
``summary``. The rules are in ``rulebook.md`` beside this module, whose
sections the engine's errors cite.
"""

from __future__ import annotations

from engine.assembly import assemble, packaged_rulebook
from engine.core import GameInfo, ModeInfo

from . import audit, rules
from .actions import HabActionUnion, parse_action
from .components import MAX_SEATS, MIN_SEATS
from .state import HabConfig, HabState
from .view import HabView, summary, view

__all__ = ["GAME", "INFO"]

INFO = GameInfo(
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
"""Static facts about Hab & Gut, as the API lists them."""

GAME = assemble(
    info=INFO,
    config_model=HabConfig,
    state_model=HabState,
    view_model=HabView,
    action_type=HabActionUnion,
    new_table=rules.new_table,
    to_act=rules.to_act,
    legal_actions=rules.legal_actions,
    apply=rules.apply,
    view=view,
    outcome=rules.outcome,
    hidden_from=audit.hidden_from,
    default_action=rules.default_action,
    parse_action=parse_action,
    summary=summary,
    rulebook=packaged_rulebook(__name__),
)
"""The Hab & Gut game, found by :mod:`engine.registry`."""
