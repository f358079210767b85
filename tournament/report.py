"""The tournament report: one JSON document, and its Markdown, CSV and PNG renderings.

:func:`report_json` gathers everything a reader needs: the tables planned and
finished, the schedule's balance, the standings, the live ratings, the final
fit with its intervals and ranks, and each entrant's decision statistics
(which the gateway measures; here they are only passed through). The JSON is
strict: numbers that are not finite (an unbounded interval, a seat position
never played) are written as ``null``.

:func:`report_markdown` renders a report (from :func:`report_json`, possibly
read back from JSON) for people; :func:`results_csv` writes one row per seat
per table; :func:`plot_png` draws the strengths with their intervals and needs
the optional ``report`` extra (matplotlib), imported only when called.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tournament.fit import MIN_BOARDS_FOR_INTERVALS, PRIOR_PRECISION, fit_report
from tournament.plan import TablePlan, schedule_balance
from tournament.ratings import PROVISIONAL_SIGMA, live_ratings
from tournament.results import TableResult
from tournament.standings import seat_points, standings

__all__ = [
    "CSV_COLUMNS",
    "DecisionStats",
    "plot_png",
    "report_json",
    "report_markdown",
    "results_csv",
]

CSV_COLUMNS: tuple[str, ...] = (
    "table_index", "table_id", "board", "round", "seat", "entrant", "placement", "points",
    "score", "reason", "finished_at",
)
"""The header of :func:`results_csv`."""


@dataclass(frozen=True)
class DecisionStats:
    """One entrant's decisions over the tournament, as the gateway measured them.

    ``refused`` counts refused or illegal actions sent; ``timeouts`` the
    default actions the clock applied; ``mean_s``/``p95_s`` the decision time
    in seconds.
    """

    decisions: int
    refused: int
    timeouts: int
    mean_s: float
    p95_s: float


def _finite(value: float) -> float | None:
    """``value``, or ``None`` when it is not finite (strict JSON has no NaN or infinity)."""
    return value if math.isfinite(value) else None


def report_json(
    *,
    tournament: Mapping[str, Any],
    results: Sequence[TableResult],
    entrants: Sequence[str],
    plans: Sequence[TablePlan],
    seats: int,
    decisions: Mapping[str, DecisionStats],
    samples: int = 200,
    seed: int = 0,
) -> dict[str, Any]:
    """The whole report as a JSON-ready dict (see the module docstring).

    ``tournament`` is copied in as given (id, name, game, format, ... as the
    gateway describes it); its ``format`` key, when ``"gauntlet"``, makes the
    balance count entrant-baseline pairs only (the players of ``plans`` that
    are not ``entrants`` are then the baselines). ``results`` must be in
    finish order (live ratings depend on it). ``samples`` and ``seed`` (an
    addition to the spec's signature, with defaults) drive the bootstrap.
    """
    baselines = ([player for player in dict.fromkeys(p for plan in plans for p in plan.seating)
                  if player not in set(entrants)]
                 if tournament.get("format") == "gauntlet" else [])
    balance = schedule_balance(plans, seats, baselines=baselines)
    ratings = sorted(live_ratings(results).values(), key=lambda r: (-r.ordinal, r.entrant))
    boards = len({result.board for result in results})
    return {
        "tournament": dict(tournament),
        "tables": {"planned": len(plans), "finished": len(results), "boards_finished": boards},
        "balance": {
            "pair_meetings_min": balance.pair_meetings_min,
            "pair_meetings_max": balance.pair_meetings_max,
            "seat_counts": {name: list(counts) for name, counts in balance.seat_counts.items()},
            "games": dict(balance.games),
            "text": balance.text(),
        },
        "standings": [
            {"entrant": row.entrant, "points": row.points, "games": row.games, "wins": row.wins,
             "mean_placement": _finite(row.mean_placement),
             "by_seat": [_finite(value) for value in row.by_seat]}
            for row in standings(results, entrants)
        ],
        "ratings": [
            {"entrant": r.entrant, "mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal,
             "games": r.games, "provisional": r.provisional}
            for r in ratings
        ],
        "fit": [
            {"entrant": e.entrant, "strength": e.strength, "low": _finite(e.low),
             "high": _finite(e.high), "rank": e.rank, "games": e.games}
            for e in fit_report(results, samples=samples, seed=seed)
        ],
        "decisions": {name: asdict(stats) for name, stats in sorted(decisions.items())},
        "method": {
            "fit": "Plackett-Luce maximum likelihood over full placements (ties share a stage)",
            "prior_precision": PRIOR_PRECISION,
            "intervals": "bootstrap 95%, boards resampled with replacement",
            "samples": samples,
            "seed": seed,
            "min_boards_for_intervals": MIN_BOARDS_FOR_INTERVALS,
            "ratings": "OpenSkill Plackett-Luce, ordinal = mu - 3 sigma",
            "provisional_sigma": PROVISIONAL_SIGMA,
        },
    }


def _number(value: Any, digits: int = 2) -> str:
    """A report number for a Markdown cell; ``–`` for a missing one."""
    if value is None:
        return "–"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _cell(value: Any) -> str:
    """A value made safe for a Markdown table cell (no pipes, no line breaks)."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Markdown table lines."""
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows)]


