"""The tournaments' side of a table's life (:mod:`gateway.services.table_hooks` says how
and why a table context binds it)."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.principal import Principal
from gateway.services.context import TableContext
from gateway.services.records import TableRecord, problem
from gateway.services.tournaments.exports import tournament_of
from gateway.services.tournaments.ladder import LADDER_RECHECK_S, note_rated_finish
from gateway.services.tournaments.state import is_organiser, store_of

__all__ = ["TournamentHooks"]


@dataclass(frozen=True)
class TournamentHooks:
    """:class:`~gateway.services.table_hooks.TableHooks` for ``ctx``."""

    ctx: TableContext

    async def note_rated_table(self, table_id: str, game: str) -> None:
        """Remember the table before it is written, so that the ladder's sweep rates it
        even if the worker that finishes it dies before doing so itself."""
        await store_of(self.ctx).add_ladder_pending(game, table_id, self.ctx.now() + LADDER_RECHECK_S)

    async def note_finished(self, record: TableRecord) -> None:
        """Wake the table's tournament's scheduler (it collects the result and starts the
        next table now rather than at its next look), or put a rated ordinary table on
        the ladder."""
        if record.tournament is not None:
            await store_of(self.ctx).poke(record.tournament, self.ctx.now())
        else:
            await note_rated_finish(self.ctx, record)

    async def note_refused(self, record: TableRecord, agent_id: str) -> None:
        if record.tournament is not None:  # counted for the report
            await store_of(self.ctx).count_refused(record.tournament, agent_id)

    async def require_published(self, record: TableRecord, principal: Principal | None) -> None:
        """Refuse a tournament table's replay (``replay/embargoed``) while its board is
        still being played at other tables; the organiser may always read it."""
        if is_organiser(principal):
            return
        found = await tournament_of(self.ctx, record)
        if found is None:
            return
        snapshot, index = found
        if not snapshot.board_complete(snapshot.plans[index].board):
            raise problem("replay/embargoed",
                          "This table's board is still being played at other tables; its replay "
                          "opens when every table of the board is over.")
