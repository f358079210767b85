"""The report: strict JSON, Markdown, one CSV row per seat per table, and the PNG plot."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tournament.house import play_plans
from tournament.plan import TablePlan, plan_tournament
from tournament.report import (
    CSV_COLUMNS,
    DecisionStats,
    plot_png,
    report_json,
    report_markdown,
    results_csv,
)
from tournament.results import TableResult

Played = tuple[list[TablePlan], list[TableResult]]
ENTRANTS = ["agt_alpha", "agt_beta"]
BASELINES = ["bot:greedy", "bot:random"]
INFO = {"id": "trn_1", "name": "Spring | cup", "game": "market-fortune", "format": "duplicate"}


@pytest.fixture(scope="module")
def played() -> Played:
    plans = plan_tournament(format="duplicate", entrants=ENTRANTS, baselines=BASELINES, seats=4,
                            boards=5, rounds=None, seed=3)
    bots = {"agt_alpha": "greedy", "agt_beta": "random"}
    return plans, play_plans(game="market-fortune", mode="fortune", plans=plans, seed=3, bots=bots)


def _report(played: Played, **changes: Any) -> dict[str, Any]:
    plans, results = played
    arguments: dict[str, Any] = {
        "tournament": INFO, "results": results, "entrants": ENTRANTS, "plans": plans, "seats": 4,
        "decisions": {"agt_alpha": DecisionStats(120, 2, 1, 0.8, 2.5)}, "samples": 60}
    return report_json(**(arguments | changes))


def test_the_json_is_strict_and_complete(played: Played) -> None:
    report = _report(played)
    text = json.dumps(report, allow_nan=False)
    assert json.loads(text) == report
    assert report["tables"] == {"planned": 20, "finished": 20, "boards_finished": 5}
    names = {row["entrant"] for row in report["fit"]}
    assert names == {*ENTRANTS, *BASELINES}
    assert {row["entrant"] for row in report["standings"]} == names
    assert {row["entrant"] for row in report["ratings"]} == names
    assert report["decisions"] == {"agt_alpha": {"decisions": 120, "refused": 2, "timeouts": 1,
                                                 "mean_s": 0.8, "p95_s": 2.5}}
    assert report["balance"]["pair_meetings_min"] == 5
    assert report["tournament"] == INFO


def test_too_few_boards_write_null_intervals(played: Played) -> None:
    early = [r for r in played[1] if r.board == 0]
    report = _report(played, results=early)
    json.dumps(report, allow_nan=False)
    assert all(row["low"] is None and row["high"] is None for row in report["fit"])


def test_the_csv_has_a_row_per_seat_and_agrees_with_the_results(
        played: Played) -> None:
    _, results = played
    rows = list(csv.DictReader(io.StringIO(results_csv(results))))
    assert len(rows) == 4 * len(results)
    assert tuple(rows[0]) == CSV_COLUMNS
    tables: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        tables[row["table_id"]].append(row)
    for result in results:
        seats = sorted(tables[result.table_id], key=lambda row: int(row["seat"]))
        assert tuple(row["entrant"] for row in seats) == result.seating
        assert tuple(int(row["placement"]) for row in seats) == result.placements
        assert tuple(float(row["score"]) for row in seats) == result.scores
        assert sum(float(row["points"]) for row in seats) == 6.0


def test_the_report_standings_agree_with_the_csv(played: Played) -> None:
    _, results = played
    points: dict[str, float] = defaultdict(float)
    for row in csv.DictReader(io.StringIO(results_csv(results))):
        points[row["entrant"]] += float(row["points"])
    report = _report(played)
    assert {row["entrant"]: row["points"] for row in report["standings"]} == points


def test_markdown_shows_the_ranking_and_escapes_cells(played: Played) -> None:
    report = json.loads(json.dumps(_report(played)))
    text = report_markdown(report)
    assert text.startswith("# Spring \\| cup\n")
    for section in ("## Ranking", "## Standings", "## Live ratings", "## Cost and latency", "## Schedule"):
        assert section in text
    best = report["fit"][0]
    assert f"| {best['rank']} | {best['entrant']} |" in text
    assert "20 of 20 finished on 5 boards" in text


def test_markdown_of_a_tournament_without_results() -> None:
    report = report_json(tournament={"id": "trn_2"}, results=[], entrants=ENTRANTS, plans=[],
                         seats=4, decisions={})
    assert "No table has finished yet." in report_markdown(report)


def test_gauntlet_balance_counts_entrant_baseline_pairs() -> None:
    plans = plan_tournament(format="gauntlet", entrants=ENTRANTS, baselines=["bot:greedy"],
                            seats=2, boards=3, rounds=None, seed=1)
    report = report_json(tournament={"format": "gauntlet"}, results=[], entrants=ENTRANTS,
                         plans=plans, seats=2, decisions={})
    assert report["balance"]["pair_meetings_min"] == report["balance"]["pair_meetings_max"] == 3
    assert set(report["balance"]["games"]) == set(ENTRANTS)


def test_plot_png_writes_a_png(played: Played, tmp_path: Path) -> None:
    report = json.loads(json.dumps(_report(played)))
    path = tmp_path / "ratings.png"
    plot_png(report, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    early = _report(played, results=[r for r in played[1] if r.board == 0])
    plot_png(early, tmp_path / "early.png")  # unbounded intervals: points only
    assert (tmp_path / "early.png").stat().st_size > 0


def test_head_to_head_pairs_are_complementary(played: Played) -> None:
    report = _report(played)
    rows = {(row["entrant"], row["opponent"]): row for row in report["head_to_head"]}
    assert rows and len(rows) == 4 * 3
    for (a, b), row in rows.items():
        other = rows[(b, a)]
        assert row["tables"] == other["tables"] == 20
        assert row["ahead_share"] + other["ahead_share"] == pytest.approx(1.0)
        assert row["p_stronger"] + other["p_stronger"] == pytest.approx(1.0)
        assert row["low"] <= row["ahead_share"] <= row["high"]
    greedy_over_random = rows[("agt_alpha", "agt_beta")]
    assert greedy_over_random["ahead_share"] > 0.8 and greedy_over_random["p_stronger"] > 0.9


def test_duplicate_scores_cancel_on_every_board(played: Played) -> None:
    scores = _report(played)["duplicate_scores"]
    assert set(scores) == {*ENTRANTS, *BASELINES}
    for board in map(str, range(5)):
        assert sum(by_board[board] for by_board in scores.values()) == pytest.approx(0.0, abs=1e-9)
    assert sum(scores["agt_alpha"].values()) > 0 > sum(scores["agt_beta"].values())


def test_the_markdown_shows_display_names(played: Played) -> None:
    info = INFO | {"names": {"agt_alpha": "Alpha v2", "agt_beta": "Beta"}}
    text = report_markdown(_report(played, tournament=info))
    assert "| Alpha v2 | `agt_alpha` |" in text
    assert "## Head to head" in text and "## Duplicate scores" in text
    ranking_onwards = text.split("## Head to head")[1]
    assert "agt_alpha" not in ranking_onwards and "Alpha v2" in ranking_onwards


def test_the_markdown_lists_each_agents_metadata_and_what_it_follows() -> None:
    markdown = report_markdown({"tournament": {
        "names": {"agt_02": "Ann v2", "bot:greedy": "greedy bot"},
        "agents": {"agt_02": {"model": "gpt-x", "provider": "Acme", "version": "2.0",
                              "link": "https://example.org/ann", "predecessor": "agt_01",
                              "predecessor_name": "Ann"}}}})
    assert "## Entrants" in markdown
    assert "| Ann v2 | gpt-x | Acme | 2.0 | Ann | https://example.org/ann |" in markdown


def test_the_cost_section_shows_every_entrants_line_and_what_nobody_measured(
    played: Played, tmp_path: Path,
) -> None:
    from tournament.report_cost import EntrantCost, Price, money

    report = json.loads(json.dumps(_report(played)))
    first, second, *others = ENTRANTS
    price = Price(input_per_million=0.5, output_per_million=2.0, currency="EUR")
    report["cost"] = {
        first: EntrantCost(kind="llm", model="m", prompt_tokens=2_000_000, completion_tokens=10,
                           money=money(2_000_000, 10, price), currency="EUR", requests=40,
                           failed_requests=2, timed_out_requests=1, refused_requests=1,
                           decisions=40, fallbacks=4).to_json(),
        second: EntrantCost(kind="llm", model="m", failed_requests=4, decisions=1,
                            forfeited_tables=3, status="endpoint dead",
                            error="the endpoint failed 1 decision in a row").to_json(),
        **{entrant: EntrantCost(kind="bot").to_json() for entrant in others},
    }
    report["decisions"][second] = {"decisions": 0, "refused": 0, "timeouts": 0, "mean_s": 0.0,
                                   "p95_s": 0.0}  # it forfeited every table
    text = report_markdown(report)
    section = text[text.index("## Cost and latency"):text.index("## Schedule")]
    line = next(row for row in section.splitlines() if row.startswith(f"| {first} |"))
    assert "| 2000000 | 10 | 1.0000 EUR | 40 + 2 failed (1) | 1 | 4 (10%) | 0 |" in line
    dead = next(row for row in section.splitlines() if row.startswith(f"| {second} (endpoint"))
    assert "| – | – | – | 0 + 4 failed (0) | 0 | 0 (0%) | 3 |" in dead
    assert dead.endswith("| – | – |")  # no decision, so no decision time (not 0 s)
    assert f"- {second}: the endpoint failed 1 decision in a row" in section
    for entrant in others:  # a bot: no model figures, the gateway's figures still shown
        row = next(row for row in section.splitlines() if row.startswith(f"| {entrant} |"))
        assert row.startswith(f"| {entrant} | – | – | – | – | – | – | 0 |")
    plot_png(report, tmp_path / "cost.png")
    assert (tmp_path / "cost.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
