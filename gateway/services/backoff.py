"""Pacing of a background loop whose work fails while Redis is down.

Retrying at its normal interval, a loop would log errors several times a second through
an outage and hammer a Redis trying to come back. :class:`Backoff` doubles the pause
after each failure up to a cap, logs an outage's first failure and its recovery once
each, and returns to the normal interval on the first success.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import NoReturn

__all__ = ["BACKOFF_CAP_S", "Backoff"]

BACKOFF_CAP_S = 30.0
"""The longest pause after failed rounds (a loop's own longer interval stays its pause)."""


class Backoff:
    """The pause after each round of one loop, and its once-per-outage log lines."""

    def __init__(self, name: str, logger: logging.Logger, *, interval_s: float) -> None:
        self.name = name
        self.log = logger
        self.interval_s = interval_s

    async def run_rounds(
        self, one_round: Callable[[], Awaitable[object]], *, wake: asyncio.Event | None = None
    ) -> NoReturn:
        """Run ``one_round`` until cancelled: ``interval_s`` after a round that worked, after
        one that failed a pause doubling with each failure in a row, capped (cancellation
        always goes through). An outage's first failure is logged with the error's type
        only (an engine message may name a hidden card), and its recovery once.

        ``wake``: after a round that worked, the next starts as soon as it is set (it is
        cleared then), at the latest after ``interval_s``.
        """
        failures = 0
        outage_started = 0.0
        while True:
            try:
                await one_round()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if failures == 0:
                    outage_started = time.monotonic()
                    self.log.error("%s failed: %s; backing off until it works again",
                                   self.name, type(error).__name__)
                failures += 1
                pause = min(self.interval_s * 2.0 ** min(failures, 30),
                            max(BACKOFF_CAP_S, self.interval_s))
            else:
                if failures:
                    self.log.warning("%s works again after %d failed round(s) in %.1f s",
                                     self.name, failures, time.monotonic() - outage_started)
                    failures = 0
                pause = self.interval_s
            if wake is None or failures:
                await asyncio.sleep(pause)
            else:
                # asyncio.timeout, not wait_for: on Python 3.11 a cancellation racing a
                # wait_for timeout can surface as TimeoutError, be suppressed here, and the
                # loop would then outlive the app's shutdown.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(pause):
                        await wake.wait()
            if wake is not None:
                wake.clear()
