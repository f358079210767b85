"""The games catalogue, as ``GET /v1/games`` and the MCP ``list_games`` tool both answer it."""

from __future__ import annotations

from agents.wire.games import GameList, GameOut, ModeOut, VariantOut
from engine.bots import available_bots
from engine.registry import all_games
from gateway.services.records import game_or_problem

__all__ = ["game_list", "game_out"]


def game_out(name: str) -> GameOut:
    info = game_or_problem(name).info
    return GameOut(
        name=info.name,
        title=info.title,
        modes=[ModeOut(name=m.name, title=m.title, min_seats=m.min_seats, max_seats=m.max_seats,
                       description=m.description) for m in info.modes],
        variants=[VariantOut(name=v, description=d) for v, d in sorted(info.variants.items())],
        house_bots=sorted(available_bots(info.name)),
        rulebook_url=f"/v1/games/{info.name}/rulebook",
    )


def game_list() -> GameList:
    return GameList(games=[game_out(name) for name in all_games()])
