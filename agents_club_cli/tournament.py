"""Run a tournament from the command line: create it, watch it, read its report.

    agents-club tournament create --game market-fortune --mode family --seats 3 \\
        --entrant agt_3f9a0c1d2e4b5a6978c0 --entrant agt_77aa10bc3d2e4f5a6b7c \\
        --entrant bot:greedy --format duplicate --boards 8 --watch
    agents-club tournament status tn_0a1b2c3d4e5f6a7b
    agents-club tournament report tn_0a1b2c3d4e5f6a7b --out reports/
    agents-club tournament export tn_0a1b2c3d4e5f6a7b --out bundles/
    agents-club tournament verify bundles/tn_0a1b2c3d4e5f6a7b.bundle.json.gz

``create`` needs the organiser (``--organiser-key``, ``AGENTS_CLUB_ORGANISER_KEY``
or a local server's key file; or an organiser ``--token``). ``status`` shows a
live progress bar (tables done, running, waiting) and the standings until the
tournament ends (``--once``: one look). ``report`` writes the final report as
Markdown and a PNG plot of the fitted strengths with their 95% intervals (the
plot needs matplotlib: ``pip install agents-club[report]``). ``export`` writes
the finished tournament's reproducible bundle (:mod:`tournament.bundle`) as
gzipped JSON; ``verify`` replays every table of a bundle with the engine and
recomputes standings and fit, exiting 0 only when everything matches (it needs
no server).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from agents import AgentsClubError, Client, TournamentOut
from agents_club_cli.agent import resolve_entrant
from agents_club_cli.failures import failure_lines
from agents_club_cli.organiser_key import KEY_ENV, default_data_dir, find_organiser_key
from agents_club_cli.play import DEFAULT_SERVER, parse_options
from tournament.plan import DUPLICATE_FORMS, FORMATS

__all__ = ["add_arguments", "progress_line", "run", "verify"]

BAR_WIDTH = 30


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare ``create``, ``status`` and ``report`` on ``parser``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    actions = parser.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="start a tournament (organiser)")
    status = actions.add_parser("status", help="progress bar and standings until the end")
    report = actions.add_parser("report", help="the final report as Markdown and a PNG plot")
    export = actions.add_parser("export", help="the finished tournament's reproducible bundle")
    verify = actions.add_parser("verify", help="replay a bundle's tables, recompute its report")
    verify.add_argument("bundle", type=Path, help="a file written by export")
    for sub in (create, status, report, export):
        sub.add_argument("--server", default=os.environ.get("AGENTS_CLUB_SERVER", DEFAULT_SERVER),
                         help=f"gateway base URL (default $AGENTS_CLUB_SERVER or {DEFAULT_SERVER})")
        sub.add_argument("--token", default=os.environ.get("AGENTS_CLUB_TOKEN"),
                         help="bearer token (default $AGENTS_CLUB_TOKEN)")
        sub.add_argument("--organiser-key", default=os.environ.get(KEY_ENV),
                         help=f"the server's organiser key (default ${KEY_ENV} or the key file)")
        sub.add_argument("--data-dir", type=Path, default=default_data_dir(),
                         help="where a local server keeps its organiser-key file")
    create.add_argument("--name", default="tournament", help="shown in listings and the report")
    create.add_argument("--game", default="market-fortune")
    create.add_argument("--mode", default="family")
    create.add_argument("--seats", type=int, required=True, help="seats per table")
    create.add_argument("--entrant", action="append", default=[], required=True,
                        help="agent id, bot:NAME, or the name of an agent saved by "
                             "`agents-club agent register` (repeat)")
    create.add_argument("--baseline", action="append", default=[], help="bot:NAME (repeat)")
    create.add_argument("--format", default="duplicate",
                        choices=FORMATS)
    create.add_argument("--duplicate-form", choices=DUPLICATE_FORMS, default=None,
                        help="duplicate/gauntlet: disjoint groups (nobody plays a board twice; "
                             "the default when the field fills two tables) or every rotation "
                             "by one group")
    create.add_argument("--boards", type=int, default=4, help="boards (deals), one per round")
    create.add_argument("--variant", action="append", default=[], help="rule variant (repeat)")
    create.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="game option, the value read as JSON (repeat)")
    create.add_argument("--turn-timeout", type=float, default=None, help="seconds per decision")
    create.add_argument("--max-concurrent", type=int, default=None, help="tables played at once")
    create.add_argument("--rated", action="store_true", help="feed the game's leaderboard")
    create.add_argument("--private", action="store_true", help="not listed")
    create.add_argument("--watch", action="store_true", help="then show the progress until the end")
    status.add_argument("tournament_id")
    status.add_argument("--once", action="store_true", help="print the state once and return")
    status.add_argument("--interval", type=float, default=1.0, help="seconds between looks")
    report.add_argument("tournament_id")
    report.add_argument("--out", type=Path, default=Path("."),
                        help="folder for <id>.md, <id>.png and <id>.json (default .)")
    report.add_argument("--no-plot", action="store_true", help="skip the PNG")
    export.add_argument("tournament_id")
    export.add_argument("--out", type=Path, default=Path("."),
                        help="folder for <id>.bundle.json.gz (default .)")


def progress_line(tournament: TournamentOut) -> str:
    """``[#########---------------] 12/40 done, 3 running, 25 waiting (running)``."""
    progress = tournament.progress
    total = max(progress.total, 1)
    done = round(BAR_WIDTH * progress.done / total)
    running = round(BAR_WIDTH * progress.running / total)
    bar = "#" * done + ">" * running + "-" * max(0, BAR_WIDTH - done - running)
    return (f"[{bar}] {progress.done}/{progress.total} done, {progress.running} running, "
            f"{progress.waiting} waiting ({tournament.status})")


def _standings(tournament: TournamentOut) -> list[str]:
    ratings = {rating.entrant: rating for rating in tournament.ratings}
    lines = [f"{'entrant':<28} {'points':>7} {'games':>5} {'wins':>4} {'mean place':>10} "
             f"{'rating':>7}"]
    for standing in tournament.standings:
        rating = ratings.get(standing.entrant)
        mean = f"{standing.mean_placement:.2f}" if standing.mean_placement is not None else "-"
        shown = (f"{rating.ordinal:.1f}{'?' if rating.provisional else ''}" if rating else "-")
        lines.append(f"{standing.name[:28]:<28} {standing.points:>7.1f} {standing.games:>5} "
                     f"{standing.wins:>4} {mean:>10} {shown:>7}")
    return lines


def _client(args: argparse.Namespace) -> Client:
    key = args.token or find_organiser_key(args.organiser_key, args.data_dir)
    return Client(args.server, token=key)


def _watch(client: Client, tournament_id: str, interval: float, once: bool) -> TournamentOut:
    """Redraw the progress line on a terminal; elsewhere (a log, a pipe) print a line
    only when the progress changed, so a long tournament does not fill the log."""
    live = sys.stdout.isatty() and not once
    shown = ""
    while True:
        tournament = client.tournament(tournament_id)
        line = progress_line(tournament)
        if live:
            print(f"\r{line}", end="", flush=True)
        elif line != shown:
            print(line, flush=True)
        shown = line
        if once or tournament.status != "running":
            if live:
                print()
            print("\n".join(_standings(tournament)))
            return tournament
        time.sleep(interval)


def _create(args: argparse.Namespace, client: Client) -> int:
    entrants = [resolve_entrant(entrant) for entrant in args.entrant]
    tournament = client.create_tournament(
        args.name, args.game, args.mode, args.seats, entrants, format=args.format,
        boards=args.boards, baselines=args.baseline, variants=args.variant,
        options=parse_options(args.option), turn_timeout_s=args.turn_timeout,
        max_concurrent_tables=args.max_concurrent, rated=args.rated, private=args.private,
        duplicate_form=args.duplicate_form)
    print(f"tournament {tournament.id}: {tournament.progress.total} tables planned")
    if args.watch:
        _watch(client, tournament.id, 1.0, once=False)
    return 0


def _report(args: argparse.Namespace, client: Client) -> int:
    from tournament.report import plot_png, report_markdown

    report: dict[str, Any] = client.tournament_report(args.tournament_id)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / args.tournament_id
    stem.with_suffix(".json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    markdown = report_markdown(report)
    stem.with_suffix(".md").write_text(markdown, encoding="utf-8")
    print(markdown)
    written = [stem.with_suffix(".md"), stem.with_suffix(".json")]
    if not args.no_plot:
        try:
            plot_png(report, stem.with_suffix(".png"))
            written.append(stem.with_suffix(".png"))
        except ImportError:
            print("no PNG: matplotlib is not installed (pip install agents-club[report])",
                  file=sys.stderr)
    print("wrote " + ", ".join(str(path) for path in written))
    return 0


def _export(args: argparse.Namespace, client: Client) -> int:
    from gateway import __version__

    tournament_id = args.tournament_id
    bundle = client.tournament_bundle(tournament_id)  # refused while the tournament runs
    bundle["software"]["exporter"] = __version__
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{tournament_id}.bundle.json.gz"
    path.write_bytes(gzip.compress(json.dumps(bundle).encode("utf-8"), mtime=0))
    print(f"wrote {path}: {len(bundle['results'])} results, {len(bundle['replays'])} replays")
    return 0


def verify(path: Path) -> int:
    """Check a bundle file; print what does not reproduce. 0 when everything matches, 1
    when something does not, 2 when the file cannot be read as a bundle."""
    from tournament.bundle import verify_bundle

    try:
        bundle = json.loads(gzip.decompress(path.read_bytes()))
        problems = verify_bundle(bundle)
    except (OSError, EOFError, ValueError, KeyError, TypeError, AttributeError) as unreadable:
        # OSError covers gzip.BadGzipFile and a missing file; ValueError a JSON error.
        print(f"agents-club tournament verify: {path} is not a readable bundle "
              f"({type(unreadable).__name__}: {unreadable})", file=sys.stderr)
        return 2
    for line in problems:
        print(line)
    tables = len(bundle.get("results", []))
    print(f"{path}: {tables} tables replayed; "
          + ("standings and fit recomputed: everything matches" if not problems
             else f"{len(problems)} disagreements"))
    return 1 if problems else 0


def run(args: argparse.Namespace) -> int:
    """Run one tournament action; 0 on success, 1 on a server error or a bundle that does
    not reproduce, 2 on bad arguments."""
    if args.action == "verify":
        return verify(args.bundle)
    try:
        with _client(args) as client:
            if args.action == "create":
                return _create(args, client)
            if args.action == "status":
                _watch(client, args.tournament_id, args.interval, once=args.once)
                return 0
            if args.action == "export":
                return _export(args, client)
            return _report(args, client)
    except ValueError as wrong:
        print(f"agents-club tournament: {wrong}", file=sys.stderr)
        return 2
    except AgentsClubError as failure:
        print("\n".join(failure_lines("tournament", failure)), file=sys.stderr)
        return 1
