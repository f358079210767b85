"""A tournament plan played in-process by house bots, for tests and ``bench/tournament.py``.

The gateway plays plans table by table over HTTP; this plays the same plans
with :func:`engine.simulation.play_table`, so the statistics of the formats
and of the fit can be measured quickly and without a server. Every table of
a board starts from the board's seed, so its rotations deal the same cards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.bots import Bot, get_bot
from engine.core import Action, Game, Seat, View
from engine.registry import get_game
from engine.simulation import play_table
from tournament.plan import TablePlan
from tournament.results import TableResult, placements

__all__ = ["board_seed", "house_bot_name", "play_plans"]


def board_seed(seed: int, board: int) -> int:
    """A 63-bit table seed for ``board`` of an in-process tournament seeded ``seed``.

    (The gateway keys its boards with a secret instead, so that no entrant can
    know a deal in advance; in-process, nobody is there to know.)
    """
    digest = hashlib.blake2b(f"board:{seed}:{board}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def house_bot_name(entrant: str) -> str:
    """The bot that plays ``entrant``: ``bot:greedy`` -> ``greedy``; ``greedy#2`` -> ``greedy``.

    A suffix after ``#`` lets one bot enter several times under different ids.
    """
    return entrant.removeprefix("bot:").split("#", 1)[0]


@dataclass(frozen=True)
class _OwnChance:
    """A bot drawing its chance from its own stream (``salt``) instead of the table's."""

    bot: Bot
    salt: str

    @property
    def name(self) -> str:
        """The wrapped bot's name."""
        return self.bot.name

    @property
    def description(self) -> str:
        """The wrapped bot's description."""
        return self.bot.description

    def choose(self, game: Game[Any, Any, Any], view: View, legal: Sequence[Action], seat: Seat,
               rng_seed: int) -> Action:
        """The wrapped bot's choice with ``rng_seed`` mixed with the salt."""
        digest = hashlib.blake2b(f"{rng_seed}:{self.salt}".encode(), digest_size=8).digest()
        return self.bot.choose(game, view, legal, seat, int.from_bytes(digest, "big"))


def play_plans(*, game: str, mode: str, plans: Sequence[TablePlan], seed: int,
               bots: Mapping[str, str] | None = None, variants: Sequence[str] = (),
               own_chance: bool = False) -> list[TableResult]:
    """Play every planned table with house bots; one result per plan, in plan order.

    ``bots`` maps an entrant id to its bot's name (default
    :func:`house_bot_name`). ``finished_at`` is the plan index, so live
    ratings apply the tables in plan order.

    House bots draw their chance from the table seed, seat and step, so two
    copies of one bot in the same seat of the same deal play alike. With
    ``own_chance`` every entrant draws from its own stream at every table
    instead, as an agent that does not repeat itself would.

    :raises engine.bots.UnknownBot: if an entrant's bot does not exist for ``game``.
    """
    engine_game = get_game(game)
    results = []
    for plan in plans:
        config = engine_game.config_model(mode=mode, seats=len(plan.seating),
                                          variants=tuple(variants))
        seated: list[Bot] = [get_bot(game, (bots or {}).get(entrant) or house_bot_name(entrant))
                             for entrant in plan.seating]
        if own_chance:
            seated = [_OwnChance(bot, f"{entrant}:{plan.index}")
                      for bot, entrant in zip(seated, plan.seating, strict=True)]
        outcome = play_table(engine_game, config, board_seed(seed, plan.board), seated).outcome
        results.append(TableResult(
            index=plan.index, board=plan.board, round=plan.round,
            table_id=f"local_{plan.index}", seating=plan.seating,
            placements=placements(outcome.winners, outcome.scores, len(plan.seating),
                                  outcome.eliminated),
            scores=tuple(outcome.scores), reason=outcome.reason, finished_at=float(plan.index)))
    return results
