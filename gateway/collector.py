"""The cycle collector's policy in a worker: small young collections, full ones on a schedule.

CPython frees almost everything by reference counting; its cycle collector
exists for the rest, and it pauses the whole event loop while it scans. A
pause is as long as the generation it scans is large, and what makes a
worker's generations large is its *held requests*: every held observation,
long-poll and SSE stream keeps about a hundred tracked objects alive (its
coroutines through the middleware stack, their cells, exit stacks, events)
for as long as its agent's opponent thinks, seconds at a time. At 3,000
connected agents that is about 150,000 live objects per worker, and a
collection that scans them stops every request of the worker for 150-250 ms
(``bench/capacity.py`` measured it with a ``gc.callbacks`` probe).

Two things made such scans frequent, each measured at 3,000 agents:

* a young generation collected only when tracked allocations outnumber frees
  by a large first threshold (20,000): with requests coming and going the
  count grows slowly, so a young collection came every ~8 s and by then held
  all the held requests born since the last one (140,000-190,000 objects,
  150-190 ms of CPU each; action p99 180-600 ms);
* Python's automatic full collections: with the default thresholds young
  collections stay small, but every held request that outlives two of them is
  promoted to the oldest generation, which then passes its "25% new" rule
  every few seconds, and each full scan took ~240 ms (p99 380 ms).

So a worker keeps Python's default young threshold (a young scan is a few
thousand objects, about a millisecond), collects the middle generation after
every second young collection instead of every tenth, and turns the automatic
full collection off. The middle threshold: old objects that die count against
the young count, so under load the young generation passes many more objects
on than its threshold says, and with Python's 10 a middle collection held the
survivors of ten of them: 20-40 ms every second or two on each worker at 3,000
agents (a ``gc.callbacks`` probe, 2026-12-04); after every second one, they
rarely reach 20 ms. An object is still scanned once in each generation.

Full collections then run on a schedule, :func:`run_full_collections`, every
``AGENTS_CLUB_GC_FULL_INTERVAL_S`` (30 minutes) with some jitter so two
workers do not pause together. Only cyclic garbage that outlived the middle
generation waits for one, and there is little of it: at 3,000 agents a full
collection every 13 s found 0-61 objects, and an error-heavy load (38,000
refused requests in 40 s: 401, 404, 409, 422) left 484 objects in all to
twelve of them (2026-12-04). A scheduled collection still pauses the worker
as long as an automatic one did (175-295 ms at 3,000 agents: it scans every
held request), but twice an hour instead of every few seconds. In case some
load makes far more cyclic garbage than these, a collection also comes early
when the worker's resident memory has grown by
``AGENTS_CLUB_GC_FULL_RSS_GROWTH_MB`` since the last one
(``agents_club_gc_early_full_collections_total`` counts those, and
``agents_club_gc_collected_objects_total`` says how much garbage each found).
Everything the worker built at its start is frozen out of the generations
first (``gc.freeze``), so no collection scans it again. """

from __future__ import annotations

import asyncio
import gc
import logging
import os
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from gateway.metrics import Metrics

__all__ = [
    "FULL_JITTER",
    "MEMORY_CHECK_S",
    "NO_AUTOMATIC_FULL",
    "WORKER_THRESHOLDS",
    "FullCollection",
    "adopt_worker_policy",
    "full_collection",
    "resident_mb",
    "run_full_collections",
]

log = logging.getLogger(__name__)

NO_AUTOMATIC_FULL = 1_000_000_000
"""A third threshold no worker reaches: the middle collections it counts never add up to
an automatic full collection."""

WORKER_THRESHOLDS = (700, 2, NO_AUTOMATIC_FULL)
"""Young generation as Python's default, the middle one every second young collection;
full collections only on schedule."""

FULL_JITTER = 0.25
"""Each wait for the next full collection is the interval times 1 +/- this, at random."""

MEMORY_CHECK_S = 5.0
"""How often a worker compares its resident memory with the last full collection's."""


@dataclass(frozen=True)
class FullCollection:
    """What one scheduled full collection did."""

    seconds: float
    """How long the worker was paused."""
    collected: int
    """Unreachable objects found (the cyclic garbage that had waited for it)."""


def adopt_worker_policy() -> None:
    """Collect once, freeze what exists now, and collect by :data:`WORKER_THRESHOLDS` from
    here on: a worker calls it when its start-up is done.

    It is for the rest of the process, like the process's own thresholds: a test
    process that starts hundreds of apps keeps it too, which is cheap there for the
    same reason (each app's start-up collects the leftovers of the one before, and
    what was frozen is never scanned again)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*WORKER_THRESHOLDS)


def full_collection(metrics: Metrics) -> FullCollection:
    """Collect every generation now, and count it in ``metrics``."""
    started = time.perf_counter()
    collected = gc.collect()
    done = FullCollection(seconds=time.perf_counter() - started, collected=collected)
    metrics.inc("agents_club_gc_full_collections_total")
    metrics.inc("agents_club_gc_full_collection_seconds_total", done.seconds)
    metrics.inc("agents_club_gc_collected_objects_total", float(done.collected))
    log.debug("full collection: %d objects in %.1f ms", done.collected, done.seconds * 1000)
    return done


def resident_mb() -> float | None:
    """This process's resident memory in MB, from Linux's ``/proc/self/statm``; ``None``
    where there is no such file (the early collection then never comes)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


async def run_full_collections(
    metrics: Metrics,
    interval_s: float,
    *,
    growth_mb: float = float("inf"),
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    jitter: Callable[[], float] = random.random,
    resident: Callable[[], float | None] = resident_mb,
) -> None:
    """Run :func:`full_collection` for ever, about every ``interval_s``, or sooner once the
    resident memory is more than ``growth_mb`` above what it was after the last one
    (checked every :data:`MEMORY_CHECK_S`). ``sleep``, ``jitter`` (a number in [0, 1))
    and ``resident`` are the waiting, the chance and the memory reading, for tests."""
    while True:
        due = interval_s * (1 + FULL_JITTER * (2 * jitter() - 1))
        after_last = resident()
        while due > 0:
            await sleep(min(MEMORY_CHECK_S, due))
            due -= MEMORY_CHECK_S
            now = resident()
            if after_last is not None and now is not None and now - after_last > growth_mb:
                metrics.inc("agents_club_gc_early_full_collections_total")
                break
        full_collection(metrics)
