"""Wire models of the games catalogue (``GET /v1/games``).

Plain pydantic, no FastAPI: the SDK imports these too.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["GameList", "GameOut", "ModeOut", "VariantOut"]


class _Out(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)  # answers: forward-compatible


class ModeOut(_Out):
    """A playable mode of a game and its seat range."""

    name: str = Field(examples=["classic"])
    title: str
    min_seats: int
    max_seats: int
    description: str


class VariantOut(_Out):
    """An optional rule a table may switch on."""

    name: str = Field(examples=["momentum-v7"])
    description: str


class GameOut(_Out):
    """One game: its modes, variants and the house bots that can fill seats."""

    name: str = Field(description="The API name used in every path and scope.", examples=["market-fortune"])
    title: str
    modes: list[ModeOut]
    variants: list[VariantOut]
    house_bots: list[str] = Field(description="Bot names accepted in `house_bots[].bot`.")
    rulebook_url: str = Field(description="Where the game's rulebook (markdown) is served.")


class GameList(_Out):
    """Every game the server can seat."""

    games: list[GameOut]
