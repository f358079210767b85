"""What the table store reads and writes, as values: snapshots, events, turns, idempotency.

The plain records :class:`gateway.store.tables.TableStore` returns, and how
each is encoded in Redis fields and stream entries and decoded from the raw
replies (:func:`gateway.store.connection.round_trip`). No Redis calls here.
"""

from __future__ import annotations

import json
import zlib
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
    rev: str | None = None
    """The revision: a random token every write sets anew (``None``: a table written
    before revisions existed). Equal revisions mean the very same write, even after
    a Redis that lost its last writes dealt the same version number again."""

    @property
    def record(self) -> dict[str, Any]:
        """The record, parsed."""
        parsed: dict[str, Any] = json.loads(self.record_json)
        return parsed


_COMPRESSED = b"z"
"""First byte of a compressed idempotency record (a JSON one starts with ``{``)."""
_COMPRESSION_LEVEL = 1
"""zlib's fastest level: on these records it compresses as well as the default one."""
_WINDOW_BITS = -12
_MEMORY_LEVEL = 4
"""Raw deflate with a 4 KB window and small tables: a record is a few KB, and zlib's
default state (a 32 KB window, 128 KB of tables) cost ten times the compression itself
to set up for each action (about 200 against 20 microseconds)."""


@dataclass(frozen=True)
class IdempotencyRecord:
    """What a request with an ``Idempotency-Key`` was answered the first time.

    The answer is kept as the JSON text it was sent as: it is written on every
    action with a key, and read back only on a retry.
    """

    fingerprint: str
    response_json: str

    def response(self) -> dict[str, Any]:
        """The stored answer, parsed."""
        parsed: dict[str, Any] = json.loads(self.response_json)
        return parsed

    def to_json(self) -> str:
        """The stored form: ``{"fingerprint": ..., "response": <the answer>}``."""
        return f'{{"fingerprint": {json.dumps(self.fingerprint)}, "response": {self.response_json}}}'

    def to_stored(self) -> bytes:
        """The compact stored form: :meth:`to_json` compressed (``z`` then raw deflate data).
        An action's answer holds its whole next observation, some 4 KB of JSON kept for a
        day per keyed action; compressed it is about a third of that or less."""
        packer = zlib.compressobj(_COMPRESSION_LEVEL, zlib.DEFLATED, _WINDOW_BITS, _MEMORY_LEVEL)
        return _COMPRESSED + packer.compress(self.to_json().encode()) + packer.flush()

    @classmethod
    def from_stored(cls, raw: bytes | str) -> IdempotencyRecord:
        """Parse :meth:`to_stored`'s form, or the plain JSON form stored before it."""
        if isinstance(raw, bytes) and raw.startswith(_COMPRESSED):
            return cls.from_json(zlib.decompress(raw[len(_COMPRESSED):], _WINDOW_BITS))
        return cls.from_json(raw)

    @classmethod
    def from_json(cls, raw: bytes | str) -> IdempotencyRecord:
        """Parse the stored form, keeping the answer's own text byte for byte (a retry is
        answered with exactly the text the first request got)."""
        text = decoded(raw)
        stored = json.loads(text)
        head = f'{{"fingerprint": {json.dumps(stored["fingerprint"])}, "response": '
        if text.startswith(head) and text.endswith("}"):
            return cls(fingerprint=stored["fingerprint"], response_json=text[len(head):-1])
        return cls(fingerprint=stored["fingerprint"], response_json=json.dumps(stored["response"]))


@dataclass(frozen=True)
class CommitResult:
    """What :meth:`TableStore.commit` did.

    Exactly one of: ``applied`` (with the new version, last event id and
    revision), a conflict (``version``: the current one; the version or the
    revision moved on), an idempotency key used by a concurrent request
    meanwhile (``replayed``), or a revoked caller (``revoked``).
    """

    applied: bool
    version: int
    last_seq: int = 0
    replayed: IdempotencyRecord | None = None
    rev: str | None = None
    """The revision the change wrote (when applied)."""
    revoked: bool = False
    """Nothing was written: the caller's token was revoked (a commit that asked)."""
    turn_written: bool = False
    """The change added an entry to the turn stream (who acts changed, or was not known)."""


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


SNAPSHOT_FIELDS = ("record", "state", "version", "seq", "deadline", "rev")
"""The table hash's fields a snapshot reads, in :func:`snapshot_from_row`'s order."""


def snapshot_from_row(table_id: str, row: Sequence[Any]) -> TableSnapshot | None:
    """A snapshot from an ``HMGET`` of :data:`SNAPSHOT_FIELDS`; ``None``: no such table."""
    record, state, version, seq, deadline, rev = row
    if record is None or version is None:
        return None
    return TableSnapshot(
        table_id=table_id,
        record_json=decoded(record),
        state=decoded(state) if state is not None else None,
        version=int(version),
        seq=int(seq or 0),
        deadline=float(deadline) if deadline is not None else None,
        rev=decoded(rev) if rev is not None else None,
    )


def no_errors(replies: list[Any]) -> list[Any]:
    """``replies`` of a :func:`round_trip`, raising the first error reply among them."""
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    return replies


def stored_events(reply: Any) -> list[StoredEvent]:
    """The events of an ``XREAD`` reply on one stream, oldest first."""
    events: list[StoredEvent] = []
    for entry_id, fields in stream_entries(reply):
        events.append(
            StoredEvent(
                seq=int(decoded(entry_id).split("-", 1)[0]),
                audience=_parse_audience(decoded(fields[b"audience"])),
                raw=fields[b"event"],
            )
        )
    return events
