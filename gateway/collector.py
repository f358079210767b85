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
rarely reach 20 ms. An object is still scanned once in each generation. Full
collections then run on a schedule, :func:`run_full_collections`, every
``AGENTS_CLUB_GC_FULL_INTERVAL_S`` with some jitter so two workers do not
pause together. Only cyclic garbage that outlived the middle generation
waits for one, so the price is some memory between collections
(``agents_club_gc_collected_objects_total`` says how much garbage each
found), and a scheduled collection still pauses the worker as long as an
automatic one did, but once every few minutes instead of every few seconds.
Everything the worker built at its start is frozen out of the generations
first (``gc.freeze``), so no collection scans it again. """

from __future__ import annotations

import asyncio
import gc
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from gateway.metrics import Metrics

__all__ = [
    "FULL_JITTER",
    "NO_AUTOMATIC_FULL",
    "WORKER_THRESHOLDS",
    "FullCollection",
    "adopt_worker_policy",
    "full_collection",
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


async def run_full_collections(
    metrics: Metrics,
    interval_s: float,
    *,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    jitter: Callable[[], float] = random.random,
) -> None:
    """Run :func:`full_collection` for ever, about every ``interval_s``; ``sleep`` and
    ``jitter`` (a number in [0, 1)) are the waiting and the chance, for tests."""
    while True:
        await sleep(interval_s * (1 + FULL_JITTER * (2 * jitter() - 1)))
        full_collection(metrics)
