"""One read of a table, parsed: the type every table service passes around.

It lives apart from :mod:`gateway.services.actions` so that what only passes
loaded tables on (observations, hooks, the context) need not import the action
path that makes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core import Game
from gateway.services.records import TableRecord
from gateway.store.tables import TableSnapshot

__all__ = ["LoadedTable"]


@dataclass(frozen=True)
class LoadedTable:
    """One read of a table, parsed: the snapshot, its record, game and engine state."""

    snapshot: TableSnapshot
    record: TableRecord
    game: Game[Any, Any, Any]
    state: Any

    @property
    def version(self) -> int:
        return self.snapshot.version
