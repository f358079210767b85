"""A census of what the collector tracks in each gateway worker, for ``bench.capacity``.

Put this folder first on ``PYTHONPATH`` and set ``GC_CENSUS`` to a directory:
every Python process started then (the workers of ``agents-club serve`` among
them) writes ``<dir>/gc-<pid>.log``, a line every 10 s: the objects the
collector tracks, the most common types among them, and the longest full
(generation 2) collection since the line before::

    GC_CENSUS=/tmp/census PYTHONPATH=$PWD/bench/gc_census \\
        .venv/bin/python -m bench.capacity --transport ws --steps 1000

The workers' lines (``serve`` in them) give the objects a connected socket
keeps: the count at a step, less the count before it, over the sockets the
worker holds. Counting walks every object, so it is for this census only,
never for a timed run.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
from collections import Counter
from typing import Any

_OUT = os.environ.get("GC_CENSUS")


def _census(out: str) -> None:
    longest = [0.0]
    started = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            longest[0] = max(longest[0], time.perf_counter() - started[0])

    gc.callbacks.append(timed)
    with open(os.path.join(out, f"gc-{os.getpid()}.log"), "a", encoding="utf-8") as log:
        while True:
            time.sleep(10)
            tracked = gc.get_objects()
            kinds = Counter(type(each).__name__ for each in tracked).most_common(8)
            log.write(f"{time.strftime('%H:%M:%S')} {' '.join(sys.argv)[:60]} "
                      f"tracked={len(tracked)} longest_full_gc_ms={longest[0] * 1000:.0f} {kinds}\n")
            log.flush()
            del tracked
            longest[0] = 0.0


if _OUT:
    os.makedirs(_OUT, exist_ok=True)
    threading.Thread(target=_census, args=(_OUT,), daemon=True, name="gc-census").start()
