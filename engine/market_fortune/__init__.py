"""Market Fortune: the financial strategy card game (its rulebook: ``rulebook.md`` here).

``GAME`` satisfies :class:`engine.core.Game`, assembled as data from the rule
functions (:func:`engine.assembly.assemble`). The game keeps its own action
ids (``parse_action``), its turn clock's choice (``default_action``, 14.1) and
its plain-text ``summary``. The package's modules:

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

from engine.assembly import assemble, packaged_rulebook
from engine.core import GameInfo, ModeInfo
from engine.market_fortune import audit, cards, rules
from engine.market_fortune.actions import MarketFortuneActionType, parse_action
from engine.market_fortune.state import MarketFortuneConfig, MarketFortuneState
from engine.market_fortune.view import MarketFortuneView, summary, view

__all__ = ["GAME", "INFO"]


def _mode(name: str, description: str) -> ModeInfo:
    """A mode of Market Fortune: every mode seats the same numbers."""
    return ModeInfo(name=name, title=name.title(), min_seats=cards.MIN_SEATS,
                    max_seats=cards.MAX_SEATS, description=description)


INFO = GameInfo(
    name="market-fortune",
    title="Market Fortune",
    modes=(
        _mode("family", f"First to form {cards.INVESTMENTS_TO_WIN} investments wins (9.1)."),
        _mode("fortune", f"{cards.INVESTMENTS_TO_WIN} investments worth {cards.VICTORY_VALUE}M "
                         "or more (9.2)."),
        _mode("championship", f"A match of Fortune games; first to {cards.MATCH_TARGET}M of "
                              "winning counts (9.3)."),
    ),
    variants=dict(rules.VARIANTS),
)
"""Static facts about Market Fortune, as the API lists them."""

GAME = assemble(
    info=INFO,
    config_model=MarketFortuneConfig,
    state_model=MarketFortuneState,
    view_model=MarketFortuneView,
    action_type=MarketFortuneActionType,
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
"""The Market Fortune game, found by :mod:`engine.registry`."""
