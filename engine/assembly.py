"""A game assembled as data: its rule functions, with defaults for the rest.

Instead of a class whose methods forward to the rule functions, a game can be
:func:`assemble`\\ d from them. Only the rules are required; the rest has a
sensible default:

* ``default_action``: the first legal action (sorted by id);
* ``parse_action``: the generic id of :class:`GenericAction` (``kind`` then
  the other fields in order, joined by ``:``), parsed back through the
  game's ``action_type`` union;
* ``summary``: the view as JSON;
* ``rulebook``: the text given, empty by default.

The result satisfies :class:`engine.core.Game`, so the registry, the gateway
and :func:`engine.testing.check_game` take it as they take a class. See
``tests/engine/toy_game.py`` for a whole game assembled this way.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from types import UnionType
from typing import Annotated, Any, Generic, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from engine.core import (
    Action,
    Event,
    GameInfo,
    MalformedAction,
    NotYourTurn,
    Outcome,
    Seat,
    TableConfig,
    View,
)

__all__ = ["AssembledGame", "GenericAction", "assemble", "generic_parser", "packaged_rulebook"]


class GenericAction(Action):
    """An action whose id is derived from its fields: ``kind:value:value``.

    Fields other than ``kind`` are written in declaration order; values must
    not contain ``:``. A subclass may still override ``text``.
    """

    @property
    def id(self) -> str:
        """``kind`` then every other field's value, joined by ``:``."""
        values = [str(value) for name, value in self.__dict__.items() if name != "kind"]
        return ":".join([self.kind, *values])

    @property
    def text(self) -> str:
        """The id in words, for games that give no text of their own."""
        return self.id.replace(":", " ")


def _members(action_type: Any) -> list[type[BaseModel]]:
    """The action models of a (possibly ``Annotated``) union, or of one model."""
    if get_origin(action_type) is Annotated:
        action_type = get_args(action_type)[0]
    if get_origin(action_type) is Union or isinstance(action_type, UnionType):
        return list(get_args(action_type))
    return [action_type]


def generic_parser(action_type: Any) -> Callable[[str], Any]:
    """``parse_action`` for the :class:`GenericAction` ids of ``action_type``."""
    by_kind: dict[str, type[BaseModel]] = {}
    for model in _members(action_type):
        for kind in get_args(model.model_fields["kind"].annotation):
            by_kind[kind] = model

    def parse(action_id: str) -> Any:
        kind, *values = action_id.split(":")
        model = by_kind.get(kind)
        names = [name for name in model.model_fields if name != "kind"] if model is not None else []
        if model is None or len(values) != len(names):
            raise MalformedAction(f"not an action id: {action_id!r}")
        try:
            return model.model_validate({"kind": kind, **dict(zip(names, values, strict=True))})
        except ValidationError:
            raise MalformedAction(f"not an action id: {action_id!r}") from None

    return parse


def packaged_rulebook(package: str) -> str:
    """The ``rulebook.md`` of a game's ``package`` (``__name__`` in its ``__init__``), read
    as package data: an installed wheel has no source tree to take a path from."""
    return resources.files(package).joinpath("rulebook.md").read_text(encoding="utf-8")


ConfigT = TypeVar("ConfigT", bound=TableConfig)
StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT", bound=Action)


class AssembledGame(Generic[ConfigT, StateT, ActionT]):
    """A :class:`engine.core.Game` made of functions; build it with :func:`assemble`.

    The rule functions become attributes of the instance as they are, so a
    call such as ``game.apply(...)`` is the rule function itself, with no
    method forwarding to it. The type parameters follow from the functions
    given, so ``GAME.apply`` of a typed game returns that game's state type.
    """

    def __init__(
        self,
        *,
        info: GameInfo,
        config_model: type[ConfigT],
        state_model: type[StateT],
        view_model: type[View],
        action_type: Any,
        new_table: Callable[[ConfigT, int], StateT],
        to_act: Callable[[StateT], list[Seat]],
        legal_actions: Callable[[StateT, Seat], list[ActionT]],
        apply: Callable[[StateT, Seat, ActionT], tuple[StateT, list[Event]]],
        view: Callable[[StateT, Seat | None], View],
        outcome: Callable[[StateT], Outcome | None],
        hidden_from: Callable[[StateT, Seat | None], frozenset[str]],
        default_action: Callable[[StateT, Seat], ActionT] | None = None,
        parse_action: Callable[[str], ActionT] | None = None,
        summary: Callable[[StateT, Seat | None], str] | None = None,
        rulebook: str = "",
    ) -> None:
        self.info = info
        self.config_model = config_model
        self.state_model = state_model
        self.view_model = view_model
        self.action_type = action_type
        self.new_table = new_table
        self.to_act = to_act
        self.legal_actions = legal_actions
        self.apply = apply
        self.view = view
        self.outcome = outcome
        self.hidden_from = hidden_from
        self.default_action = default_action or self._first_legal
        self.parse_action: Callable[[str], ActionT] = parse_action or generic_parser(action_type)
        self.summary = summary or self._view_json
        self._rulebook = rulebook

    def _first_legal(self, state: StateT, seat: Seat) -> ActionT:
        options = self.legal_actions(state, seat)
        if not options:
            raise NotYourTurn(f"Seat {seat} has nothing to decide now.")
        return options[0]

    def _view_json(self, state: StateT, seat: Seat | None) -> str:
        return self.view(state, seat).model_dump_json()

    def rulebook(self) -> str:
        """The game's rulebook text."""
        return self._rulebook


assemble = AssembledGame
"""Assemble a game from its rule functions (keyword arguments of :class:`AssembledGame`)."""
