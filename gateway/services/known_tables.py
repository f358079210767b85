"""A worker's newest read or write of each table, parsed: what an action may start from.

An agent's action needs the table as it is. Reading it first costs a round
trip to Redis; but the worker serving a bot usually read or wrote the table
on that bot's previous request (the held observation that woke it, or its
own last action), over the same keep-alive connection. When the action names
the version this worker knows, :func:`gateway.services.actions.submit`
computes it on the remembered table and sends only the commit, which the
commit script applies only if the table's version *and* revision (a random
token each write sets) are still the remembered ones, the caller's token is
not revoked, and the idempotency key is unused; otherwise nothing is written
and the action takes the ordinary path, reading the table first. So a
remembered table can make an action cheaper, never make it wrong: Redis
decides, atomically, whether it was still the table.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gateway.services.actions import LoadedTable

__all__ = ["DEFAULT_CAPACITY", "KnownTables"]

DEFAULT_CAPACITY = 256
"""Tables remembered by a bare context (tests); a worker remembers
``AGENTS_CLUB_REMEMBERED_TABLES`` (they share their parsed states with
:class:`gateway.services.parsed_states.ParsedStates`, which has the same size)."""


class KnownTables:
    """Each table's newest read or write by this worker, least recently used dropped first."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = capacity
        self._tables: OrderedDict[str, LoadedTable] = OrderedDict()

    def get(self, table_id: str) -> LoadedTable | None:
        """The table as this worker last read or wrote it (``None``: not known here)."""
        return self._tables.get(table_id)

    def note(self, loaded: LoadedTable) -> None:
        """Remember ``loaded`` as the newest this worker knows of its table.

        A read replaces whatever was remembered, even a newer write: Redis is
        the truth, and a remembered table that is out of date costs only the
        round trip it was meant to save. A read of the very write remembered
        (the same revision) keeps that write's entry, and so its marks (the
        other seat's wait, woken by the write, reads it just before the writer
        waits).
        """
        if loaded.snapshot.rev is None:
            return  # written before revisions: its commit could not check one
        table_id = loaded.snapshot.table_id
        known = self._tables.get(table_id)
        if known is None or known.snapshot.rev != loaded.snapshot.rev or loaded.marks is not None:
            self._tables[table_id] = loaded
        self._tables.move_to_end(table_id)
        if len(self._tables) > self.capacity:
            self._tables.popitem(last=False)

    def forget(self, table_id: str) -> None:
        """Drop what is remembered of ``table_id``."""
        self._tables.pop(table_id, None)

    def __len__(self) -> int:
        return len(self._tables)
