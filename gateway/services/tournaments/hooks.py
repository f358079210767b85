"""The tournaments' side of a table's life, bound to one table context.

:class:`~gateway.services.context.TableContext` makes one at construction
(its ``bind_tournaments``) and calls it through the
:class:`~gateway.services.table_hooks.TableHooks` protocol.
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.principal import Principal
from gateway.services.context import TableContext
from gateway.services.records import TableRecord
from gateway.services.tournaments import exports, ladder, scheduler

__all__ = ["TournamentHooks"]


@dataclass(frozen=True)
class TournamentHooks:
    """:class:`~gateway.services.table_hooks.TableHooks` for ``ctx``."""

    ctx: TableContext

    async def note_rated_table(self, table_id: str, game: str) -> None:
        await ladder.note_rated_table(self.ctx, table_id, game)

    async def note_finished(self, record: TableRecord) -> None:
        await scheduler.note_finished(self.ctx, record)

    async def note_refused(self, record: TableRecord, agent_id: str) -> None:
        await exports.note_refused(self.ctx, record, agent_id)

    async def require_published(self, record: TableRecord, principal: Principal | None) -> None:
        await exports.require_published(self.ctx, record, principal)
