"""When and how long the SDK waits before sending a request again.

Retried: 429 always (the server did not act on the request), and 5xx answers
or broken connections only for requests that are safe to repeat — reads, and
actions, whose ``Idempotency-Key`` makes a repeat return the first answer
instead of acting twice. A ``Retry-After`` header (seconds or an HTTP date),
or a problem's ``retry_after`` member, sets the wait; otherwise the wait grows
exponentially with jitter.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

import httpx

__all__ = ["RetryPolicy", "retry_after_seconds"]


@dataclass(frozen=True)
class RetryPolicy:
    """How many times to retry, and the bounds of the waits in between."""

    max_retries: int = 4
    backoff_base_s: float = 0.25
    backoff_cap_s: float = 8.0
    max_wait_s: float = 60.0
    """A server asking to wait longer than this is not waited for: the error is raised."""

    def should_retry(self, status: int, *, repeatable: bool) -> bool:
        """True when an answer with ``status`` may be retried."""
        return status == 429 or (repeatable and status >= 500)

    def wait_s(self, attempt: int, response: httpx.Response | None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based)."""
        if response is not None:
            asked = retry_after_seconds(response)
            if asked is not None:
                return asked
        backoff = min(self.backoff_cap_s, self.backoff_base_s * 2.0**attempt)
        # Full jitter keeps many clients that failed together from retrying together.
        return random.uniform(backoff / 2, backoff)


def retry_after_seconds(response: httpx.Response) -> float | None:
    """The wait the server asked for, from ``Retry-After`` or the problem's ``retry_after``."""
    header = response.headers.get("Retry-After")
    if header is not None:
        header = header.strip()
        try:
            return max(0.0, float(header))
        except ValueError:
            pass
        try:
            return max(0.0, parsedate_to_datetime(header).timestamp() - time.time())
        except (TypeError, ValueError):
            pass
    if response.headers.get("content-type", "").startswith("application/problem+json"):
        try:
            value = response.json().get("retry_after")
        except ValueError:
            return None
        if isinstance(value, int | float) and not isinstance(value, bool):
            return max(0.0, float(value))
    return None
