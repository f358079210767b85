"""The wire contract, one module per resource: the request and answer bodies of the HTTP API.

Defined here, in the SDK, and nowhere else: the gateway imports these very
classes, so client and server cannot disagree about a field. Pure pydantic (no
FastAPI, no engine). Request models forbid unknown fields and coerce nothing;
answer models ignore members they do not know. Agent authors import the models
from :mod:`agents`, which re-exports them under the names they type most.
"""

from typing import Annotated

from pydantic import BeforeValidator

__all__ = ["INTEGRAL", "WholeNumber"]


def _integral(value: object) -> object:
    """JSON Schema counts ``7.0`` as an integer, and so may a client's JSON encoder; strict
    pydantic does not. A float without a fraction becomes the int it is; anything else
    (``7.5``, ``"7"``, ``true``) is left for strict validation to refuse."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


INTEGRAL = BeforeValidator(_integral)
"""The conversion of :data:`WholeNumber`, to put after a ``Field`` of bounds where the
bounds must show in the JSON schema: ``Annotated[int, Field(ge=0), INTEGRAL]``."""

WholeNumber = Annotated[int, INTEGRAL]
"""A request's integer: what the document calls an integer, the server takes."""
