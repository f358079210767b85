"""The transcript of one game as a JSON Lines file: one record per line.

Every prompt, reply, choice, retry and fallback is appended as it happens and
flushed at once, so a crash loses nothing and ``tail -f`` follows a game live.
Records hold what the agent saw and said; credentials never enter them.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

__all__ = ["Transcript"]


class Transcript:
    """Appends records ``{"ts", "kind", ...}`` to ``path`` (parent folders are created)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)

    def record(self, kind: str, **fields: Any) -> None:
        """Append one record of ``kind`` (``prompt``, ``reply``, ``choice``, ``fallback``...)."""
        entry = {"ts": round(time.time(), 3), "kind": kind, **fields}
        with self.path.open("a", encoding="utf-8") as sink:
            sink.write(json.dumps(entry, ensure_ascii=False, default=str) + "\n")

    def records(self) -> list[dict[str, Any]]:
        """Every record written so far, in order."""
        if not self.path.exists():
            return []
        with self.path.open(encoding="utf-8") as source:
            return [json.loads(line) for line in source if line.strip()]
