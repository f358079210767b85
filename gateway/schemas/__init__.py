"""The wire models, one module per resource, as the gateway imports them.

Each is defined once, in the SDK (``agents._wire``, the ``agents-club-sdk``
distribution the gateway depends on), and re-exported here: the server and
every SDK install share one definition of the wire contract. Server-only
views (``watch``) live here.
"""

from agents._wire import (
    WholeNumber,
)

__all__ = [
    "WholeNumber",
]
