"""House bots: the contract every bot follows, the generic ``random`` bot, and lookup.

A bot decides for one seat from what that seat may see: the seat's view
(``game.view(state, seat)``) and its legal actions. It never receives the
state, so a house bot cannot cheat, and the same bot can drive a seat in the
gateway, where only views leave the engine.

Bots are deterministic: each decision gets an ``rng_seed`` (see
:func:`bot_seed`), and a bot that wants chance draws it from that seed with
:mod:`engine.chance`. The same table seed and bots therefore replay the same
game.

Per-game bots live in ``engine/<game package>/bots.py`` as a ``BOTS`` dict
(name -> bot). :func:`get_bot` finds them; ``random`` exists for every game.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

from engine.chance import draw_below
from engine.core import Action, Game, Seat, View
from engine.registry import UnknownGame, package_of

__all__ = [
    "RANDOM",
    "Bot",
    "NoLegalAction",
    "RandomBot",
    "UnknownBot",
    "available_bots",
    "bot_seed",
    "decide",
    "game_bots_module",
    "get_bot",
]


@runtime_checkable
class Bot(Protocol):
    """A house bot: picks one of a seat's legal actions from the seat's view."""

    @property
    def name(self) -> str:
        """The bot's name as used by the CLI and the API (``random``, ``greedy``)."""
        ...

    @property
    def description(self) -> str:
        """One line saying how the bot plays."""
        ...

    def choose(
        self,
        game: Game[Any, Any, Any],
        view: View,
        legal: Sequence[Action],
        seat: Seat,
        rng_seed: int,
    ) -> Action:
        """Return one element of ``legal`` (never empty) for ``seat``.

        ``view`` is ``game.view(state, seat)``; ``rng_seed`` is the only source
        of chance the bot may use, so its choice is reproducible.
        """
        ...


class UnknownBot(KeyError):
    """No bot of that name exists for that game."""


class NoLegalAction(RuntimeError):
    """A bot was asked to decide for a seat that has nothing legal to do."""


@dataclass(frozen=True)
class RandomBot:
    """Picks uniformly among the legal actions, seeded by ``rng_seed``."""

    name: str = "random"
    description: str = "picks uniformly at random among the legal actions"

    def choose(
        self,
        game: Game[Any, Any, Any],
        view: View,
        legal: Sequence[Action],
        seat: Seat,
        rng_seed: int,
    ) -> Action:
        """Return ``legal[i]`` for a uniform ``i`` drawn from ``rng_seed``."""
        if not legal:
            raise NoLegalAction(f"seat {seat} has no legal action")
        return legal[draw_below(rng_seed, 0, len(legal))]


RANDOM = RandomBot()
"""The generic random bot, available for every game."""


def bot_seed(table_seed: int, step: int, seat: Seat) -> int:
    """The ``rng_seed`` for the decision of ``seat`` at ``step`` of a table.

    Hashed (not the table seed itself) so that nothing a bot receives lets it
    reconstruct the table's deck order.
    """
    digest = hashlib.blake2b(f"bot:{table_seed}:{step}:{seat}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def decide(bot: Bot, game: Game[Any, Any, Any], state: Any, seat: Seat, rng_seed: int) -> Action:
    """Let ``bot`` choose for ``seat`` in ``state``, showing it only the seat's view.

    :raises NoLegalAction: if ``seat`` has no legal action now.
    :raises ValueError: if the bot returns an action that is not legal.
    """
    legal = game.legal_actions(state, seat)
    if not legal:
        raise NoLegalAction(f"seat {seat} has no legal action")
    choice = bot.choose(game, game.view(state, seat), legal, seat, rng_seed)
    if choice not in legal:
        # A bot bug must surface here, not as a confusing rules error later.
        raise ValueError(f"bot {bot.name!r} chose {choice.id!r}, which is not legal")
    return choice


def game_bots_module(game_name: str) -> ModuleType | None:
    """The ``engine/<game package>/bots.py`` module of ``game_name``, if it has one.

    :raises UnknownBot: if no game of that name is installed.
    """
    try:
        module_name = f"{package_of(game_name)}.bots"
    except UnknownGame:
        raise UnknownBot(f"no game named {game_name!r}") from None
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as missing:
        if missing.name != module_name:
            raise
        return None


@cache
def available_bots(game_name: str) -> dict[str, Bot]:
    """Every bot that can play ``game_name``, by name (``random`` first).

    :raises UnknownBot: if no game of that name is installed.
    """
    bots: dict[str, Bot] = {RANDOM.name: RANDOM}
    module = game_bots_module(game_name)
    if module is not None:
        bots.update(getattr(module, "BOTS", {}))
    return bots


def get_bot(game_name: str, bot_name: str) -> Bot:
    """The bot called ``bot_name`` for ``game_name``.

    :raises UnknownBot: if the game or the bot does not exist.
    """
    bots = available_bots(game_name)
    try:
        return bots[bot_name]
    except KeyError:
        known = ", ".join(sorted(bots))
        raise UnknownBot(f"no bot {bot_name!r} for {game_name} (known: {known})") from None
