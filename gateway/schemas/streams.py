"""A Redis stream id as the API accepts it: ``0`` or ``<ms>-<seq>``, each part within Redis's range.

Redis refuses a part above 2**64 - 1, so a bare digit pattern lets through ids that make the
read fail. The pattern here admits exactly the canonical ids Redis can read (no leading zeros),
so the OpenAPI document and the MCP tool schemas say what the server accepts, and anything
else is a 422 before it reaches Redis.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

__all__ = ["STREAM_ID_PATTERN", "STREAM_PART_MAX", "StreamId"]

STREAM_PART_MAX = 2**64 - 1
"""The largest part of a stream id Redis accepts."""


def _at_most(limit: int) -> str:
    """A regex (no anchors) for the canonical decimal integers from 0 to ``limit``."""
    top = str(limit)
    shorter = f"[1-9][0-9]{{0,{len(top) - 2}}}" if len(top) > 1 else ""
    same_length = []
    for place, digit in enumerate(top):
        lowest = 1 if place == 0 else 0
        if int(digit) > lowest:
            below = f"[{lowest}-{int(digit) - 1}]"
            rest = len(top) - place - 1
            same_length.append(top[:place] + below + (f"[0-9]{{{rest}}}" if rest else ""))
    same_length.append(top)
    return "|".join(["0", *filter(None, [shorter]), *same_length])


_PART = f"(?:{_at_most(STREAM_PART_MAX)})"
STREAM_ID_PATTERN = f"^(?:0|{_PART}-{_PART})$"
"""``0`` (from the start) or ``<ms>-<seq>``, both parts canonical and at most 2**64 - 1."""

StreamId = Annotated[str, StringConstraints(pattern=STREAM_ID_PATTERN, max_length=41)]
"""A stream id a client may send back (``after``, ``Last-Event-ID``)."""
