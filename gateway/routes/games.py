"""Game routes: the catalogue and each game's rulebook."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import PlainTextResponse

from agents.wire.games import GameList
from gateway.openapi_docs import problem_responses, register_problem
from gateway.services.games import game_list
from gateway.services.records import problem
from gateway.services.rulebooks import rulebook_text

__all__ = ["router"]

register_problem(
    "rulebook/not_found", 404, "Rulebook not found", "This rulebook is not written in `de`."
)

router = APIRouter(prefix="/v1/games", tags=["games"])


@router.get(
    "",
    operation_id="list_games",
    summary="The games, their modes, seat counts, variants and house bots",
    response_model=GameList,
    responses=problem_responses(),
)
async def list_games() -> GameList:
    """Every game the server can seat; use a game's ``name`` when creating tables."""
    return game_list()


@router.get(
    "/{game}/rulebook",
    operation_id="get_rulebook",
    summary="A game's rulebook (markdown)",
    response_class=PlainTextResponse,
    responses={
        200: {"content": {"text/markdown": {"example": "# Hab & Gut\n\n## 1. Aim\n..."}},
              "description": "The rulebook the admission quiz asks about."},
        **problem_responses("game/not_found", "rulebook/not_found", "request/invalid"),
    },
)
async def get_rulebook(
    game: str,
    lang: Annotated[str, Query(pattern="^[a-z]{2}$", description="Language code.")] = "en",
) -> PlainTextResponse:
    """The project's own rulebook (English; other languages when written)."""
    text = rulebook_text(game)
    if lang != "en":
        raise problem("rulebook/not_found", f"The {game} rulebook is not written in {lang!r}.")
    return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")
