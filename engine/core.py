"""The engine contract every game package implements.

A game is a set of pure functions over plain, serialisable pydantic data:

* ``new_table(config, seed) -> state``
* ``to_act(state) -> seats`` — who must decide now (a defender may act outside
  the active player's turn);
* ``legal_actions(state, seat) -> actions`` — sorted by canonical id;
* ``apply(state, seat, action) -> (state, events)`` — pure; raises
  :class:`IllegalAction` naming the rule it enforces;
* ``view(state, seat | None) -> view`` — the only way state leaves the engine
  (``None`` is the spectator);
* ``outcome(state) -> Outcome | None``;
* ``default_action(state, seat) -> action`` — always legal, used by turn clocks;
* ``hidden_from(state, seat) -> ids`` — the audit hook: the card ids the seat
  may not see, computed without the view (:mod:`engine.testing` checks every
  view and event against it).

Nothing here imports web, Redis or clock code. Chance lives in
:mod:`engine.chance`: it derives from the table seed and a counter kept in the
state, so ``seed + action log`` replays a table exactly (:func:`replay`).

Error tree::

    EngineError
    ├── InvalidConfig      the table configuration is not playable
    ├── MalformedAction    an action id that does not parse (syntax)
    └── IllegalAction      a well-formed action the rules forbid now
        └── NotYourTurn    the seat is not among ``to_act``
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Action",
    "EngineError",
    "EngineModel",
    "Event",
    "Game",
    "GameInfo",
    "IllegalAction",
    "InvalidConfig",
    "MalformedAction",
    "ModeInfo",
    "NotYourTurn",
    "Outcome",
    "Seat",
    "TableConfig",
    "View",
    "events_for",
    "evolve",
    "replay",
]

Seat = int
"""A seat number, 0-based, in clockwise order."""


class EngineModel(BaseModel):
    """Base for every engine value: immutable, strict about unknown fields.

    Pydantic models rather than frozen dataclasses with a ``TypeAdapter`` at the
    boundary: every step copies the state and usually a seat, and
    ``dataclasses.replace`` runs a frozen dataclass's ``__init__`` again, one
    ``object.__setattr__`` per field, where ``model_copy`` copies the instance's
    ``__dict__`` in C: a step with dataclasses costs more than one with pydantic
    models, although dataclasses build views and events for less
    (``bench/engine_instructions.py`` measures both halves of a step).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")


class TableConfig(EngineModel):
    """What a table is created with; games subclass it to add their own options.

    ``variants`` holds the names of optional rule variants switched on for the
    table (each game documents its own); unknown names are rejected by the game.
    """

    mode: str
    seats: int = Field(ge=1, le=12)
    variants: tuple[str, ...] = ()


class Action(EngineModel):
    """A decision a seat can submit.

    Subclasses are small value objects with a ``kind`` literal (the
    discriminator of the game's action union). Every action has a canonical
    ``id`` that round-trips through the game's ``parse_action`` and a one-line
    ``text`` for people and language models.
    """

    kind: str

    @property
    def id(self) -> str:
        """The canonical id string; ``game.parse_action(a.id) == a``."""
        raise NotImplementedError

    @property
    def text(self) -> str:
        """One line in plain words saying what the action does."""
        raise NotImplementedError


class Event(EngineModel):
    """Something that happened at the table.

    ``audience`` is ``None`` for a public event (every seat and spectators see
    it) or the seats allowed to see it. A game that must tell the table
    something while hiding details emits a redacted public event plus a full
    private one for the seats that may know; the gateway never edits events.
    """

    kind: str
    text: str
    audience: tuple[Seat, ...] | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class View(EngineModel):
    """What one seat (or a spectator, ``seat=None``) may see of a state."""

    game: str
    seat: Seat | None


class Outcome(EngineModel):
    """How a finished table ended.

    ``winners`` may hold several seats (a shared win); ``reason`` is a stable
    machine word (``victory``, ``turn_limit``, ...); ``scores`` is per seat.
    ``eliminated`` are seats put out of the running before the winner was decided
    (Hab & Gut's least generous donors): they finish after every other seat,
    whatever their score.
    ``decided_by`` names the comparisons that picked the winners, in the order they
    were applied, in the game's words (``("investments", "count")``): a second one
    means the first left seats tied and the second broke (or confirmed) the tie. The
    ``text`` says the same in words, so a seat can tell why it lost.
    """

    winners: tuple[Seat, ...]
    reason: str
    scores: tuple[float, ...] = ()
    text: str = ""
    eliminated: tuple[Seat, ...] = ()
    decided_by: tuple[str, ...] = ()


class ModeInfo(EngineModel):
    """A playable mode of a game, as listed by the API."""

    name: str
    title: str
    min_seats: int
    max_seats: int
    description: str


class GameInfo(EngineModel):
    """Static facts about a game, as listed by the API."""

    name: str
    title: str
    modes: tuple[ModeInfo, ...]
    variants: dict[str, str] = Field(default_factory=dict)
    """Variant name -> one-line description."""


