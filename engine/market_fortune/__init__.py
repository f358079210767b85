"""Market Fortune: the financial strategy card game (its rulebook: ``rulebook.md`` here).

``GAME`` satisfies :class:`engine.core.Game`. The package's modules:

* :mod:`.cards`   the catalogue and every game constant, as data;
* :mod:`.state`   the frozen table state and its config;
* :mod:`.actions` action value objects and ``parse_action``;
* :mod:`.rules`   setup, the turn flow and ``apply``;
* :mod:`.legal`   who decides, legal actions, refusals, the default action;
* :mod:`.effects` what each Strategy does;
* :mod:`.scoring` market terms and the final count;
* :mod:`.view`    per-seat views and the text summary;
* :mod:`.audit`   card accounting and hidden ids, independent of the view.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from engine.core import GameInfo, ModeInfo, Outcome, TableConfig, View
from engine.market_fortune import audit, cards, rules
from engine.market_fortune.actions import MarketFortuneAction, MarketFortuneActionType, parse_action
from engine.market_fortune.state import MarketFortuneConfig, MarketFortuneState
from engine.market_fortune.view import MarketFortuneView, summary, view

__all__ = ["GAME", "MarketFortune"]


@cache
def _rulebook_text() -> str:
    # Package data, not a path beside the source: an installed wheel has no source tree.
    return resources.files(__name__).joinpath("rulebook.md").read_text(encoding="utf-8")


class MarketFortune:
    """The Market Fortune game object exposed as ``GAME``."""

    info = GameInfo(
        name="market-fortune",
        title="Market Fortune",
        modes=(
            ModeInfo(
                name="family",
                title="Family",
                min_seats=cards.MIN_SEATS,
                max_seats=cards.MAX_SEATS,
                description=f"First to form {cards.INVESTMENTS_TO_WIN} investments wins (9.1).",
            ),
            ModeInfo(
                name="fortune",
                title="Fortune",
                min_seats=cards.MIN_SEATS,
                max_seats=cards.MAX_SEATS,
                description=f"{cards.INVESTMENTS_TO_WIN} investments worth {cards.VICTORY_VALUE}M or more (9.2).",
            ),
            ModeInfo(
                name="championship",
                title="Championship",
                min_seats=cards.MIN_SEATS,
                max_seats=cards.MAX_SEATS,
                description=f"A match of Fortune games; first to {cards.MATCH_TARGET}M of winning counts (9.3).",
            ),
        ),
        variants=dict(rules.VARIANTS),
    )
    config_model = MarketFortuneConfig
    state_model = MarketFortuneState
    view_model: type[View] = MarketFortuneView
    action_type: Any = MarketFortuneActionType

    def new_table(self, config: TableConfig, seed: int) -> MarketFortuneState:
        """Deal a new table (2.1, 2.2); raises :class:`engine.core.InvalidConfig`."""
        return rules.new_table(config, seed)

    def to_act(self, state: MarketFortuneState) -> list[int]:
        """The seat that must decide now (a defender may act outside its turn, 7.2)."""
        return rules.to_act(state)

    def legal_actions(self, state: MarketFortuneState, seat: int) -> list[MarketFortuneAction]:
        """Every action ``seat`` may take now, sorted by id."""
        return rules.legal_actions(state, seat)

    # The two calls made on every step are the rule functions themselves, not
    # methods that forward to them: one Python call less each (see bench/engine.py).
    apply = staticmethod(rules.apply)
    view = staticmethod(view)

    def outcome(self, state: MarketFortuneState) -> Outcome | None:
        """The result once the table is over."""
        return rules.outcome(state)

    def default_action(self, state: MarketFortuneState, seat: int) -> MarketFortuneAction:
        """An always-legal action for a turn clock (14.1)."""
        return rules.default_action(state, seat)

    def parse_action(self, action_id: str) -> MarketFortuneAction:
        """Parse a canonical action id; raises ``MalformedAction``."""
        return parse_action(action_id)

    def summary(self, state: MarketFortuneState, seat: int | None) -> str:
        """Plain text of the seat's view for language models."""
        return summary(state, seat)

    def rulebook(self) -> str:
        """The project's rulebook, ``engine/market_fortune/rulebook.md``."""
        return _rulebook_text()

    def hidden_from(self, state: MarketFortuneState, seat: int | None) -> frozenset[str]:
        """The audit hook (section 11): what ``seat`` may not see, from :mod:`.audit`."""
        return audit.hidden_from(state, seat)


GAME = MarketFortune()
"""The Market Fortune game, found by :mod:`engine.registry`."""
