"""The tournament report: one JSON document, and its Markdown, CSV and PNG renderings.

:func:`report_json` gathers everything a reader needs: the tables planned and
finished, the schedule's balance, the standings, the live ratings, the final
fit with its intervals and ranks, and each entrant's decision statistics
(which the gateway measures; here they are only passed through). A runner that
drove the entrants (``agents-club arena run``) adds their model usage as
``cost`` (:mod:`tournament.report_cost`). The JSON is
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

from tournament.fit import MIN_BOARDS_FOR_INTERVALS, PRIOR_PRECISION, bootstrap, estimates
from tournament.plan import TablePlan, schedule_balance
from tournament.ratings import PROVISIONAL_SIGMA, live_ratings
from tournament.report_cost import cost_markdown
from tournament.results import TableResult
from tournament.standings import seat_points, standings

__all__ = [
    "CSV_COLUMNS",
    "DecisionStats",
    "duplicate_scores",
    "head_to_head",
    "plot_png",
    "report_json",
    "report_markdown",
    "results_csv",
]

CSV_COLUMNS: tuple[str, ...] = (
    "table_index", "table_id", "board", "round", "rotation", "seat", "entrant", "placement", "points",
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


def head_to_head(results: Sequence[TableResult], stronger: Mapping[tuple[str, str], float],
                 ) -> list[dict[str, Any]]:
    """For every pair that met: the share of their tables where the first finished ahead.

    A tie counts half. ``low``/``high`` is a 95% interval for the share that
    treats a board's tables as one cluster (they share the deal): the normal
    interval with the cluster-robust variance ``Σ(a_b − p·n_b)² / (Σn_b)² ·
    B/(B−1)`` over the ``B`` boards where the pair met, clipped to [0, 1];
    ``null`` below two boards. ``p_stronger`` is the share of bootstrap
    resamples of the fit in which the first fits stronger (``stronger``, keyed
    by pair; ``null`` when absent).
    """
    ahead: dict[tuple[str, str], dict[int, list[float]]] = {}
    for result in results:
        for first, a in enumerate(result.seating):
            for second, b in enumerate(result.seating):
                if a == b:
                    continue
                place_a, place_b = result.placements[first], result.placements[second]
                won = 1.0 if place_a < place_b else 0.5 if place_a == place_b else 0.0
                ahead.setdefault((a, b), {}).setdefault(result.board, []).append(won)
    rows = []
    for (a, b), boards in sorted(ahead.items()):
        totals = [sum(values) for values in boards.values()]
        counts = [len(values) for values in boards.values()]
        tables = sum(counts)
        share = sum(totals) / tables
        low: float | None = None
        high: float | None = None
        if len(boards) >= 2:
            spread = sum((total - share * count) ** 2 for total, count in zip(totals, counts,
                                                                               strict=True))
            error = math.sqrt(spread / tables**2 * len(boards) / (len(boards) - 1))
            low, high = max(0.0, share - 1.96 * error), min(1.0, share + 1.96 * error)
        rows.append({"entrant": a, "opponent": b, "tables": tables, "ahead_share": share,
                     "low": low, "high": high, "p_stronger": stronger.get((a, b))})
    return rows


def duplicate_scores(results: Sequence[TableResult]) -> dict[str, dict[str, float]]:
    """Per entrant, per board (as a string): its points against the board's, as in bridge.

    Every result of a seat is compared with the mean points of that seat over
    the tables of the same board (the same deal, the same cards): the score is
    the sum over the entrant's tables of the board of (its points − that
    mean). Luck of the deal cancels; a positive score means the entrant did
    better with those cards than the others who held them.
    """
    seat_points_of: dict[tuple[int, int], list[float]] = {}
    for result in results:
        for seat, points in enumerate(seat_points(result.placements)):
            seat_points_of.setdefault((result.board, seat), []).append(points)
    scores: dict[str, dict[str, float]] = {}
    for result in results:
        for seat, points in enumerate(seat_points(result.placements)):
            field = seat_points_of[(result.board, seat)]
            board = scores.setdefault(result.seating[seat], {})
            key = str(result.board)
            board[key] = board.get(key, 0.0) + points - sum(field) / len(field)
    return {entrant: dict(sorted(by_board.items(), key=lambda item: int(item[0])))
            for entrant, by_board in sorted(scores.items())}


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
    fitted = bootstrap(results, samples=samples, seed=seed)
    matrix = fitted.stronger()
    stronger = {(a, b): float(matrix[i, j]) for i, a in enumerate(fitted.entrants)
                for j, b in enumerate(fitted.entrants) if i != j and math.isfinite(matrix[i, j])}
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
            for e in estimates(results, fitted)
        ],
        "head_to_head": head_to_head(results, stronger),
        "duplicate_scores": duplicate_scores(results),
        "decisions": {name: asdict(stats) for name, stats in sorted(decisions.items())},
        "method": {
            "fit": "Plackett-Luce maximum likelihood over full placements (ties share a stage)",
            "prior_precision": PRIOR_PRECISION,
            "intervals": "basic bootstrap 95%, boards resampled with replacement, widened "
                         "for few boards",
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
    """The report for people: ranking, entrants' metadata, head-to-head, duplicate scores,
    standings, ratings, cost and latency (:mod:`tournament.report_cost`), balance.

    Entrants are shown by the display names of the tournament's ``names`` map
    (the ranking also gives each id); an entrant the map lacks by its id.
    """
    info = report.get("tournament", {})
    names: Mapping[str, str] = info.get("names") or {}

    def shown(entrant: str) -> str:
        return str(names.get(entrant, entrant))

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
        lines += _table(["rank", "entrant", "id", "strength", "95% interval", "tables"], [
            [row["rank"], shown(row["entrant"]), f"`{row['entrant']}`", _number(row["strength"]),
             f"{_number(row['low'])} to {_number(row['high'])}", _number(row["games"])]
            for row in fit])
        method = report.get("method", {})
        lines += ["", f"Strength is a Plackett-Luce fit on a log scale (0 = the average entrant; "
                  f"+1 ≈ 2.7 times the odds of finishing ahead). Intervals: basic bootstrap 95%, "
                  f"{method.get('samples', '?')} resamples of the boards. A rank such as "
                  f"\"2–4\" means the intervals cannot order the entrant among those places; "
                  f"an interval shown as – is unbounded (fewer than "
                  f"{method.get('min_boards_for_intervals', '?')} boards)."]
    else:
        lines.append("No table has finished yet.")
    agents: Mapping[str, Mapping[str, Any]] = info.get("agents") or {}
    if agents:
        lines += ["", "## Entrants", ""]
        lines += _table(["entrant", "model", "provider", "version", "follows", "link"], [
            [shown(entrant), *(meta.get(key) or "" for key in ("model", "provider", "version")),
             meta.get("predecessor_name") or meta.get("predecessor") or "", meta.get("link") or ""]
            for entrant, meta in agents.items()])
        lines += ["", "As each agent's owner described it when the tournament was created; "
                  "\"follows\": the earlier version of the same agent."]
    pairs = report.get("head_to_head", [])
    if pairs:
        lines += ["", "## Head to head", ""]
        lines += _table(["entrant", "opponent", "tables", "ahead", "95% interval",
                         "P(stronger)"], [
            [shown(row["entrant"]), shown(row["opponent"]), _number(row["tables"]),
             _number(row["ahead_share"]), f"{_number(row['low'])} to {_number(row['high'])}",
             _number(row["p_stronger"])] for row in pairs])
        lines += ["", "Ahead: the share of the tables both played where the entrant finished "
                  "ahead of the opponent (a tie counts half), with a 95% interval that keeps a "
                  "board's tables together. P(stronger): the share of the fit's bootstrap "
                  "resamples in which the entrant's strength is the higher."]
    duplicate = report.get("duplicate_scores", {})
    if duplicate:
        boards = sorted({board for by_board in duplicate.values() for board in by_board}, key=int)
        lines += ["", "## Duplicate scores", ""]
        lines += _table(["entrant", "total", *(f"board {board}" for board in boards)], [
            [shown(entrant), _number(sum(by_board.values())),
             *(_number(by_board.get(board)) for board in boards)]
            for entrant, by_board in sorted(duplicate.items(),
                                            key=lambda item: -sum(item[1].values()))])
        lines += ["", "Each table's points against the mean points of the same seat on the "
                  "same board (the same cards), summed per board, as in duplicate bridge: the "
                  "luck of the deal cancels."]
    rows = report.get("standings", [])
    if rows:
        seats = max(len(row["by_seat"]) for row in rows)
        lines += ["", "## Standings", ""]
        lines += _table(
            ["entrant", "points", "tables", "wins", "mean place",
             *(f"seat {n + 1}" for n in range(seats))],
            [[shown(row["entrant"]), _number(row["points"], 1), _number(row["games"]),
              _number(row["wins"]), _number(row["mean_placement"]),
              *(_number(value) for value in row["by_seat"])] for row in rows])
        lines += ["", "Points per table: seats minus place (ties share the mean); ranked by "
                  "points per table. Seat columns: mean place in that seat position."]
    ratings = report.get("ratings", [])
    if ratings:
        lines += ["", "## Live ratings (OpenSkill, in finish order; not the ranking)", ""]
        lines += _table(["entrant", "rating (μ−3σ)", "μ", "σ", "tables"], [
            [shown(row["entrant"]) + (" (provisional)" if row["provisional"] else ""),
             _number(row["ordinal"]), _number(row["mu"]), _number(row["sigma"]),
             _number(row["games"])] for row in ratings])
    cost = cost_markdown(report, shown)
    if cost:
        lines += ["", "## Cost and latency", "", *cost]
    balance = report.get("balance", {})
    if balance.get("text"):
        lines += ["", "## Schedule", "", balance["text"]]
    return "\n".join(lines) + "\n"


def results_csv(results: Sequence[TableResult], rotations: Mapping[int, int] | None = None,
                ) -> str:
    """One CSV row per seat per table (header :data:`CSV_COLUMNS`), tables in the given order.

    ``rotations`` maps a plan index to its table's rotation (0 when absent).

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
                result.index, result.table_id, result.board, result.round,
                (rotations or {}).get(result.index, 0), seat, entrant,
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
    costs: Mapping[str, Mapping[str, Any]] = report.get("cost") or {}
    priced = any(cost.get("money") is not None for cost in costs.values())
    counted = priced or any(cost.get("prompt_tokens") is not None for cost in costs.values())
    figure = Figure(figsize=(10.0 if counted else 7.0, 1.2 + 0.4 * max(len(rows), 1)),
                    layout="constrained")
    axes, spent = (figure.subplots(1, 2, sharey=True, width_ratios=[2, 1]) if counted
                   else (figure.add_subplot(), None))
    for position, row in enumerate(reversed(rows)):
        strength = row["strength"]
        if row["low"] is not None and row["high"] is not None:
            axes.errorbar([strength], [position], capsize=4, color="tab:blue",
                          xerr=[[strength - row["low"]], [row["high"] - strength]], fmt="o")
        else:
            axes.plot([strength], [position], "o", color="tab:gray")
    names: Mapping[str, str] = report.get("tournament", {}).get("names") or {}
    axes.set_yticks(range(len(rows)), labels=[
        f"{row['rank']}  {names.get(row['entrant'], row['entrant'])}" for row in reversed(rows)])
    axes.axvline(0.0, color="lightgray", linewidth=1)
    axes.set_xlabel("strength (Plackett-Luce, log scale) with bootstrap 95% interval")
    info = report.get("tournament", {})
    axes.set_title(str(info.get("name") or info.get("id") or "Tournament"))
    if spent is not None:
        _plot_cost(spent, [costs.get(row["entrant"], {}) for row in reversed(rows)], priced)
    figure.savefig(path, format="png", dpi=120)


def _plot_cost(axes: Any, costs: Sequence[Mapping[str, Any]], priced: bool) -> None:
    """Beside the strengths: each entrant's money (or, unpriced, its tokens in and out);
    an entrant without a figure gets no bar."""
    for position, cost in enumerate(costs):
        if priced:
            if cost.get("money") is not None:
                axes.barh([position], [cost["money"]], color="tab:orange")
            continue
        into, out = cost.get("prompt_tokens"), cost.get("completion_tokens")
        if into is not None and out is not None:
            axes.barh([position], [into], color="tab:orange", label="in" if position == 0 else None)
            axes.barh([position], [out], left=[into], color="tab:red")
    currency = next((cost.get("currency") for cost in costs if cost.get("currency")), "")
    axes.set_xlabel(f"cost ({currency})" if priced else "tokens in + out (arena runner)")
    axes.set_title("cost per entrant")
