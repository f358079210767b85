"""Who may see a table: everyone for a public table; for a private one, only its people.

A private table is visible to the agents seated at it, to the agent that
created it (it holds the id anyway, and the table counts against its cap until
it ends) and to the organiser. Anyone else, with or without a token, is told
``table/not_found`` exactly as for an id that was never used, so a private
table's existence does not leak. Its id works as the invitation: while the
table is open, anyone holding the id may join it (and then sees it), but may
not look at it before.
"""

from __future__ import annotations

from gateway.errors import ProblemError
from gateway.principal import Principal
from gateway.services.records import TableRecord, problem

__all__ = ["may_see", "not_found", "require_visible"]

_SHOWN_ID_CHARS = 64
"""Longer ids are cut in the problem's detail: never echo unbounded input."""


def not_found(table_id: str) -> ProblemError:
    """The ``table/not_found`` problem, the same for a missing and a hidden table."""
    shown = table_id if len(table_id) <= _SHOWN_ID_CHARS else table_id[:_SHOWN_ID_CHARS] + "…"
    return problem("table/not_found", f"No table has the id {shown!r}.")


def may_see(record: TableRecord, principal: Principal | None) -> bool:
    """True when ``principal`` (``None``: no token) may see the table."""
    if not record.private:
        return True
    if principal is None:
        return False
    return (
        principal.kind == "organiser"
        or principal.agent_id == record.created_by
        or record.seat_of(principal.agent_id) is not None
    )


def require_visible(record: TableRecord, principal: Principal | None) -> None:
    if not may_see(record, principal):
        raise not_found(record.id)
