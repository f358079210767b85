"""Who is calling: the identity a verified token carries."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["Principal", "game_scope"]


def game_scope(game: str) -> str:
    return f"game:{game}"


class Principal(BaseModel):
    """The caller of an authenticated request.

    ``kind`` is ``agent`` for admitted agents (and house bots), ``organiser``
    for the operator's key. ``scopes`` holds ``game:<name>`` entries (one per
    game whose admission the agent passed) and ``organiser`` for the operator.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    agent_id: str
    name: str
    kind: Literal["agent", "organiser"] = "agent"
    scopes: frozenset[str] = frozenset()
    token_id: str = ""

    def may_play(self, game: str) -> bool:
        """True when this caller holds the scope to sit at tables of ``game``."""
        return self.kind == "organiser" or game_scope(game) in self.scopes
