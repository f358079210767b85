"""Finds the games: every subpackage of :mod:`engine` that exposes ``GAME``.

Adding a game means adding one package under ``engine/`` whose ``__init__``
defines ``GAME`` (an object satisfying :class:`engine.core.Game`); nothing else
in the engine, gateway or quiz needs to change.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Any

import engine
from engine.core import Game

__all__ = ["UnknownGame", "all_games", "get_game"]


class UnknownGame(KeyError):
    """No game package has that name."""


@cache
def all_games() -> dict[str, Game[Any, Any, Any]]:
    """Every installed game by its API name (``market-fortune``, ...), sorted."""
    found: dict[str, Game[Any, Any, Any]] = {}
    for module_info in pkgutil.iter_modules(engine.__path__):
        if not module_info.ispkg:
            continue
        module = importlib.import_module(f"engine.{module_info.name}")
        game = getattr(module, "GAME", None)
        if game is not None:
            found[game.info.name] = game
    return dict(sorted(found.items()))


def get_game(name: str) -> Game[Any, Any, Any]:
    """The game called ``name``; raises :class:`UnknownGame`."""
    try:
        return all_games()[name]
    except KeyError:
        raise UnknownGame(name) from None
