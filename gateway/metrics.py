"""Request and action counters shared by every worker, exposed as Prometheus text.

Decision: counters live in Redis, not in each process. With ``--workers N``
(or several hosts) a scrape of ``/metrics`` reaches one worker at random, so
per-process counters would show a different, partial number on every scrape.
Each worker adds to local counters in memory (no Redis round trip on the
request path) and a background task flushes the increments into one Redis hash
every ``metrics_flush_interval_s`` (and at shutdown); ``/metrics`` renders
that hash, so every worker answers with the same cluster-wide totals, at most
one flush interval late. Gauges that only make sense per process
(``agents_club_worker_up``) carry a ``worker`` label instead.

What is counted: every request by method, route template and status
(``agents_club_http_requests_total``; actions are the requests to
``/v1/tables/{table_id}/actions``), its latency histogram, and every
problem+json answer by code (``agents_club_problems_total``: stale versions,
illegal actions, auth failures ...). Other modules count their own events with
:meth:`Metrics.inc` on ``app.state.metrics``, for example
``metrics.inc("agents_club_actions_total", game="market-fortune", result="applied")``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import socket
from collections import defaultdict
from typing import TYPE_CHECKING

from gateway.services.backoff import Backoff

if TYPE_CHECKING:
    from gateway.store.metrics import MetricsStore

__all__ = ["LATENCY_BUCKETS_S", "Metrics", "render_prometheus"]

log = logging.getLogger(__name__)

LATENCY_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

_HELP = {
    "agents_club_http_requests_total": ("counter", "HTTP requests answered, by route and status."),
    "agents_club_http_request_duration_seconds": (
        "histogram",
        "Time to answer an HTTP request (streams: time to the first byte), by route.",
    ),
    "agents_club_actions_total": ("counter", "Table actions, by game and result."),
    "agents_club_problems_total": ("counter", "Problem+json answers, by error code."),
    "agents_club_worker_up": ("gauge", "1 for the worker that answered this scrape."),
}

Sample = tuple[str, tuple[tuple[str, str], ...]]
"""A metric name and its sorted label pairs."""


def _field(name: str, labels: tuple[tuple[str, str], ...]) -> str:
    rendered = ",".join(f'{key}="{_escape(value)}"' for key, value in labels)
    return f"{name}{{{rendered}}}" if rendered else name


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


_NAME_CACHE_SIZE = 1024

_RequestNames = tuple[str, tuple[tuple[float, str], ...], str, str, str]
"""The samples one request adds to: its counter, (bound, bucket) pairs, +Inf, sum and count."""


def _request_sample_names(method: str, route: str, status: int) -> _RequestNames:
    base = (("route", route),)
    bucket = "agents_club_http_request_duration_seconds_bucket"
    return (
        _field("agents_club_http_requests_total",
               tuple(sorted({"method": method, "route": route, "status": str(status)}.items()))),
        tuple((bound, _field(bucket, (*base, ("le", str(bound))))) for bound in LATENCY_BUCKETS_S),
        _field(bucket, (*base, ("le", "+Inf"))),
        _field("agents_club_http_request_duration_seconds_sum", base),
        _field("agents_club_http_request_duration_seconds_count", base),
    )


class Metrics:
    """This worker's pending increments, flushed to the shared totals in Redis."""

    def __init__(self) -> None:
        self.worker = f"{socket.gethostname()}:{os.getpid()}"
        self._pending: defaultdict[str, float] = defaultdict(float)
        self._request_names: dict[tuple[str, str, int], _RequestNames] = {}

    def inc(self, name: str, value: float = 1.0, **labels: str) -> None:
        """Add ``value`` to the counter ``name`` with ``labels`` (sent at the next flush)."""
        self._pending[_field(name, tuple(sorted(labels.items())))] += value

    def observe_request(self, *, method: str, route: str, status: int, seconds: float) -> None:
        """Count one answered request and its latency in the histogram."""
        # Building the label strings cost more than the counting itself; a route has
        # the same sample names on every request, so they are built once per key.
        key = (method, route, status)
        names = self._request_names.get(key)
        if names is None:
            if len(self._request_names) >= _NAME_CACHE_SIZE:
                self._request_names.clear()  # odd methods (fuzzers) must not grow it for ever
            names = self._request_names[key] = _request_sample_names(method, route, status)
            # Every bucket of a new series is sent at once, hit or not: a bucket that
            # appeared only later would break rate() and histogram_quantile() over it.
            for _, field in names[1]:
                self._pending[field] += 0
        counter, buckets, infinity, total, count = names
        pending = self._pending
        pending[counter] += 1
        for bound, field in buckets:
            if seconds <= bound:
                pending[field] += 1
        pending[infinity] += 1
        pending[total] += seconds
        pending[count] += 1

    def take_pending(self) -> dict[str, float]:
        """The increments since the last call (and forget them)."""
        pending, self._pending = dict(self._pending), defaultdict(float)
        return pending

    def restore(self, pending: dict[str, float]) -> None:
        """Put back increments whose flush failed, so they go with the next one."""
        for field, value in pending.items():
            self._pending[field] += value

    async def flush(self, store: MetricsStore) -> None:
        """Add the pending increments to the shared totals; keep them on a Redis error."""
        pending = self.take_pending()
        if not pending:
            return
        try:
            await store.add(pending)
        except Exception:
            self.restore(pending)
            raise

    async def run_flusher(self, store: MetricsStore, interval_s: float) -> None:
        """Flush every ``interval_s`` until cancelled; flushes once more on the way out.
        While flushes fail (Redis down) the counts are kept and the pause grows."""
        backoff = Backoff("metrics flush", log, interval_s=interval_s)
        try:
            while True:
                await asyncio.sleep(backoff.pause)
                try:
                    await self.flush(store)
                except Exception as error:  # Redis down: keep counting, retry later
                    backoff.failed(error)
                else:
                    backoff.succeeded()
        finally:
            with contextlib.suppress(Exception):
                await asyncio.shield(self.flush(store))


def _sample_order(item: tuple[str, float]) -> tuple[str, float]:
    """Sort samples by name and labels, histogram buckets by their numeric ``le``."""
    field = item[0]
    match = re.search(r',?le="([^"]+)"', field)
    if match is None:
        return field, 0.0
    bound = float("inf") if match.group(1) == "+Inf" else float(match.group(1))
    return field[: match.start()] + field[match.end():], bound


def render_prometheus(totals: dict[str, float], *, worker: str) -> str:
    """Prometheus text exposition (version 0.0.4) of ``totals`` plus this worker's gauge."""
    families: dict[str, list[str]] = {}
    for field, value in sorted(totals.items(), key=_sample_order):
        sample_name = field.split("{", 1)[0]
        family = sample_name
        for suffix in ("_bucket", "_sum", "_count"):
            if sample_name.endswith(suffix) and sample_name[: -len(suffix)] in _HELP:
                family = sample_name[: -len(suffix)]
        number = int(value) if float(value).is_integer() else value
        families.setdefault(family, []).append(f"{field} {number}")
    families.setdefault("agents_club_worker_up", []).append(
        _field("agents_club_worker_up", (("worker", worker),)) + " 1"
    )
    lines: list[str] = []
    for family in sorted(families):
        kind, help_text = _HELP.get(family, ("counter", "Counted by the gateway."))
        lines.append(f"# HELP {family} {help_text}")
        lines.append(f"# TYPE {family} {kind}")
        lines.extend(families[family])
    return "\n".join(lines) + "\n"
