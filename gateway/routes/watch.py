"""The spectator pages: web pages that follow a table live and replay a finished one.

The pages are one static file that calls the public API from the browser without a
token, so a live page can show nothing a spectator could not read through the API
itself; a table that a spectator may not see (unknown or private) is a 404 problem here
too. ``GET /v1/tables/{table_id}/replay/positions`` is the replay page's one server-side
helper (docs/watch.md says why all of it is public once the table is over).
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from gateway.deps import (
    OPTIONAL_BEARER_SECURITY,
    OptionalPrincipal,
    client_address,
    table_context_of,
)
from gateway.openapi_docs import OPTIONAL_AUTH_PROBLEMS, problem_responses
from gateway.schemas.watch import ReplayPositions
from gateway.services import replays as replays_service
from gateway.services import tables as tables_service
from gateway.services import tournaments as tournaments_service
from gateway.services.records import game_or_problem
from gateway.services.replay_positions import opened_by_its_tournament, replay_positions

__all__ = ["router"]

PAGE = resources.files("gateway").joinpath("static", "watch.html")
"""The page (HTML with its script and style inline: nothing else to serve)."""

router = APIRouter(tags=["spectators"])

_HTML: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/html": {"example": "<!doctype html>..."}},
          "description": "The spectator page (it reads the public API from the browser)."}}

_PAGE_HTML = PAGE.read_text(encoding="utf-8")  # read once: it is part of the installed package


def _page() -> HTMLResponse:
    # No caching by intermediaries: a new gateway version may change the page.
    return HTMLResponse(_PAGE_HTML, headers={"Cache-Control": "no-cache"})


@router.get(
    "/watch",
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
    "/watch/tournaments/{tournament_id}",
    operation_id="watch_tournament",
    summary="A web page following a tournament: progress, standings, ratings, tables",
    response_class=HTMLResponse,
    responses={**_HTML, **problem_responses("tournament/not_found")},
)
async def watch_tournament(request: Request, tournament_id: str) -> HTMLResponse:
    """Open it in a browser: tables done, running and waiting; the standings; a chart of
    the live ratings with their intervals; every published table linked to its page and
    its replay. Refreshed while the tournament runs. Private tournaments cannot be watched."""
    # The same check as GET /v1/tournaments/{id} for a caller without a token.
    await tournaments_service.get_tournament(table_context_of(request), tournament_id, None)
    return _page()


@router.get(
    "/watch/leaderboard/{game}",
    operation_id="watch_leaderboard",
    summary="A web page showing a game's leaderboard",
    response_class=HTMLResponse,
    responses={**_HTML, **problem_responses("game/not_found")},
)
async def watch_leaderboard(game: str) -> HTMLResponse:
    """Open it in a browser: the live ratings over every rated table of the game, best
    first, as a table and as a chart with their intervals."""
    game_or_problem(game)
    return _page()


@router.get(
    "/watch/{table_id}",
    operation_id="watch_table",
    summary="A web page following one table live, as a spectator",
    response_class=HTMLResponse,
    responses={**_HTML, **problem_responses("table/not_found")},
)
async def watch_table(request: Request, table_id: str) -> HTMLResponse:
    """Open it in a browser: the position drawn as a picture (seats, whose turn, the
    turn clock, cards as far as they are public), redrawn on every public event, and
    the events as they happen. Private tables cannot be watched."""
    # The same check as GET /v1/tables/{id} for a caller without a token.
    await tables_service.get_table(table_context_of(request), table_id, None)
    return _page()


@router.get(
    "/watch/{table_id}/replay",
    operation_id="watch_replay",
    summary="A web page replaying a finished table step by step",
    response_class=HTMLResponse,
    responses={**_HTML, **problem_responses("table/not_found")},
)
async def watch_replay(request: Request, table_id: str) -> HTMLResponse:
    """Open it in a browser once the table is over: a slider, the arrow keys and
    autoplay step through every position, with every hand shown; `?step=N` opens
    step N. Before the end the page says when the replay opens. A table of a public
    tournament can be replayed here once its board is published, though it could not
    be watched live."""
    ctx = table_context_of(request)
    if not await opened_by_its_tournament(ctx, table_id, None):
        await tables_service.get_table(ctx, table_id, None)
    return _page()


@router.get(
    "/v1/tables/{table_id}/replay/positions",
    operation_id="get_replay_positions",
    summary="Every position of a finished table, as the spectator and each seat saw it",
    response_model=ReplayPositions,
    responses=problem_responses(
        *OPTIONAL_AUTH_PROBLEMS, "table/not_found", "table/not_finished", "replay/embargoed",
        "rate/limited"),
    openapi_extra=OPTIONAL_BEARER_SECURITY,
)
async def get_replay_positions(request: Request, table_id: str, principal: OptionalPrincipal) -> ReplayPositions:
    """The replay (seed and log) played through the engine: step 0 is the deal, step k
    the position after the k-th action, each with the spectator's view, every seat's
    own additions to it (hands, Strategies, shares) and the step's events. Only once
    the table is over, under the same gates as the replay itself (409
    ``table/not_finished`` before; a reader without a token counts against the same
    per-address allowance, 429 ``rate/limited`` beyond)."""
    ctx = table_context_of(request)
    await replays_service.limit_anonymous_replays(ctx, principal, client_address(request))
    return await replay_positions(ctx, table_id, principal)
