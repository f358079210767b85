"""The game engine behind the SDK's optional parts: the ``[engine]`` extra.

The SDK alone needs httpx and pydantic. Typed per-game views
(:mod:`agents.views`) and the house bots' brains (:class:`agents.HouseBot`)
run the games' own code, the ``engine`` package of the ``agents-club-engine``
distribution, which ``pip install 'agents-club-sdk[engine]'`` brings. Without
it they raise :class:`ImportError` saying so, and nothing else of the SDK
notices.
"""

from __future__ import annotations

from typing import NoReturn

__all__ = ["ENGINE_EXTRA", "is_the_engine", "raise_engine_missing"]

ENGINE_EXTRA = "agents-club-sdk[engine]"
"""What to install for the engine-backed parts of the SDK."""


def is_the_engine(missing: ModuleNotFoundError) -> bool:
    """Whether the module found missing is the engine (or one of its modules)."""
    return (missing.name or "").split(".")[0] == "engine"


def raise_engine_missing(feature: str, missing: ModuleNotFoundError) -> NoReturn:
    """Explain ``missing`` when it is the engine: ``feature`` needs the ``[engine]`` extra.

    Any other missing module is raised as it is (the engine is installed but
    something it imports is not: not the user's choice of extras).
    """
    if not is_the_engine(missing):
        raise missing
    raise ImportError(
        f"{feature} needs the game engine, which the Agents Club SDK installs only with its "
        f"engine extra: pip install '{ENGINE_EXTRA}' (from a checkout of the repository: "
        "pip install ./engine './sdk[engine]')",
        name="engine",
    ) from missing
