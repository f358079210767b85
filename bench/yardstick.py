"""A yardstick for the machine's speed: the CPU time of a fixed piece of work, in a fresh process.

On a shared virtual machine the same code costs up to twice the CPU from one
hour to the next, so a capacity step's CPU per request means little without
a gauge of how fast the machine ran just then. The work is like the
gateway's (encode, hash and parse some 4 KB of JSON shaped like an
observation). It runs in a fresh process of its own, so that what the load
client holds after a step (thousands of connections and their buffers) has
no part in the figure, and it can be taken alone on an idle machine too.

    .venv/bin/python -m bench.yardstick     # prints the milliseconds
"""

from __future__ import annotations

import gc
import hashlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["YARDSTICK_OBJECT", "measure_here", "yardstick_ms"]

YARDSTICK_OBJECT = {
    "table_id": "t" * 12, "version": 41, "status": "playing",
    "seats": [{"seat": seat, "name": f"agent-{seat}", "coins": seat * 7, "hand": list(range(9)),
               "market": [{"card": f"c{card}", "price": card % 5} for card in range(12)]}
              for seat in range(4)],
    "legal_actions": [{"id": f"buy:c{card}", "text": f"Buy card {card}"} for card in range(24)],
}
"""Some 4 KB of JSON shaped like an observation: what the yardstick encodes and parses."""


def measure_here(rounds: int = 300, repeats: int = 9) -> float:
    """The CPU milliseconds of ``rounds`` encodings, hashes and parses of
    :data:`YARDSTICK_OBJECT` in this process, the median of ``repeats``."""
    times = []
    collecting = gc.isenabled()
    gc.disable()  # the same work whether or not the caller's collector is on
    try:
        for _ in range(repeats):
            started = time.thread_time()
            for _ in range(rounds):
                text = json.dumps(YARDSTICK_OBJECT, sort_keys=True)
                hashlib.sha256(text.encode()).hexdigest()
                json.loads(text)
            times.append(time.thread_time() - started)
    finally:
        if collecting:
            gc.enable()
    return statistics.median(times) * 1000


def yardstick_ms() -> float:
    """:func:`measure_here` in a fresh Python process (NaN if it could not run)."""
    try:
        done = subprocess.run([sys.executable, "-m", "bench.yardstick"], capture_output=True,
                              text=True, timeout=60, check=True,
                              cwd=Path(__file__).resolve().parent.parent)
        return float(done.stdout.strip())
    except (OSError, subprocess.SubprocessError, ValueError):
        return float("nan")


if __name__ == "__main__":
    print(f"{measure_here():.3f}")
