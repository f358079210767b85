"""What an arena run has done so far, kept next to ``arena.toml`` so a second run resumes.

The state file (``<stem>.state.json``, private to its owner: it holds the LLM
entrants' secrets) records the server, each entrant's agent id (and secret,
for an entrant that passed admission), the tournament id once created, and
the entrants that stopped with the tables they forfeited. It is rewritten
whole, through a temporary file and a rename, after every change, so a crash
leaves either the old state or the new one.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents_club_cli.arena_config import ArenaConfig, ArenaError

__all__ = ["ArenaState", "Stopped"]


@dataclass
class Stopped:
    """An entrant that gave up: ``status`` (``endpoint dead``, ``budget spent``) and why."""

    status: str
    error: str
    forfeited: list[str] = field(default_factory=list)


@dataclass
class ArenaState:
    """The resumable state of one arena (see the module docstring); thread-safe writes."""

    path: Path
    fingerprint: str
    server: str
    agents: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per entrant name: ``agent_id`` and, for an admitted LLM entrant, ``secret``."""
    tournament_id: str | None = None
    stopped: dict[str, Stopped] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def open(cls, config: ArenaConfig, server: str) -> ArenaState:
        """The state of ``config``'s last run, or a fresh one.

        :raises ArenaError: when the state belongs to a different ``arena.toml`` text or
            another server (resuming it would mix two tournaments).
        """
        path = config.state_path
        if not path.exists():
            return cls(path=path, fingerprint=config.fingerprint, server=server)
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved.get("fingerprint") != config.fingerprint or saved.get("server") != server:
            raise ArenaError(
                f"{path} records a run of another {config.path.name} or server "
                f"({saved.get('server')}); to start afresh, move it away")
        return cls(path=path, fingerprint=config.fingerprint, server=server,
                   agents=saved.get("agents", {}), tournament_id=saved.get("tournament_id"),
                   stopped={name: Stopped(**fields)
                            for name, fields in saved.get("stopped", {}).items()})

    def save(self) -> None:
        """Write the state (owner-only), replacing the previous file atomically."""
        with self._lock:
            fields: dict[str, Any] = {
                "fingerprint": self.fingerprint, "server": self.server, "agents": self.agents,
                "tournament_id": self.tournament_id,
                "stopped": {name: vars(stopped) for name, stopped in self.stopped.items()},
            }
            draft = self.path.with_name(self.path.name + ".tmp")
            descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as sink:
                json.dump(fields, sink, indent=2)
            os.replace(draft, self.path)

    def stop(self, name: str, status: str, error: str) -> bool:
        """Record that entrant ``name`` gave up; False when it had already."""
        with self._lock:
            if name in self.stopped:
                return False
            self.stopped[name] = Stopped(status=status, error=error)
        self.save()
        return True

    def forfeited(self, name: str, table_id: str) -> None:
        """Record a table entrant ``name`` gave up."""
        with self._lock:
            tables = self.stopped[name].forfeited
            if table_id not in tables:
                tables.append(table_id)
        self.save()
