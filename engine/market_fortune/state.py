"""The Market Fortune table state: plain, frozen, small data.

Decks and piles are tuples whose *last* element is the top card, so a draw or a
discard is one slice. The state holds the table seed and a chance counter
(:mod:`engine.chance`), never an RNG object; it never leaves the engine except
through :mod:`engine.market_fortune.view` (and the replay after the table ends).

A turn moves through ``stage`` values (docs section 3):

* ``main``      the active seat picks Build, Risk or Dominate (or optimises, 5.2);
* ``red``       after Dominate drew a red (or Momentum with ``momentum_red``) it may play one red;
* ``resolving`` a red is being resolved: defence windows (``attack``) and the
  decisions inside the effect (``tasks``);
* ``victory``   the victory window after a 4th investment: declare or hold back (8.1);
* ``ending``    the turn is closing (8-card rule, 4.1) — never waited on;
* ``between``   Championship: a game ended, the match goes on (9.3);
* ``over``      the table has ended (``result`` is set).

Whenever ``tasks`` is not empty its first task is the decision owed now, and
it takes precedence over the stage; otherwise an open ``attack`` with a
``defender`` waits for that seat's defence window (7.2).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from engine.core import EngineModel, Outcome, TableConfig, evolve
from engine.market_fortune import cards

__all__ = [
    "Attack",
    "Investment",
    "MarketFortuneConfig",
    "MarketFortuneState",
    "Mode",
    "Reveal",
    "SeatState",
    "Source",
    "Stage",
    "Task",
    "TaskStep",
    "evolve",
]

Mode = Literal["family", "fortune", "championship"]
Stage = Literal["main", "red", "resolving", "victory", "ending", "between", "over"]
Source = Literal["stock_deck", "return_deck", "stock_pile", "return_pile"]
"""Where a building card is drawn from (3.2): a deck or the top of its pile."""
TaskStep = Literal[
    "discard",  # discard building cards from hand (3.2, 4.1, 5.2, effects)
    "draw",  # draw a building card from a deck or a pile top (Buy More)
    "draw_deck",  # draw a building card from a deck only (Liquidity)
    "return",  # return one investment to hand (Correction, failed count)
    "take",  # take a card: a Strategy (Federal Audit) or a pile card (Bailout)
    "give",  # give a building card (Negotiation)
    "mark",  # mark an investment (Compound Interest)
    "form",  # form an investment without rolling (Fortune)
]


class MarketFortuneConfig(TableConfig):
    """Table options: mode, 2-6 seats, variants and the caps that end a game.

    ``turn_limit_per_seat``, ``match_game_limit`` and ``match_target`` default
    to the rulebook (3.7, 9.3); tests and sweeps may shorten them.
    """

    mode: Mode = "fortune"
    seats: int = Field(default=4, ge=cards.MIN_SEATS, le=cards.MAX_SEATS)
    turn_limit_per_seat: int = Field(default=cards.TURN_LIMIT_PER_SEAT, ge=1)
    match_game_limit: int = Field(default=cards.MATCH_GAME_LIMIT, ge=1)
    match_target: int = Field(default=cards.MATCH_TARGET, ge=1)


class Investment(EngineModel):
    """A formed investment (5.1): one Stock and one Return, in formation order.

    ``innovation`` is the Innovation card attached when it was formed (6.4);
    ``marked`` is a Compound Interest mark (12.5); ``face_up`` once counted (8.2).
    """

    stock: str
    ret: str
    innovation: str | None = None
    marked: bool = False
    face_up: bool = False

    def cards(self) -> tuple[str, ...]:
        """Every card lying in this investment."""
        if self.innovation is None:
            return (self.stock, self.ret)
        return (self.stock, self.ret, self.innovation)


class Reveal(EngineModel):
    """What an effect showed one seat (Federal Audit 12.8, Experience 12.19)."""

    source: int
    cards: tuple[str, ...]
    section: str
    turn: int | None = None
    """The turn it was shown in (``None`` in states stored before turns were kept)."""
    game_number: int | None = None
    """The game of a match it was shown in (Championship plays several)."""


class SeatState(EngineModel):
    """Everything one seat holds."""

    hand: tuple[str, ...] = ()
    """Building cards (Stocks and Returns) in hand."""
    strategies: tuple[str, ...] = ()
    investments: tuple[Investment, ...] = ()
    skip_next: bool = False
    """Regulatory Block: the next turn of this seat is skipped (3.6)."""
    match_total: int = 0
    """Championship: millions won in previous games of the match (9.3)."""
    revealed: Reveal | None = None
    """The latest thing an effect revealed to this seat only (11.1)."""

    def building_total(self) -> int:
        """Hand plus investment building cards: the 8-card rule count (4.1)."""
        return len(self.hand) + 2 * len(self.investments)


class Attack(EngineModel):
    """A red attack being resolved (7).

    ``card`` is the red played by ``attacker``. ``queue`` holds the original
    targets still to be hit, clockwise from the attacker (7.2). The current hit
    is ``source`` attacking ``defender``; after a Wrong Analyst bounce (7.3) the
    two swap. ``defender`` is ``None`` between hits.
    """

    card: str
    attacker: int
    queue: tuple[int, ...] = ()
    source: int | None = None
    defender: int | None = None


class Task(EngineModel):
    """A decision owed inside a rule or an effect, by ``seat``.

    ``count`` decisions of the same step remain. ``other`` is the other seat an
    effect involves; ``forbid`` a card that may not be discarded (3.2);
    ``locked`` whether discards lie face down (Championship, 9.3); ``section``
    the rule being resolved.
    """

    seat: int
    step: TaskStep
    section: str
    count: int = 1
    other: int | None = None
    forbid: str | None = None
    locked: bool = False


class MarketFortuneState(EngineModel):
    """The whole table. See the module docstring for ``stage``."""

    config: MarketFortuneConfig
    seed: int
    chance: int = 0
    """Counter of chance events used so far (engine.chance)."""
    stock_deck: tuple[str, ...] = ()
    return_deck: tuple[str, ...] = ()
    strategy_deck: tuple[str, ...] = ()
    stock_pile: tuple[str, ...] = ()
    return_pile: tuple[str, ...] = ()
    strategy_pile: tuple[str, ...] = ()
    locked: tuple[tuple[str, int], ...] = ()
    """Championship: pile cards lying face down, with the seat that discarded them."""
    seats: tuple[SeatState, ...]
    active: int = 0
    stage: Stage = "main"
    turn: int = 0
    """Turns begun in the current game (3.7)."""
    momentum: str | None = None
    """The Strategy Momentum gave the active seat this turn (3.5): not counted
    at this turn's count (8.1). Cleared when the turn passes."""
    extra_turn: bool = False
    """Shrewd Move: the active seat plays again after this turn (3.6)."""
    attack: Attack | None = None
    tasks: tuple[Task, ...] = ()
    game_number: int = 1
    roll_off: tuple[str, ...] = ()
    """The opening roll-off of the current game, one line per round (2.2)."""
    next_opener: int | None = None
    """Championship: who opens the next game (2.3); ``None`` means a roll-off."""
    last_game: Outcome | None = None
    """Championship: how the previous game of the match ended."""
    result: Outcome | None = None


