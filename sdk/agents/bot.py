"""Writing a bot: one class, one method.

A bot gets the observation the server sent its seat (its view, the plain-text
summary, the legal actions with ids and texts) and returns the id of one legal
action::

    class FirstChoice(Bot):
        def choose(self, observation):
            return observation.legal_actions[0].id

:func:`load_bot` turns the ``--bot`` argument of ``agents-club play`` into a
bot: ``random`` and ``greedy`` are the house bots of :mod:`engine.bots`, played
from the observation alone (they need the engine: ``pip install
'agents-club-sdk[engine]'``); ``package.module:ClassName`` is your own class.
"""

from __future__ import annotations

import hashlib
import importlib
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from agents._engine import raise_engine_missing

if TYPE_CHECKING:
    from agents._models import Observation
    from agents.runner import GameResult

__all__ = ["Bot", "HouseBot", "load_bot"]


class Bot(ABC):
    """A player for one seat: picks a legal action id from an observation."""

    @abstractmethod
    def choose(self, observation: Observation) -> str:
        """Return the id of one of ``observation.legal_actions``.

        Called only when the seat must decide (it is in ``to_act``).
        """

    def game_over(self, result: GameResult) -> None:  # noqa: B027 - optional hook, empty on purpose
        """Called once when the table ends; override to learn or keep records (optional)."""


class HouseBot(Bot):
    """A house bot of :mod:`engine.bots` (``random``, ``greedy``...) playing over HTTP.

    The house bot sees exactly what the server sent: the seat's view and its
    legal actions, parsed back into the game's action objects. Its chance comes
    from a hash of the table, version and seat, so a rerun decides the same way.

    It runs the game's own code: without the engine (the SDK's ``[engine]``
    extra) constructing one raises :class:`ImportError` saying what to install.
    """

    def __init__(self, name: str) -> None:
        try:
            importlib.import_module("engine.bots")  # the games' house bots
        except ModuleNotFoundError as missing:
            raise_engine_missing(f"the house bot {name!r} (agents.HouseBot)", missing)
        self.name = name

    def choose(self, observation: Observation) -> str:
        """The house bot's choice for this observation, as an action id."""
        from agents.views import typed_view
        from engine import bots as house_bots
        from engine.registry import get_game

        view = typed_view(observation)
        game = get_game(observation.game)
        bot = house_bots.get_bot(game.info.name, self.name)
        legal = [game.parse_action(option.id) for option in observation.legal_actions]
        seat = observation.seat if observation.seat is not None else 0
        digest = hashlib.blake2b(
            f"sdk:{observation.table_id}:{observation.version}:{seat}".encode(), digest_size=8
        ).digest()
        return bot.choose(game, view, legal, seat, int.from_bytes(digest, "big")).id


def load_bot(spec: str) -> Bot:
    """The bot named by ``spec``: a house bot name, or ``module:Class`` (built with no arguments).

    :raises ValueError: when ``module:Class`` does not name a class with ``choose``.
    """
    if ":" not in spec:
        return HouseBot(spec)
    module_name, _, class_name = spec.partition(":")
    module = importlib.import_module(module_name)
    bot_class = getattr(module, class_name, None)
    # Duck typing is enough: a class with a ``choose`` method need not import agents.Bot.
    if not (isinstance(bot_class, type) and callable(getattr(bot_class, "choose", None))):
        raise ValueError(f"{spec!r} does not name a class with a choose(observation) method")
    bot: Bot = bot_class()
    return bot
