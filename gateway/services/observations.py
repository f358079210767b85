"""A seat's observation of a table: its view, who acts, its legal actions, a summary.

Built in two places from the same facts: ``GET .../observation`` (from the
table as read from Redis) and the answer to an action (from the state the
action just produced, so a bot that acts again needs no second request).

An observation also tells a seat what happened since its last move (the
events it may see after that move's events, :func:`since_last_move`), and a
caller without a seat that it watches as a spectator, and why: an agent that
forgot its token must not wait for a turn that never comes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from agents.wire.tables import (
    EventOut,
    LegalActionOut,
    ObservationOut,
    OutcomeOut,
    TableSettings,
)
from gateway.services.loaded_table import LoadedTable
from gateway.services.records import TableRecord, game_or_problem
from gateway.store.tables import StoredEvent

__all__ = [
    "FIRST_READ_EVENTS",
    "LOG_TAIL",
    "RECENT_EVENTS",
    "RECENT_LOG_ENTRIES",
    "TABLE_FIELDS",
    "SinceLastMove",
    "SpectatorReason",
    "event_out",
    "last_move",
    "observation",
    "outcome_out",
    "reaches",
    "settings_line",
    "since_last_move",
    "table_settings",
]

LOG_TAIL = 8
"""Action-log entries read first to find a seat's last move: it is usually among the
last few; when it is not, :data:`RECENT_LOG_ENTRIES` are read."""

FIRST_READ_EVENTS = 16
"""The newest events read with :data:`LOG_TAIL` log entries, in the same round trip:
usually all that happened since a seat's last move."""

RECENT_LOG_ENTRIES = 64
"""Action-log entries read back at most to find a seat's last move (a seat that did not
move within them is told only the last :data:`RECENT_EVENTS` events)."""

RECENT_EVENTS = 100
"""The most events "since your last move" lists (the newest ones)."""


SpectatorReason = Literal["no_token", "not_seated"]
"""Why a caller sees the spectator's view: it sent no token, or it holds no seat here."""

_SPECTATOR_LINES: dict[str, str] = {
    "no_token": "You sent no token: this is the spectator's view; you hold no seat here and "
    "cannot act. Send `Authorization: Bearer <token>` to see your own seat.",
    "not_seated": "You hold no seat at this table: this is the spectator's view.",
}


@dataclass(frozen=True)
class SinceLastMove:
    """The events a seat may see after its last move, oldest first.

    ``after`` is the id of the last event of that move (0: the seat has not
    moved yet, so the events run from the table's start); ``None`` when the move
    is older than what was read, and then ``events`` are only the newest ones.
    """

    after: int | None
    events: list[EventOut]


def last_move(log: Sequence[dict[str, Any]], seat: int, *, whole_log: bool) -> int | None:
    """The id of the last event of ``seat``'s last move in ``log`` (the newest entries of
    the action log; ``whole_log``: all of it): 0 when it never moved, ``None`` when that
    is not known (its move is older than the entries, or an older gateway's entry).

    A move is an action the seat chose (an agent's or a house bot's), not a
    turn clock's default: after a timeout the seat is told everything since it
    last chose, the timeout included.
    """
    for entry in reversed(log):
        if entry.get("seat") == seat and entry.get("by") != "timeout":
            mark = entry.get("last_event_id")
            return int(mark) if isinstance(mark, int) else None
    return 0 if whole_log else None


def event_out(seq: int, audience: tuple[int, ...] | None, body: dict[str, Any]) -> EventOut:
    """An event as sent to a reader allowed to see it."""
    return EventOut(
        id=seq, kind=body["kind"], text=body["text"], data=body.get("data", {}),
        private=audience is not None,
    )


def reaches(events: Sequence[StoredEvent], after: int | None) -> bool:
    """Whether ``events`` (the newest ones, oldest first) hold every event after ``after``."""
    return after is not None and (not events or events[0].seq <= after + 1)


def since_last_move(
    events: Sequence[StoredEvent], seat: int, *, after: int | None, last_event_id: int
) -> SinceLastMove:
    """What ``seat`` may see of ``events`` (the newest ones, oldest first) after its last
    move (``after``, from :func:`last_move`), up to ``last_event_id`` (the table as
    observed). Only events whose audience holds ``seat`` are kept, so nothing another
    seat alone may see is ever listed."""
    cut = after if after is not None else -1
    listed = [event_out(event.seq, event.audience, event.body) for event in events
              if cut < event.seq <= last_event_id and event.visible_to(seat)]
    return SinceLastMove(after=after if reaches(events, after) else None, events=listed)


