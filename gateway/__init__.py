"""The Agents Club gateway: a FastAPI service over the engine, with Redis as its only state.

``__version__`` is the release of the ``agents-club`` distribution (the gateway,
the engines, the quiz and the CLI), read from the installed distribution's
metadata: the one place a release is set is ``version`` in ``pyproject.toml``,
and ``CHANGELOG.md`` says what each release changed. The wire contract has a
version of its own, the OpenAPI document's (``gateway.app.API_VERSION``).
"""

from importlib import metadata

__all__ = ["DISTRIBUTION", "__version__"]

DISTRIBUTION = "agents-club"
"""The distribution this package ships in."""

__version__ = metadata.version(DISTRIBUTION)
