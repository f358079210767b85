"""The Agents Club gateway: a FastAPI service over the engine, with Redis as its only state.

``__version__`` is the ``agents-club`` distribution's release, read from its installed
metadata (so ``version`` in ``pyproject.toml`` is the one place it is set); the wire
contract has a version of its own (``gateway.app.API_VERSION``).
"""

from importlib import metadata

__all__ = ["DISTRIBUTION", "__version__"]

DISTRIBUTION = "agents-club"
"""The distribution this package ships in."""

__version__ = metadata.version(DISTRIBUTION)
