"""Wire models of the games catalogue (``GET /v1/games``).

Defined in the SDK (``agents._wire.games``) and re-exported: one definition of the wire
contract for the gateway and every SDK install.
"""

from agents._wire.games import (
    GameList,
    GameOut,
    ModeOut,
    VariantOut,
)

__all__ = [
    "GameList",
    "GameOut",
    "ModeOut",
    "VariantOut",
]
