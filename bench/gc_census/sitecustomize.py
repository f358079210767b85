"""A census of what the collector tracks in each gateway worker, for ``bench.capacity``.

Put this folder first on ``PYTHONPATH`` and set ``GC_CENSUS`` to a directory:
every Python process started then (the workers of ``agents-club serve`` among
them) writes ``<dir>/gc-<pid>.log``, a line every 10 s: the objects the
collector tracks, the most common types among them, and for each generation
the collections since the line before, their total and their longest
(``g2=1/224/224`` is one full collection of 224 ms). A collection is timed from
its ``gc.callbacks`` start to its stop, so a pause in which the OS ran another
process counts too::

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
    # per generation: [collections, total seconds, longest seconds]
    timings = {generation: [0, 0.0, 0.0] for generation in range(3)}
    started = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        took = time.perf_counter() - started[0]
        counted = timings[info["generation"]]
        counted[0] += 1
        counted[1] += took
        counted[2] = max(counted[2], took)

    gc.callbacks.append(timed)
    with open(os.path.join(out, f"gc-{os.getpid()}.log"), "a", encoding="utf-8") as log:
        while True:
            time.sleep(10)
            tracked = gc.get_objects()
            kinds = Counter(type(each).__name__ for each in tracked).most_common(8)
            pauses = " ".join(f"g{generation}={n}/{total * 1000:.0f}/{longest * 1000:.0f}"
                              for generation, (n, total, longest) in timings.items())
            log.write(f"{time.strftime('%H:%M:%S')} {' '.join(sys.argv)[:60]} "
                      f"tracked={len(tracked)} collections(n/total ms/longest ms) {pauses} "
                      f"{kinds}\n")
            log.flush()
            del tracked
            for counted in timings.values():
                counted[:] = [0, 0.0, 0.0]


if _OUT:
    os.makedirs(_OUT, exist_ok=True)
    threading.Thread(target=_census, args=(_OUT,), daemon=True, name="gc-census").start()
