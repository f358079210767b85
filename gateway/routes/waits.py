"""The ``wait_s`` query parameter of every held request, one definition for all routes.

A held request (an observation, an action answered at the next decision, an
events long-poll, the tournament assignments) names its wait ``wait_s``, as
MCP's tools and the SDK do. Its first name, ``wait``, stays accepted as a
deprecated alias, so bots written against it keep working: the same bounds,
the same default; beside a ``wait_s`` other than 0, ``wait_s`` wins (a schema-valid
request is never refused for naming its wait twice).
"""

from __future__ import annotations

from typing import Any

from fastapi import Depends, Query

__all__ = ["ASSIGNMENTS_WAIT_MAX_S", "OBSERVE_WAIT_MAX_S", "wait_seconds"]

OBSERVE_WAIT_MAX_S = 60.0
"""The bound on ``wait_s`` of an observation, an action and an events long-poll (and of
MCP's ``observe`` and ``act``)."""

ASSIGNMENTS_WAIT_MAX_S = 3600.0
"""The bound on ``wait_s`` of the tournament assignments (and of MCP's ``my_assignments``)."""


def wait_seconds(most: float, description: str, *, example: float | None = None) -> Any:
    """A dependency giving the seconds a route may hold its answer: ``wait_s`` from 0 to
    ``most`` (default 0), or its deprecated alias ``wait`` (see the module docstring)."""
    examples = {"one request per decision": {"value": example}} if example is not None else None

    async def held(
        wait_s: float = Query(0, ge=0, le=most, description=description,
                              openapi_examples=examples),  # type: ignore[arg-type]
        wait: float | None = Query(
            None, ge=0, le=most, deprecated=True,
            description="Deprecated: the first name of `wait_s`, still accepted (the same bounds "
            "and meaning; a `wait_s` sent with it wins). Send `wait_s`."),
    ) -> float:
        return wait if wait is not None and not wait_s else wait_s

    return Depends(held)
