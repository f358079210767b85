"""Competing CPU load for a capacity run: how much of the machine the gateway can spare.

A capacity figure measured on a shared machine depends on how fast the machine
happens to be that hour (``bench/capacity.py`` prints a yardstick for that). A
steadier way to state headroom is to take cores away on purpose and see whether
the step still holds: :func:`contending` starts ``cores`` processes that each
keep one core busy (a plain Python loop, at the same priority as the gateway)
for as long as the ``with`` block runs.

Each process stops when the block ends, when its parent goes away (it checks
every :data:`CHECK_S`), and at the latest after ``limit_s``: nothing is left
spinning if the bench is killed.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from collections.abc import Iterator

__all__ = ["CHECK_S", "contending"]

CHECK_S = 0.1
"""How often a busy process looks up whether it should stop."""


def _spin(parent: int, limit_s: float) -> None:
    """Keep one core busy until the parent is gone or ``limit_s`` has passed."""
    until = time.monotonic() + limit_s
    while os.getppid() == parent:
        look_again = time.monotonic() + CHECK_S
        while (now := time.monotonic()) < look_again:
            pass
        if now >= until:
            return


@contextlib.contextmanager
def contending(cores: int, *, limit_s: float = 4 * 3600.0) -> Iterator[list[int]]:
    """Run ``cores`` busy processes for the ``with`` block; yields their pids."""
    if cores <= 0:
        yield []
        return
    spawn = multiprocessing.get_context("spawn")
    processes = [spawn.Process(target=_spin, args=(os.getpid(), limit_s), daemon=True,
                               name=f"contention-{n}") for n in range(cores)]
    for process in processes:
        process.start()
    try:
        yield [process.pid for process in processes if process.pid is not None]
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=5)
