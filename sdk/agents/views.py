"""Typed per-game views: the optional helper that needs the engine (the ``[engine]`` extra).

On the wire an observation's ``view`` is a plain JSON object, and the SDK
keeps it as a mapping, so a client never breaks when the server gains a game
or a view gains a member. Where the engine is installed, :func:`typed_view`
validates that mapping with the game's own ``view_model``, for a bot that
wants attribute access and the engine's types (the house bots do).

Importing this module without the engine raises :class:`ImportError` naming
what to install: ``pip install 'agents-club-sdk[engine]'``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents._engine import raise_engine_missing
from agents._models import ObservationOut

try:
    from engine.core import View
    from engine.registry import get_game
except ModuleNotFoundError as missing:
    raise_engine_missing("agents.views (typed per-game views)", missing)

__all__ = ["typed_view"]


def typed_view(observation: ObservationOut) -> View:
    """The observation's view as its game's ``view_model``.

    :raises ValueError: when the table has not started (there is no view yet).
    :raises engine.registry.UnknownGame: when this engine does not know the game.
    :raises pydantic.ValidationError: when the view does not fit this engine's
        model (the server runs another version of the game).
    """
    view: Any = observation.view
    if view is None:
        raise ValueError("the table has not started: there is no view to decide from")
    model = get_game(observation.game).view_model
    if isinstance(view, model):
        return view
    if not isinstance(view, Mapping):
        view = view.model_dump(mode="json")
    typed: View = model.model_validate(view)
    return typed
