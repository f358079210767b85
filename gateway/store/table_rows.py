"""What the table store reads and writes, as values: snapshots, events, turns, idempotency.

The plain records :class:`gateway.store.tables.TableStore` returns, and how
each is encoded in Redis fields and stream entries and decoded from the raw
replies (:func:`gateway.store.connection.round_trip`). No Redis calls here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from gateway.store.connection import decoded, stream_entries

__all__ = [
    "SNAPSHOT_FIELDS",
    "CommitResult",
    "IdempotencyRecord",
    "RecentHistory",
    "StoredEvent",
    "TableSnapshot",
    "TurnEntry",
    "TurnsRead",
    "audience_field",
    "no_errors",
    "parse_to_act",
    "snapshot_from_row",
    "stored_events",
    "to_act_field",
]


@dataclass(frozen=True)
class StoredEvent:
    """An event as kept in the stream: its sequence id, audience and JSON body."""

    seq: int
    audience: tuple[int, ...] | None
    """``None``: public; else the seats allowed to see it."""
    raw: bytes | str
    """The body as stored (JSON)."""

    @cached_property
    def body(self) -> dict[str, Any]:
        """The body, parsed when first asked: readers pass over most of the events they
        read (an observation keeps those since the seat's last move)."""
        parsed: dict[str, Any] = json.loads(self.raw)
        return parsed

    def visible_to(self, seat: int | None) -> bool:
        """True when ``seat`` (``None``: a spectator) may see this event."""
        return self.audience is None or (seat is not None and seat in self.audience)


@dataclass(frozen=True)
class TurnEntry:
    """An entry of the turn stream: a change after which who acts may differ.

    Public facts only, like an observation's ``to_act``; never sent as is.
    """

    seq: int
    """The table's last event id once the change was written."""
    version: int
    """The table's version once the change was written."""
    to_act: tuple[int, ...] | None
    """The seats to act after the change (``()``: nobody; ``None``: not known, read
    the table)."""


class RecentHistory(NamedTuple):
    """A table's newest action-log entries and newest events, oldest first."""

    log: list[dict[str, Any]]
    events: list[StoredEvent]


class TurnsRead(NamedTuple):
    """One read of a waiting seat (:meth:`gateway.store.tables.TableStore.turns_then_table`)."""

    revoked: bool
    """Whether the caller's revocation mark exists (False when none was asked)."""
    turns: list[TurnEntry]
    """The changes of who acts after the read waited from."""
    table: TableSnapshot | None
    """The table (``None``: it is gone)."""
    recent: RecentHistory | None
    """Its recent history, read just after it, when asked for."""


@dataclass(frozen=True)
class TableSnapshot:
    """One consistent read of a table's hash."""

    table_id: str
    record_json: str
    """The table's record as stored (JSON)."""
    state: str | None
    """The engine state as JSON (``None`` only for a table still being created)."""
    version: int
    seq: int
    deadline: float | None


@dataclass(frozen=True)
class IdempotencyRecord:
    """What a request with an ``Idempotency-Key`` did the first time: not its answer, but
    enough to answer a retry again from the table (its fingerprint tells a retry from a
    reused key).

    ``version`` is the table's version the request produced. An action also keeps its
    action's id and the ids of the first and last events it appended, so a retry tells
    the same action and the same events (as its reader may see them).
    """

    fingerprint: str
    version: int
    action: str = ""
    events: tuple[int, int] = (0, 0)
    """The first and last event id the action appended (``(0, 0)``: none kept)."""

    def to_stored(self) -> str:
        """``<fingerprint> <version> <first event> <last event> <action id>`` (the id
        last: it may hold spaces)."""
        return f"{self.fingerprint} {self.version} {self.events[0]} {self.events[1]} {self.action}"

    @classmethod
    def from_stored(cls, raw: bytes | str) -> IdempotencyRecord:
        """Parse :meth:`to_stored`'s form; a record in any other form (kept by an older
        gateway) reads as one with no fingerprint, so its key is refused as used."""
        parts = decoded(raw).split(" ", 4)
        try:
            return cls(parts[0], int(parts[1]), parts[4], (int(parts[2]), int(parts[3])))
        except (IndexError, ValueError):
            return cls("", -1)


@dataclass(frozen=True)
class CommitResult:
    """What :meth:`TableStore.commit` did.

    Exactly one of: ``applied`` (with the new version and last event id), a
    conflict (``version``: the current one), or an idempotency key used by a
    concurrent request meanwhile (``replayed``).
    """

    applied: bool
    version: int
    last_seq: int = 0
    replayed: IdempotencyRecord | None = None
    turn_written: bool = False
    """The change added an entry to the turn stream (who acts changed, or was not known)."""
    history: RecentHistory | None = None
    """The table's recent history just after the change, when asked for and applied."""


def audience_field(audience: Sequence[int] | None) -> str:
    """An event's audience as stored: ``*`` for everyone, else its seats comma-separated."""
    return "*" if audience is None else ",".join(str(seat) for seat in audience)


def _parse_audience(raw: str) -> tuple[int, ...] | None:
    if raw == "*":
        return None
    return tuple(int(seat) for seat in raw.split(",") if seat)


def to_act_field(to_act: Sequence[int] | None) -> str:
    """``""``: not known; ``"-"``: nobody; else the seats, comma-separated."""
    if to_act is None:
        return ""
    return ",".join(str(seat) for seat in to_act) or "-"


def parse_to_act(raw: str) -> tuple[int, ...] | None:
    """A turn entry's ``to_act``: ``None`` when not known (``?``), ``()`` for nobody."""
    if raw == "?":
        return None
    return () if raw == "-" else tuple(int(seat) for seat in raw.split(","))


SNAPSHOT_FIELDS = ("record", "state", "version", "seq", "deadline")
"""The table hash's fields a snapshot reads, in :func:`snapshot_from_row`'s order."""


def snapshot_from_row(table_id: str, row: Sequence[Any]) -> TableSnapshot | None:
    """A snapshot from an ``HMGET`` of :data:`SNAPSHOT_FIELDS`; ``None``: no such table."""
    record, state, version, seq, deadline = row
    if record is None or version is None:
        return None
    return TableSnapshot(
        table_id=table_id,
        record_json=decoded(record),
        state=decoded(state) if state is not None else None,
        version=int(version),
        seq=int(seq or 0),
        deadline=float(deadline) if deadline is not None else None,
    )


def no_errors(replies: list[Any]) -> list[Any]:
    """``replies`` of a :func:`round_trip`, raising the first error reply among them."""
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    return replies


def stored_events(reply: Any) -> list[StoredEvent]:
    """The events of an ``XREAD`` reply on one stream, oldest first."""
    return [StoredEvent(seq=int(decoded(entry_id).split("-", 1)[0]),
                        audience=_parse_audience(decoded(fields[b"audience"])),
                        raw=fields[b"event"])
            for entry_id, fields in stream_entries(reply)]
