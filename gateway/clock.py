"""The time the services read, injectable: one clock per app.

Turn-clock deadlines, challenge expiry and rate-limit windows are wall-clock
epoch seconds shared between workers (and stored in Redis), so the clock is
a wall clock: ``time.time`` unless a test hands :func:`gateway.app.create_app`
one it moves itself, to cross a window or a deadline without sleeping.
Durations measured inside one process (a held read's wait) stay on
``time.monotonic``; tokens are checked by PyJWT against the real time.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Clock", "wall_clock"]

Clock = Callable[[], float]
"""Epoch seconds now."""

wall_clock: Clock = time.time
