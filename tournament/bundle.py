"""One reproducible bundle of a finished tournament, and its independent check.

A bundle is one JSON document (written gzipped by ``agents-club tournament
export``) holding everything a re-check needs:

* ``tournament``: the tournament resource (configuration, entrants with
  their display names, the plan's tables with seating);
* ``results``: every table's result in plan order, with its ``rotation``;
* ``board_seeds``: the seed of every board;
* ``replays``: every table's replay (game, configuration, seed, action log);
* ``report``: the final report, whose ``method`` names the fit's bootstrap
  ``samples`` and random ``seed``;
* ``software``: the gateway's and the exporting client's versions.

:func:`verify_bundle` trusts none of it: it replays every table with the
engine from its seed and action log (on a rated tournament, an agent whose
every move was its turn clock's loses on time, as the gateway rules), checks the replay's seed is its board's,
recomputes every placement, the standings and the fit (with the report's
samples and seed), and lists every disagreement. An empty list means the
bundle reproduces.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from engine import core
from engine.registry import get_game
from tournament.fit import fit_report
from tournament.results import TableResult, never_moved, placements
from tournament.standings import standings

__all__ = ["BUNDLE_FORMAT", "FORFEIT", "replayed_placements", "verify_bundle"]

BUNDLE_FORMAT = "agents-club-tournament-bundle/1"
"""The ``format`` field of a bundle this module reads."""

_TOLERANCE = 1e-6
"""How far a recomputed strength or interval end may differ (summation order only)."""


FORFEIT = "forfeit"
"""The outcome reason of a table a seat gave up during play (the gateway's ``FORFEIT``)."""


def replayed_placements(replay: Mapping[str, Any], agent_seats: Sequence[int] = ()
                        ) -> tuple[int, ...]:
    """The placements a replay's seed and action log lead to, played again by the engine.

    ``agent_seats``: the seats of agents at a rated table; those whose every move in
    the log was the turn clock's lose on time (:func:`tournament.results.never_moved`).

    A forfeited table (its recorded outcome's reason ``forfeit``) ends before its
    game does: every logged action must still replay, the game must not have
    ended, and the seat that gave up places last, the others sharing first (nobody
    loses on time there).

    :raises ValueError: if the replayed game does not end (and was not forfeited),
        or a forfeited game had ended before it was given up.
    """
    game = get_game(replay["game"])
    config = game.config_model.model_validate(replay["config"])
    state = core.replay(game, config, replay["seed"],
                        [(entry["seat"], entry["action"]) for entry in replay["log"]])
    outcome = game.outcome(state)
    recorded = replay.get("outcome") or {}
    if recorded.get("reason") == FORFEIT:
        if outcome is not None:
            raise ValueError(f"table {replay.get('table_id')}: forfeited after its game ended")
        return placements([], [], config.seats, [int(seat) for seat in recorded["eliminated"]])
    if outcome is None:
        raise ValueError(f"table {replay.get('table_id')}: the replayed game does not end")
    return placements(outcome.winners, outcome.scores, config.seats, outcome.eliminated,
                      lost_on_time=never_moved(replay["log"], agent_seats))


def _close(first: float | None, second: float | None) -> bool:
    """Two report numbers agree (``None`` stands for an unbounded end)."""
    if first is None or second is None:
        return first is None and second is None
    return math.isclose(first, second, abs_tol=_TOLERANCE)


def verify_bundle(bundle: Mapping[str, Any]) -> list[str]:
    """Every way ``bundle`` fails to reproduce (see the module docstring); empty when it does."""
    problems: list[str] = []
    if bundle.get("format") != BUNDLE_FORMAT:
        return [f"not a tournament bundle (format {bundle.get('format')!r})"]
    results = [TableResult.from_json(raw) for raw in bundle["results"]]
    seeds = {int(board): int(seed) for board, seed in bundle["board_seeds"].items()}
    replays = {replay["table_id"]: replay for replay in bundle["replays"]}
    rated = bool(bundle["tournament"].get("rated"))
    for result in results:
        replay = replays.get(result.table_id)
        if replay is None:
            problems.append(f"table {result.table_id}: no replay in the bundle")
            continue
        if seeds.get(result.board) != replay["seed"]:
            problems.append(f"table {result.table_id}: its replay's seed is not board "
                            f"{result.board}'s")
        try:
            played = replayed_placements(replay, [
                seat for seat, entrant in enumerate(result.seating)
                if rated and not entrant.startswith("bot:")])
        except (ValueError, KeyError) as failed:
            problems.append(f"table {result.table_id}: cannot be replayed ({failed})")
            continue
        if played != result.placements:
            problems.append(f"table {result.table_id}: the replay ends {played}, the result "
                            f"says {result.placements}")
    report = bundle["report"]
    info = bundle["tournament"]
    again = {line.entrant: line for line in standings(
        results, [*info.get("entrants", []), *info.get("baselines", [])])}
    for row in report["standings"]:
        line = again.pop(row["entrant"], None)
        if line is None or (row["games"], row["wins"]) != (line.games, line.wins) \
                or not _close(row["points"], line.points):
            problems.append(f"standings: {row['entrant']} reported {row['points']} points, "
                            f"{row['wins']} wins in {row['games']} tables; recomputed "
                            f"{line if line is None else (line.points, line.wins, line.games)}")
    problems += [f"standings: {entrant} is missing" for entrant in again]
    method = report["method"]
    in_finish_order = sorted(results, key=lambda result: (result.finished_at, result.index))
    fitted = {line.entrant: line for line in fit_report(in_finish_order,
                                                        samples=int(method["samples"]),
                                                        seed=int(method["seed"]))}
    for row in report["fit"]:
        estimate = fitted.get(row["entrant"])
        if estimate is None:
            problems.append(f"fit: {row['entrant']} is not among the recomputed entrants")
            continue
        low = estimate.low if math.isfinite(estimate.low) else None
        high = estimate.high if math.isfinite(estimate.high) else None
        if not (_close(row["strength"], estimate.strength) and _close(row["low"], low)
                and _close(row["high"], high) and row["rank"] == estimate.rank):
            problems.append(f"fit: {row['entrant']} reported {row['strength']} "
                            f"[{row['low']}, {row['high']}] rank {row['rank']}, recomputed "
                            f"{estimate.strength} [{low}, {high}] rank {estimate.rank}")
    if len(report["fit"]) != len(fitted):
        problems.append("fit: a different number of entrants")
    return problems
