"""A census of what the collector tracks in each gateway worker, for ``bench.capacity``.

Put this folder first on ``PYTHONPATH`` and set ``GC_CENSUS`` to a directory:
every Python process started then (the workers of ``agents-club serve`` among
them) writes ``<dir>/gc-<pid>.log``, a line every 10 s: the objects the
collector tracks, the most common types among them, and for each generation
the collections since the line before, their total and their longest, from
their ``gc.callbacks`` start to their stop (``g2=1/224/224/31`` is one full
collection of 224 ms). The last figure is the longest in the thread's own CPU
time: a collection whose wall time is much longer than its CPU time waited for a
core while the OS ran another process. ``young=`` gives the most objects that
generations 0 and 1 held when a young collection began: CPython counts
allocations less deallocations of any age, so where new objects replace old ones
(a socket's table after each decision), the young generations grow far past the
threshold of 700 before a collection comes::

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
    # per generation: [collections, total seconds, longest seconds, longest CPU seconds]
    timings = {generation: [0, 0.0, 0.0, 0.0] for generation in range(3)}
    started = [0.0, 0.0]
    young = [0, 0]  # the most objects in generations 0 and 1 at a young collection's start

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            if info["generation"] < 2:
                young[:] = [max(young[0], len(gc.get_objects(0))),
                            max(young[1], len(gc.get_objects(1)))]
            started[:] = [time.perf_counter(), time.thread_time()]
            return
        took, used = time.perf_counter() - started[0], time.thread_time() - started[1]
        counted = timings[info["generation"]]
        counted[0] += 1
        counted[1] += took
        counted[2] = max(counted[2], took)
        counted[3] = max(counted[3], used)

    gc.callbacks.append(timed)
    with open(os.path.join(out, f"gc-{os.getpid()}.log"), "a", encoding="utf-8") as log:
        while True:
            time.sleep(10)
            tracked = gc.get_objects()
            kinds = Counter(type(each).__name__ for each in tracked).most_common(8)
            pauses = " ".join(
                f"g{generation}={n}/{total * 1000:.0f}/{longest * 1000:.0f}/{cpu * 1000:.0f}"
                for generation, (n, total, longest, cpu) in timings.items())
            log.write(f"{time.strftime('%H:%M:%S')} {' '.join(sys.argv)[:60]} "
                      f"tracked={len(tracked)} collections(n/total ms/longest ms/its CPU ms) "
                      f"{pauses} young={young[0]}/{young[1]} {kinds}\n")
            log.flush()
            del tracked
            young[:] = [0, 0]
            for counted in timings.values():
                counted[:] = [0, 0.0, 0.0, 0.0]


if _OUT:
    os.makedirs(_OUT, exist_ok=True)
    threading.Thread(target=_census, args=(_OUT,), daemon=True, name="gc-census").start()
