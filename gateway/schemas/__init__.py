"""The wire models, one module per resource: pure pydantic (the SDK imports them too); request
models forbid unknown fields and coerce nothing."""

from typing import Annotated

from pydantic import BeforeValidator

__all__ = ["WholeNumber"]


def _integral(value: object) -> object:
    """JSON Schema counts ``7.0`` as an integer, and so may a client's JSON encoder; strict
    pydantic does not. A float without a fraction becomes the int it is; anything else
    (``7.5``, ``"7"``, ``true``) is left for strict validation to refuse."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


WholeNumber = Annotated[int, BeforeValidator(_integral)]
"""A request's integer: what the document calls an integer, the server takes."""
