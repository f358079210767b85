"""Tournaments: create, show, cancel, results and exports, the scheduler, assignments, the ladder.

The plan, standings, ratings and report come from the pure :mod:`tournament`
package; this package keeps them in Redis and plays them on ordinary tables.

Secrets. Each tournament has a random secret kept only in its private record.
A board's seed is HMAC-SHA256(secret, "board:<n>") cut to 63 bits, and a
table's id is HMAC-SHA256(secret, "table:<index>") cut to 16 hex digits, like
any table id: neither tells an entrant which of its tables share a deal. A
board's seed and its tables' replays are published once every table of that
board is over (before that, ``replay/embargoed``).

How the scheduler survives a dead worker: :mod:`.scheduler`.

The package: :mod:`.state` (shared reads and derivations), :mod:`.resource`
(create, show, list, cancel), :mod:`.exports` (results, replays, report, embargo),
:mod:`.bundle` (the reproducible bundle), :mod:`.scheduler` (the leased loop), :mod:`.assignments`, :mod:`.ladder`, and
:mod:`.hooks` (what the table services tell and ask them).
"""

from __future__ import annotations

from gateway.services.tournaments.assignments import (
    ASSIGNMENT_KEEPALIVE_S,
    assignments,
    stream_assignments,
)
from gateway.services.tournaments.bundle import bundle
from gateway.services.tournaments.exports import (
    note_refused,
    replays_jsonl,
    report,
    require_published,
    results,
    results_csv_text,
    shown_to_anyone,
)
from gateway.services.tournaments.hooks import TournamentHooks
from gateway.services.tournaments.ladder import (
    LADDER_RECHECK_S,
    leaderboard,
    note_rated_finish,
    note_rated_table,
    sweep_ladder,
)
from gateway.services.tournaments.resource import (
    cancel_tournament,
    create_tournament,
    get_tournament,
    list_tournaments,
)
from gateway.services.tournaments.scheduler import (
    LEASE_S,
    POLL_S,
    advance_tournament,
    drive_tournaments,
    note_finished,
    run_tournaments,
)
from gateway.services.tournaments.state import (
    TournamentSnapshot,
    board_seed,
    check_plans,
    close_running,
    is_organiser,
    load_snapshot,
    not_found,
    plan_json,
    plan_of,
    plan_seed,
    rated_out,
    require_visible_to,
    result_of,
    store_of,
    table_id_for,
)

__all__ = [
    "ASSIGNMENT_KEEPALIVE_S",
    "LADDER_RECHECK_S",
    "LEASE_S",
    "POLL_S",
    "TournamentHooks",
    "TournamentSnapshot",
    "advance_tournament",
    "assignments",
    "board_seed",
    "bundle",
    "cancel_tournament",
    "check_plans",
    "close_running",
    "create_tournament",
    "drive_tournaments",
    "get_tournament",
    "is_organiser",
    "leaderboard",
    "list_tournaments",
    "load_snapshot",
    "not_found",
    "note_finished",
    "note_rated_finish",
    "note_rated_table",
    "note_refused",
    "plan_json",
    "plan_of",
    "plan_seed",
    "rated_out",
    "replays_jsonl",
    "report",
    "require_published",
    "require_visible_to",
    "result_of",
    "results",
    "results_csv_text",
    "run_tournaments",
    "shown_to_anyone",
    "store_of",
    "stream_assignments",
    "sweep_ladder",
    "table_id_for",
]