def report_markdown(report: Mapping[str, Any]) -> str:
    """The report for people: the ranking with intervals, standings, ratings, decisions, balance."""
    info = report.get("tournament", {})
    title = info.get("name") or info.get("id") or "Tournament"
    lines = [f"# {_cell(title)}", ""]
    facts = [f"{key}: {_cell(info[key])}" for key in ("id", "game", "mode", "format", "status")
             if info.get(key) is not None]
    tables = report.get("tables", {})
    facts.append(f"tables: {tables.get('finished', 0)} of {tables.get('planned', 0)} finished "
                 f"on {tables.get('boards_finished', 0)} boards")
    lines += [" · ".join(facts), "", "## Ranking", ""]
    fit = report.get("fit", [])
    if fit:
        lines += _table(["rank", "entrant", "strength", "95% interval", "tables"], [
            [row["rank"], row["entrant"], _number(row["strength"]),
             f"{_number(row['low'])} to {_number(row['high'])}", _number(row["games"])]
            for row in fit])
        method = report.get("method", {})
        lines += ["", f"Strength is a Plackett-Luce fit on a log scale (0 = the average entrant; "
                  f"+1 ≈ 2.7 times the odds of finishing ahead). Intervals: bootstrap 95%, "
                  f"{method.get('samples', '?')} resamples of the boards. A rank such as "
                  f"\"2–4\" means the intervals cannot order the entrant among those places; "
                  f"an interval shown as – is unbounded (fewer than "
                  f"{method.get('min_boards_for_intervals', '?')} boards)."]
    else:
        lines.append("No table has finished yet.")
    rows = report.get("standings", [])
    if rows:
        seats = max(len(row["by_seat"]) for row in rows)
        lines += ["", "## Standings", ""]
        lines += _table(
            ["entrant", "points", "tables", "wins", "mean place",
             *(f"seat {n + 1}" for n in range(seats))],
            [[row["entrant"], _number(row["points"], 1), _number(row["games"]),
              _number(row["wins"]), _number(row["mean_placement"]),
              *(_number(value) for value in row["by_seat"])] for row in rows])
        lines += ["", "Points per table: seats minus place (ties share the mean); ranked by "
                  "points per table. Seat columns: mean place in that seat position."]
    ratings = report.get("ratings", [])
    if ratings:
        lines += ["", "## Live ratings", ""]
        lines += _table(["entrant", "rating (μ−3σ)", "μ", "σ", "tables"], [
            [row["entrant"] + (" (provisional)" if row["provisional"] else ""),
             _number(row["ordinal"]), _number(row["mu"]), _number(row["sigma"]),
             _number(row["games"])] for row in ratings])
    decisions = report.get("decisions", {})
    if decisions:
        lines += ["", "## Decisions", ""]
        lines += _table(["entrant", "decisions", "refused or illegal", "clock timeouts",
                         "mean s", "p95 s"], [
            [name, _number(stats["decisions"]), _number(stats["refused"]),
             _number(stats["timeouts"]), _number(stats["mean_s"], 3), _number(stats["p95_s"], 3)]
            for name, stats in decisions.items()])
    balance = report.get("balance", {})
    if balance.get("text"):
        lines += ["", "## Schedule", "", balance["text"]]
    return "\n".join(lines) + "\n"


def results_csv(results: Sequence[TableResult]) -> str:
    """One CSV row per seat per table (header :data:`CSV_COLUMNS`), tables in the given order.

    ``points`` are the standings' points for the seat; ``score`` is empty when
    the game gave no scores.
    """
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for result in results:
        points = seat_points(result.placements)
        for seat, entrant in enumerate(result.seating):
            writer.writerow([
                result.index, result.table_id, result.board, result.round, seat, entrant,
                result.placements[seat], points[seat],
                result.scores[seat] if result.scores else "", result.reason, result.finished_at,
            ])
    return out.getvalue()


def plot_png(report: Mapping[str, Any], path: Path) -> None:
    """Draw the fitted strengths with their 95% intervals to a PNG file at ``path``.

    Entrants run top (strongest) to bottom; an unbounded interval is drawn as
    the point alone.

    :raises ImportError: if matplotlib (the ``report`` extra) is not installed.
    """
    try:
        from matplotlib.figure import Figure
    except ModuleNotFoundError as missing:
        raise ImportError("the PNG plot needs matplotlib: install agents-club[report]") from missing
    rows = list(report.get("fit", []))
    figure = Figure(figsize=(7.0, 1.2 + 0.4 * max(len(rows), 1)), layout="constrained")
    axes = figure.add_subplot()
    for position, row in enumerate(reversed(rows)):
        strength = row["strength"]
        if row["low"] is not None and row["high"] is not None:
            axes.errorbar([strength], [position], capsize=4, color="tab:blue",
                          xerr=[[strength - row["low"]], [row["high"] - strength]], fmt="o")
        else:
            axes.plot([strength], [position], "o", color="tab:gray")
    axes.set_yticks(range(len(rows)),
                    labels=[f"{row['rank']}  {row['entrant']}" for row in reversed(rows)])
    axes.axvline(0.0, color="lightgray", linewidth=1)
    axes.set_xlabel("strength (Plackett-Luce, log scale) with bootstrap 95% interval")
    info = report.get("tournament", {})
    axes.set_title(str(info.get("name") or info.get("id") or "Tournament"))
    figure.savefig(path, format="png", dpi=120)
