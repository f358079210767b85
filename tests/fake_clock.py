"""A clock a test moves by hand (:mod:`gateway.clock`): windows and deadlines pass at once."""

from __future__ import annotations

import time


class FakeClock:
    """Epoch seconds that stand still until :meth:`advance` moves them.

    It starts at the real time (Redis key lifetimes are real time, so a stored
    deadline must stay near it) unless told otherwise.
    """

    def __init__(self, start: float | None = None) -> None:
        self.now = time.time() if start is None else start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