class EngineError(Exception):
    """Base of every error the engine raises on purpose.

    ``code`` is a stable machine word used by the gateway's problem+json
    ``code`` (``action/illegal`` ...); ``rule`` cites the rulebook section.
    Messages must never name a card the caller may not see.
    """

    code: ClassVar[str] = "engine/error"

    def __init__(self, message: str, *, rule: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule
        if code is not None:
            self.code = code  # type: ignore[misc]


class InvalidConfig(EngineError):
    """The table configuration is not playable (mode, seats, variants)."""

    code = "table/invalid_config"


class MalformedAction(EngineError):
    """An action id or body that does not parse."""

    code = "action/malformed"


class IllegalAction(EngineError):
    """A well-formed action that the rules do not allow now."""

    code = "action/illegal"


class NotYourTurn(IllegalAction):
    """The seat is not one of the seats that must decide now."""

    code = "action/not_your_turn"


StateT = TypeVar("StateT", bound=EngineModel)
ActionT = TypeVar("ActionT", bound=Action)
ConfigT = TypeVar("ConfigT", bound=TableConfig)


@runtime_checkable
class Game(Protocol[ConfigT, StateT, ActionT]):
    """What a game package exposes as ``GAME`` in its ``__init__``.

    The gateway, the quiz and the bots use nothing else, so a new game is one
    new package under ``engine/`` (see :mod:`engine.registry`).
    """

    info: GameInfo
    config_model: type[ConfigT]
    state_model: type[StateT]
    view_model: type[View]
    action_type: Any
    """The discriminated union of the game's action models (``kind`` is the
    discriminator), e.g. ``Annotated[Build | Risk | ..., Field(discriminator="kind")]``;
    the gateway validates structured action bodies with it."""

    def new_table(self, config: ConfigT, seed: int) -> StateT:
        """Deal a new table; raises :class:`InvalidConfig`."""
        ...

    def to_act(self, state: StateT) -> list[Seat]:
        """Seats that must decide now, sorted; empty once the table is over."""
        ...

    def legal_actions(self, state: StateT, seat: Seat) -> list[ActionT]:
        """Every action ``seat`` may take now, sorted by id (empty if none)."""
        ...

    def apply(self, state: StateT, seat: Seat, action: ActionT) -> tuple[StateT, list[Event]]:
        """Apply one action; pure. Raises :class:`IllegalAction`."""
        ...

    def view(self, state: StateT, seat: Seat | None) -> View:
        """The part of ``state`` that ``seat`` may see (``None``: spectator)."""
        ...

    def outcome(self, state: StateT) -> Outcome | None:
        """The result once the table is over, else ``None``."""
        ...

    def default_action(self, state: StateT, seat: Seat) -> ActionT:
        """An always-legal action for a seat in ``to_act`` (turn clocks)."""
        ...

    def parse_action(self, action_id: str) -> ActionT:
        """Parse a canonical id; raises :class:`MalformedAction`."""
        ...

    def summary(self, state: StateT, seat: Seat | None) -> str:
        """Plain-text description of ``view(state, seat)`` for language models."""
        ...

    def rulebook(self) -> str:
        """The game's rulebook in markdown: package data of the game's package
        (``rulebook.md``), never a file of the source tree."""
        ...

    def hidden_from(self, state: StateT, seat: Seat | None) -> frozenset[str]:
        """The audit hook: ids of the cards ``seat`` (``None``: spectator) may not see now.

        Computed from the state alone, independently of :meth:`view`, so the
        conformance kit (:mod:`engine.testing`) and the gateway's leak scans
        can hold every view and event against it.
        """
        ...


def events_for(events: Sequence[Event], seat: Seat | None) -> list[Event]:
    """The events that ``seat`` may see (``None``: spectator, public only)."""
    return [
        event
        for event in events
        if event.audience is None or (seat is not None and seat in event.audience)
    ]


def replay(
    game: Game[Any, Any, Any],
    config: TableConfig,
    seed: int,
    log: Sequence[tuple[Seat, str]],
) -> Any:
    """Rebuild a table's state from its seed and action log of ``(seat, action id)``.

    Because chance only depends on the seed and the state's own counter, the
    result equals the live state exactly.
    """
    state = game.new_table(config, seed)
    for seat, action_id in log:
        state, _ = game.apply(state, seat, game.parse_action(action_id))
    return state


ModelT = TypeVar("ModelT", bound=EngineModel)


def evolve(model: ModelT, changes: dict[str, Any]) -> ModelT:
    """A copy of the frozen ``model`` with ``changes`` applied, without validating again.

    pydantic's own ``model_copy(update=...)``: games call it on every step and
    only ever pass values of the fields' own types, so validating again would
    only cost time.
    """
    return model.model_copy(update=changes)


def new_event(
    kind: str, text: str, audience: tuple[Seat, ...] | None, data: dict[str, Any]
) -> Event:
    """An :class:`Event` from positional parts: the one call the games' hot paths use.

    Built by validation (compiled in pydantic-core), which costs less than
    ``model_construct`` (a loop over the fields in Python); of a dict, with
    ``extra="ignore"``, as the dict holds the four fields and nothing else, so
    the check for unknown members could find nothing. ``data`` is copied by
    the validation.
    """
    return Event.model_validate({"kind": kind, "text": text, "audience": audience, "data": data}, extra="ignore")