def _since_lines(since: SinceLastMove) -> list[str]:
    """The "Since your last move" part that opens a seat's summary."""
    if since.after == 0:
        head = "Since the table began (you have not moved yet):"
    elif since.after is None:
        head = f"Since your last move (only the newest {len(since.events)} events you may see):"
    else:
        head = "Since your last move:"
    if not since.events:
        return [head, "  nothing you may see happened.", ""]
    return [head, *(f"  [{event.id}] {event.text}" for event in since.events), ""]


TABLE_FIELDS = frozenset({"mode", "seats", "variants"})
"""Config fields a table has as fields of its own: never in a create's ``options``, nor
among :class:`TableSettings`' ``rules``."""


def table_settings(record: TableRecord) -> TableSettings:
    """The settings of ``record``'s table that change play: mode, variants, the clock and
    the game's numeric caps beside the rulebook's values (a lowered turn limit shows)."""
    fields = game_or_problem(record.game).config_model.model_fields
    rules = {key: value for key, value in record.config.items()
             if key not in TABLE_FIELDS and isinstance(value, int | float) and not isinstance(value, bool)}
    rulebook = {key: fields[key].default for key in rules if key in fields}
    return TableSettings(mode=record.mode, variants=list(record.variants),
                         turn_timeout_s=record.turn_timeout_s, rules=rules, rulebook_rules=rulebook)


def settings_line(settings: TableSettings) -> str:
    parts = [f"mode {settings.mode}", f"variants {', '.join(settings.variants) or 'none'}",
             f"turn clock {settings.turn_timeout_s:g} s per decision" if settings.turn_timeout_s
             else "no turn clock"]
    for key, value in sorted(settings.rules.items()):
        usual = settings.rulebook_rules.get(key)
        parts.append(f"{key} {value}" + (f" (the rulebook's is {usual})" if usual is not None and usual != value else ""))
    return "Table settings: " + "; ".join(parts) + "."


def outcome_out(record: TableRecord) -> OutcomeOut | None:
    """A finished table's outcome as sent to clients (``None`` while it is not over)."""
    return OutcomeOut.model_validate(record.outcome) if record.outcome else None


def observation(
    loaded: LoadedTable,
    seat: int | None,
    *,
    since: SinceLastMove | None,
    spectator_reason: SpectatorReason | None,
) -> ObservationOut:
    """What ``seat`` (``None``: a spectator) sees of the table as read (or as just written).

    ``since``: the seat's events since its last move (its summary opens with
    them); ``spectator_reason``: why a caller without a seat watches (the
    summary's first line says it).
    """
    record, game, state, snapshot = loaded.record, loaded.game, loaded.state, loaded.snapshot
    table_id, version, last_event_id = snapshot.table_id, snapshot.version, snapshot.seq
    head = [_SPECTATOR_LINES[spectator_reason]] if spectator_reason is not None else []
    if since is not None:
        head += _since_lines(since)
    settings = table_settings(record)
    head.append(settings_line(settings))
    if record.status == "open":  # nobody acts and nothing is dealt to see yet
        to_act, legal, view, deadline = [], [], None, None
        free = sum(occupant is None for occupant in record.seated)
        summary = (f"Waiting for {free} more player(s); the table starts when every seat is "
                   "taken.")
    else:
        to_act = game.to_act(state)
        legal = game.legal_actions(state, seat) if seat is not None and seat in to_act else []
        view, deadline = game.view(state, seat), snapshot.deadline
        summary = game.summary(state, seat)
    return ObservationOut(
        table_id=table_id,
        game=record.game,
        status=record.status,
        version=version,
        seat=seat,
        to_act=to_act,
        legal_actions=[LegalActionOut(id=action.id, text=action.text) for action in legal],
        view=view,
        summary="\n".join([*head, summary]),
        deadline=deadline,
        last_event_id=last_event_id,
        outcome=outcome_out(record),
        settings=settings,
        spectator_reason=spectator_reason,
        since_your_last_move=since.events if since is not None else None,
        last_move_event_id=since.after if since is not None else None,
    )
