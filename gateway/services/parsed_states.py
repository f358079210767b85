"""A worker's memory of the table states (and records) it parsed or wrote lately.

Every request on a table reads its state and record as JSON from Redis and
needs them parsed. A bot's requests come over one keep-alive connection, so they reach
the same worker, and that worker usually parsed (or wrote) exactly that JSON
on the bot's previous request. Parsing is deterministic and engine states
are immutable, so the state parsed from the same text can be used again:
the memory is keyed by table and checked by comparing the whole text, never
a hash or a version number, so a hit is always the state the text describes.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from engine.core import Game
from gateway.services.records import TableRecord

__all__ = ["DEFAULT_CAPACITY", "ParsedStates"]

DEFAULT_CAPACITY = 256
"""Tables remembered by a bare context (tests); a worker remembers
``AGENTS_CLUB_REMEMBERED_TABLES`` (a Market Fortune state is about 4 KB of JSON
and 6 KB parsed)."""


class ParsedStates:
    """Each table's last state text and its parsed state, least recently used dropped first,
    and likewise each table's last record (frozen, like the states)."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[str, tuple[str, Any]] = OrderedDict()
        self._records: OrderedDict[str, tuple[str, TableRecord]] = OrderedDict()

    def record(self, table_id: str, text: str) -> TableRecord:
        """The record ``text`` describes: remembered when this worker last saw the same text.

        A record changes only when a seat is taken or left and when the table
        starts or ends, so nearly every read finds it here.
        """
        entry = self._records.get(table_id)
        if entry is not None and entry[0] == text:
            self._records.move_to_end(table_id)
            return entry[1]
        record = TableRecord.model_validate_json(text)
        self._records[table_id] = (text, record)
        if len(self._records) > self.capacity:
            self._records.popitem(last=False)
        return record

    def parse(self, game: Game[Any, Any, Any], table_id: str, text: str) -> Any:
        """The state ``text`` describes: remembered when this worker last saw the same text."""
        entry = self._entries.get(table_id)
        if entry is not None and entry[0] == text:
            self._entries.move_to_end(table_id)
            return entry[1]
        state = game.state_model.model_validate_json(text)
        self.remember(table_id, text, state)
        return state

    def remember(self, table_id: str, text: str, state: Any) -> None:
        """Note that ``text`` is the JSON of ``state`` (a state this worker just wrote)."""
        self._entries[table_id] = (text, state)
        self._entries.move_to_end(table_id)
        if len(self._entries) > self.capacity:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
