"""Tournaments: create, show, cancel, results and exports, the scheduler, assignments, the ladder.

The plan, standings, ratings and report come from the pure :mod:`tournament`
package; this package keeps them in Redis and plays them on ordinary tables.

Secrets. Each tournament has a random secret kept only in its private record.
A board's seed is HMAC-SHA256(secret, "board:<n>") cut to 63 bits, and a
table's id is HMAC-SHA256(secret, "table:<index>") cut to 16 hex digits, like
any table id: neither tells an entrant which of its tables share a deal. A
board's seed and its tables' replays are published once every table of that
board is over (before that, ``replay/embargoed``).
"""

from __future__ import annotations

from gateway.services.tournaments.assignments import assignments, stream_assignments
from gateway.services.tournaments.bundle import bundle
from gateway.services.tournaments.exports import (
    replays_jsonl,
    report,
    results,
    results_csv_text,
    shown_to_anyone,
)
from gateway.services.tournaments.hooks import TournamentHooks
from gateway.services.tournaments.ladder import leaderboard
from gateway.services.tournaments.resource import (
    cancel_tournament,
    create_tournament,
    get_tournament,
    list_tournaments,
)

__all__ = [
    "TournamentHooks",
    "assignments",
    "bundle",
    "cancel_tournament",
    "create_tournament",
    "get_tournament",
    "leaderboard",
    "list_tournaments",
    "replays_jsonl",
    "report",
    "results",
    "results_csv_text",
    "shown_to_anyone",
    "stream_assignments",
]
