"""The worker's cycle-collector policy: small young collections, full ones only on schedule."""

from __future__ import annotations

import asyncio
import gc
import time
import weakref
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.collector import (
    FULL_JITTER,
    MEMORY_CHECK_S,
    WORKER_THRESHOLDS,
    adopt_worker_policy,
    full_collection,
    resident_mb,
    run_full_collections,
)
from gateway.config import Settings
from gateway.metrics import Metrics


class _Node:
    """A container that can sit in a reference cycle (only the collector frees one)."""

    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> weakref.ref[_Node]:
    """A two-node cycle nobody else refers to: garbage only the collector can free."""
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    return weakref.ref(first)


@pytest.fixture
def python_defaults() -> Iterator[None]:
    """Start from Python's own thresholds, and put back whatever was set before (the
    policy is for a process's life, so a test that adopts it must undo it)."""
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _full_collections() -> int:
    return int(gc.get_stats()[2]["collections"])


@pytest.mark.usefixtures("python_defaults")
def test_a_worker_freezes_its_start_up_objects_and_adopts_the_thresholds(
    settings: Settings,
) -> None:
    frozen_before = gc.get_freeze_count()
    with TestClient(create_app(settings)) as client:
        assert client.get("/healthz").status_code == 200
        assert gc.get_threshold() == WORKER_THRESHOLDS
        # Routes, schemas and card tables left the generations.
        assert gc.get_freeze_count() > frozen_before


@pytest.mark.usefixtures("python_defaults")
def test_under_the_policy_young_collections_run_and_full_ones_wait_for_the_schedule() -> None:
    held = [[object() for _ in range(3)] for _ in range(20_000)]  # long-lived, like held requests
    adopt_worker_policy()
    young_before = gc.get_stats()[0]["collections"]
    full_before = _full_collections()
    garbage = []
    for _ in range(200_000):  # far past what Python's thresholds need for a full collection
        garbage.append(_cycle())
        held.append([object()])
    assert gc.get_stats()[0]["collections"] > young_before + 100
    assert _full_collections() == full_before
    # Garbage promoted to the oldest generation waits for the scheduled collection...
    assert any(ref() is not None for ref in garbage)
    done = full_collection(Metrics())
    # ...which frees it all.
    assert all(ref() is None for ref in garbage)
    assert done.collected > 0
    assert _full_collections() == full_before + 1
    del held


def test_a_full_collection_is_counted_in_the_metrics() -> None:
    metrics = Metrics()
    kept = _cycle()
    gc.collect()  # nothing of the cycle is left...
    assert kept() is None
    stray = [_cycle() for _ in range(50)]  # ...but these wait for the next collection
    done = full_collection(metrics)
    assert all(ref() is None for ref in stray)
    pending = metrics.take_pending()
    assert pending["agents_club_gc_full_collections_total"] == 1
    assert pending["agents_club_gc_collected_objects_total"] == done.collected >= 100
    assert pending["agents_club_gc_full_collection_seconds_total"] == pytest.approx(done.seconds)


class _Enough(Exception):
    pass


def _collection_times(
    monkeypatch: pytest.MonkeyPatch, collections: int, *, interval_s: float,
    chances: list[float], growth_mb: float = float("inf"),
    resident: Callable[[float], float | None] = lambda now: 100.0,
) -> tuple[list[float], Metrics]:
    """When :func:`run_full_collections` collected, on a fake clock its sleeps move
    (``resident`` reads the memory at a time), until ``collections`` were done."""
    clock = [0.0]
    times: list[float] = []
    metrics = Metrics()

    def collect(counted: Metrics) -> None:
        times.append(clock[0])
        if len(times) == collections:
            raise _Enough

    async def sleep(seconds: float) -> None:
        assert 0 < seconds <= MEMORY_CHECK_S
        clock[0] += seconds

    monkeypatch.setattr("gateway.collector.full_collection", collect)
    draws = iter(chances)
    with pytest.raises(_Enough):
        asyncio.run(run_full_collections(
            metrics, interval_s, growth_mb=growth_mb, sleep=sleep,
            jitter=lambda: next(draws), resident=lambda: resident(clock[0])))
    return times, metrics


def test_scheduled_collections_wait_the_interval_give_or_take_the_jitter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    times, metrics = _collection_times(monkeypatch, 4, interval_s=100.0,
                                       chances=[0.0, 0.5, 0.999, 0.25])
    waits = [later - earlier for earlier, later in zip([0.0, *times], times, strict=False)]
    assert waits[0] == pytest.approx(100.0 * (1 - FULL_JITTER))
    assert waits[1] == pytest.approx(100.0)
    assert waits[2] == pytest.approx(100.0 * (1 + FULL_JITTER), rel=1e-3)
    assert waits[3] == pytest.approx(100.0 * (1 - FULL_JITTER / 2))
    assert "agents_club_gc_early_full_collections_total" not in metrics.take_pending()


def test_a_collection_comes_early_when_memory_grew_past_the_allowance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Memory climbs 10 MB a second from 100 MB; the allowance is 50 MB over the last
    # collection's reading, and the schedule would wait 1,000 s.
    times, metrics = _collection_times(
        monkeypatch, 3, interval_s=1000.0, chances=[0.5] * 3, growth_mb=50.0,
        resident=lambda now: 100.0 + 10.0 * now)
    # Read at 0 s (100 MB); 150 MB at 5 s is not over the allowance, 200 MB at 10 s is.
    # Each collection's reading is the next one's start: every 10 s from then on.
    assert times == pytest.approx([10.0, 20.0, 30.0])
    assert metrics.take_pending()["agents_club_gc_early_full_collections_total"] == 3


def test_without_a_memory_reading_only_the_schedule_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    times, _ = _collection_times(monkeypatch, 2, interval_s=60.0, chances=[0.5, 0.5],
                                 growth_mb=1.0, resident=lambda now: None)
    assert times == pytest.approx([60.0, 120.0])


def test_the_memory_reading_is_this_process_resident_set() -> None:
    reading = resident_mb()
    if reading is None:
        pytest.skip("no /proc/self/statm on this system")
    assert 10.0 < reading < 10_000.0
    ballast = bytearray(64 * 2**20)  # touched, so it is resident
    for index in range(0, len(ballast), 4096):
        ballast[index] = 1
    grown = resident_mb()
    assert grown is not None and grown - reading > 50.0
    del ballast


def test_a_running_worker_collects_on_its_schedule_and_says_so_in_metrics(
    settings: Settings,
) -> None:
    often = settings.model_copy(update={"gc_full_interval_s": 0.05,
                                        "metrics_flush_interval_s": 0.05})
    with TestClient(create_app(often)) as client:
        give_up = time.monotonic() + 10
        while True:
            text = client.get("/metrics").text
            if "agents_club_gc_full_collections_total" in text or time.monotonic() > give_up:
                break
            time.sleep(0.05)
    assert "agents_club_gc_full_collections_total" in text
    assert "agents_club_gc_full_collection_seconds_total" in text
