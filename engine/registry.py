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

__all__ = ["UnknownGame", "all_games", "get_game", "package_of"]


class UnknownGame(KeyError):
    """No game package has that name."""


@cache
def _installed() -> dict[str, tuple[str, Game[Any, Any, Any]]]:
    """Every installed game by its API name, with the package that defines it, sorted."""
    found: dict[str, tuple[str, Game[Any, Any, Any]]] = {}
    for module_info in pkgutil.iter_modules(engine.__path__):
        if not module_info.ispkg:
            continue
        package = f"engine.{module_info.name}"
        game = getattr(importlib.import_module(package), "GAME", None)
        if game is not None:
            found[game.info.name] = (package, game)
    return dict(sorted(found.items()))


@cache
def all_games() -> dict[str, Game[Any, Any, Any]]:
    """Every installed game by its API name (``market-fortune``, ...), sorted."""
    return {name: game for name, (_, game) in _installed().items()}


def package_of(name: str) -> str:
    """The package that defines the game called ``name`` (``engine.market_fortune``),
    where its own modules (``bots``, ``audit``) live; raises :class:`UnknownGame`.

    Found from the registry, not from the game object: an assembled game's
    type is :class:`engine.assembly.AssembledGame`, whatever package made it.
    """
    try:
        return _installed()[name][0]
    except KeyError:
        raise UnknownGame(name) from None


def get_game(name: str) -> Game[Any, Any, Any]:
    """The game called ``name``; raises :class:`UnknownGame`."""
    try:
        return all_games()[name]
    except KeyError:
        raise UnknownGame(name) from None
