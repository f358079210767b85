"""What the table services tell the tournaments, and ask them, without importing them.

Tournaments play on ordinary tables, so :mod:`gateway.services.tournaments`
imports the table services. The table services in turn must note a rated table
when it is created, say when a rated or tournament table finishes, count a
tournament seat's refused action, and ask whether a tournament table's replay
is still embargoed. They do that through the :class:`TableHooks` their
:class:`~gateway.services.context.TableContext` carries (``ctx.tournaments``).
The context binds them at construction from the factory it is given
(:class:`gateway.services.tournaments.TournamentHooks` in
:mod:`gateway.services.runtime`): the imports go one way, and a context
without the hooks cannot be made, so no embargo check can be skipped by an
import that did not happen.
"""

from __future__ import annotations

from typing import Protocol

from gateway.principal import Principal
from gateway.services.records import TableRecord

__all__ = ["TableHooks"]


class TableHooks(Protocol):
    """The tournaments' side of a table's life, bound to one worker's table context."""

    async def note_rated_table(self, table_id: str, game: str) -> None:
        """A rated ordinary table is about to be written (its ladder must learn of it)."""

    async def note_finished(self, record: TableRecord) -> None:
        """A rated or tournament table just finished."""

    async def note_refused(self, record: TableRecord, agent_id: str) -> None:
        """A seat of a tournament table had an action refused (for the report)."""

    async def require_published(self, record: TableRecord, principal: Principal | None) -> None:
        """Refuse (``replay/embargoed``) a tournament table's replay while its board is
        still being played elsewhere."""
