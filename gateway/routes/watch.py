"""The spectator page: a web page that follows a table live, as any spectator may see it.

``/watch`` lists the public tables; ``/watch/{table_id}`` follows one. The page
is one static file that calls the public API from the browser without a token
(the table, the held observation and the long-polled events), so it can show
nothing a spectator could not read through the API itself; a table that a
spectator may not see (unknown or private) is a 404 problem here too.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from gateway.openapi_docs import problem_responses
from gateway.services import tables as tables_service
from gateway.services.records import problem
from gateway.services.runtime import table_context

__all__ = ["router"]

PAGE = resources.files("gateway").joinpath("static", "watch.html")
"""The page (HTML with its script and style inline: nothing else to serve)."""

router = APIRouter(prefix="/watch", tags=["spectators"])

_HTML: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/html": {"example": "<!doctype html>..."}},
          "description": "The spectator page (it reads the public API from the browser)."}}


_PAGE_HTML = PAGE.read_text(encoding="utf-8")  # read once: it is part of the installed package


def _page() -> HTMLResponse:
    # No caching by intermediaries: a new gateway version may change the page.
    return HTMLResponse(_PAGE_HTML, headers={"Cache-Control": "no-cache"})


@router.get(
    "",
    operation_id="watch_tables",
    summary="A web page listing the public tables to watch",
    response_class=HTMLResponse,
    responses={**_HTML, **problem_responses()},
)
async def watch_tables() -> HTMLResponse:
    """Open it in a browser: it lists the tables being played, open and finished, each
    linking to its spectator page."""
    return _page()


@router.get(
    "/{table_id}",
    operation_id="watch_table",
    summary="A web page following one table live, as a spectator",
    response_class=HTMLResponse,
    responses={**_HTML, **problem_responses("table/not_found")},
)
async def watch_table(request: Request, table_id: str) -> HTMLResponse:
    """Open it in a browser: seats, the spectator's summary (updated whenever the table
    changes) and the public events as they happen. Private tables cannot be watched."""
    if getattr(request.app.state, "redis", None) is None:
        raise problem("server/unavailable", "Redis is not connected.")
    # The same check as GET /v1/tables/{id} for a caller without a token.
    await tables_service.get_table(table_context(request.app), table_id, None)
    return _page()
