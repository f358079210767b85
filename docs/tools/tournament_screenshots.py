"""Screenshots of a real finished tournament: its report, its page and the leaderboard.

    .venv/bin/python docs/tools/tournament_screenshots.py [--out docs/screenshots] [--boards 6]

Starts ``agents-club serve`` (its own embedded Redis) on a free loopback port,
registers three SDK agents with metadata (``Ada``, ``Ada v2`` following ``Ada``,
and ``Brook``), creates a rated duplicate tournament of them and the greedy
house bot by name, and plays every agent's tables with the SDK's runner and a
house-bot policy. Once it is over it checks the exported bundle reproduces
(:func:`tournament.bundle.verify_bundle`), then drives Debian's Chromium
(``/usr/bin/chromium``, or ``AGENTS_CLUB_CHROMIUM``) with Playwright to save:

* ``tournament-report.png``: the Markdown report as ``agents-club tournament
  report`` prints it (names, entrants' metadata, ranking, head-to-head,
  duplicate scores), with its PNG plot;
* ``tournament-final.png``: ``/watch/tournaments/<id>`` once over: standings
  with metadata, the final fit and the head-to-head table beside the live
  ratings, the tables by name;
* ``leaderboard-versions.png``: ``/watch/leaderboard/market-fortune``, each
  agent with its metadata and the version it follows;
* ``arena-cost.png``: the "Cost and latency" section of the report that
  ``agents-club arena run`` writes, for a second tournament on the same server
  of three LLM entrants and the greedy house bot: tokens, money, requests,
  fallbacks and forfeits per entrant beside the gateway's decision times. The
  endpoints are the arena tests' local stubs (:mod:`tests.agents.llm_stub_server`,
  real HTTP servers on 127.0.0.1 that answer admission from the server's own
  records, so the script reads the Redis it starts): ``Cleo`` plays the first
  legal action, ``Dana`` a random one until its token budget is spent, and
  ``Eve``'s endpoint answers every turn with 500, so it forfeits.

Seeds are drawn by the server, so the numbers differ from run to run; the
layout and what is shown do not.
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from contextlib import ExitStack
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
from playwright.sync_api import sync_playwright

from agents import Client, HouseBot
from agents.runner import Runner
from agents_club_cli.embedded_redis import EmbeddedRedis, free_port
from agents_club_cli.main import main as agents_club
from agents_club_cli.serve import wait_until_ready
from tournament.bundle import verify_bundle
from tournament.report import plot_png, report_markdown

ROOT = Path(__file__).resolve().parents[2]
ORGANISER_KEY = "screenshots-organiser-key-0123456789abcdef"
GAME = "market-fortune"
CHROMIUM = os.environ.get("AGENTS_CLUB_CHROMIUM", "/usr/bin/chromium")
AGENTS = [
    ("Ada", "greedy", {"model": "greedy-search", "provider": "Agents Club examples",
                       "version": "1.0", "link": "https://example.org/ada"}),
    ("Ada v2", "greedy", {"model": "greedy-search", "provider": "Agents Club examples",
                          "version": "2.0", "link": "https://example.org/ada"}),
    ("Brook", "random", {"model": "uniform-random", "provider": "Agents Club examples",
                         "version": "0.3"}),
]


ARENA_ENTRANTS = [  # name, stub policy, model, extra keys
    ("Cleo", "first", "small-model", ""),
    ("Dana", "random", "large-model", "budget_tokens = 1200"),
    ("Eve", "dead", "small-model", ""),
]


def _serve(port: int, data_dir: Path, redis_url: str, namespace: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "AGENTS_CLUB_ENVIRONMENT": "test", "AGENTS_CLUB_ORGANISER_KEY": ORGANISER_KEY,
           "AGENTS_CLUB_REDIS_URL": redis_url, "AGENTS_CLUB_REDIS_NAMESPACE": namespace,
           "AGENTS_CLUB_LOG_LEVEL": "WARNING", "AGENTS_CLUB_SWEEPER_INTERVAL_S": "0.05"}
    return subprocess.Popen(
        [sys.executable, "-m", "agents_club_cli.main", "serve", "--host", "127.0.0.1",
         "--port", str(port), "--data-dir", str(data_dir)], env=env, cwd=ROOT)


def _register(url: str) -> dict[str, tuple[str, str]]:
    """Each agent's name -> (token, house-bot policy), registered in order (v2 after Ada)."""
    registered: dict[str, tuple[str, str]] = {}
    ids: dict[str, str] = {}
    with Client(url) as client:
        for name, policy, meta in AGENTS:
            if name.endswith(" v2"):
                meta = {**meta, "predecessor": ids[name.removesuffix(" v2")]}
            token = client.organiser_token(name, games=[GAME], organiser_key=ORGANISER_KEY,
                                           meta=meta)
            ids[name] = token.agent_id
            registered[name] = (token.access_token, policy)
    return registered


def _play(url: str, token: str, policy: str, tournament_id: str) -> None:
    with Client(url, token=token) as client:
        runner = Runner(client, HouseBot(policy), printer=None, poll_wait_s=2.0)
        for assignment in client.assigned_tables(tournament_id, wait_s=2.0):
            if assignment.table_id is not None:
                runner.play(assignment.table_id)


def play_tournament(url: str, boards: int) -> str:
    """Create and play the tournament to its end; its id."""
    agents = _register(url)
    with Client(url, token=ORGANISER_KEY) as organiser:
        tournament = organiser.create_tournament(
            "Named agents", GAME, "family", 4, [*agents, "bot:greedy"], format="duplicate",
            boards=boards, options={"turn_limit_per_seat": 6}, turn_timeout_s=10,
            max_concurrent_tables=4, rated=True)
        threads = [threading.Thread(target=_play, args=(url, token, policy, tournament.id),
                                    daemon=True) for token, policy in agents.values()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=600)
        while organiser.tournament(tournament.id).status == "running":
            time.sleep(0.2)
    return tournament.id


def play_arena(url: str, redis_url: str, namespace: str, folder: Path) -> dict[str, Any]:
    """Run ``agents-club arena run`` on :data:`ARENA_ENTRANTS` and the greedy house bot; the
    report it wrote (with its ``cost``)."""
    sys.path.insert(0, str(ROOT))  # the stub endpoints are the arena tests' own
    from tests.agents.llm_stub_server import StubLlm, serving

    server = SimpleNamespace(settings=SimpleNamespace(redis_url=redis_url, redis_namespace=namespace))
    config = folder / "arena.toml"
    with ExitStack() as stack:
        entrants = ""
        for name, policy, model, extra in ARENA_ENTRANTS:
            stub = stack.enter_context(serving(StubLlm(server, name, policy)))  # type: ignore[arg-type]
            entrants += (f'[[entrants]]\nname = "{name}"\nendpoint = "{stub.url}"\n'
                         f'model = "{model}"\n{extra}\n\n')
        config.write_text(f"""
[tournament]
name = "Stub arena"
game = "{GAME}"
mode = "family"
seats = 2
format = "duplicate"
boards = 4
options = {{ turn_limit_per_seat = 6 }}
turn_timeout_s = 10

[limits]
max_retries = 1

[prices.small-model]
input_per_million = 0.15
output_per_million = 0.60

[prices.large-model]
input_per_million = 2.50
output_per_million = 10.00

{entrants}[[entrants]]
house = "greedy"
""", encoding="utf-8")
        code = agents_club(["arena", "run", str(config), "--server", url, "--organiser-key",
                            ORGANISER_KEY, "--interval", "0.5", "--poll-wait", "2", "--no-plot"])
    if code != 0:
        raise RuntimeError(f"the arena exited {code}")
    tournament_id = json.loads(config.with_name("arena.state.json").read_text())["tournament_id"]
    report: dict[str, Any] = json.loads((folder / "arena" / f"{tournament_id}.json").read_text())
    return report


def cost_page(report: dict[str, Any]) -> str:
    """The "Cost and latency" section of ``report`` as the Markdown report prints it."""
    markdown = report_markdown(report)
    start = markdown.index("## Cost and latency")
    end = markdown.find("\n## ", start + 1)
    return _page(markdown_html(markdown[start:end if end > 0 else None]))


def markdown_html(markdown: str) -> str:
    """The report's Markdown as HTML: its headings, pipe tables and paragraphs are all the
    report uses (no Markdown library is a dependency of the project)."""
    parts: list[str] = []
    rows: list[list[str]] = []

    def flush() -> None:
        if rows:
            head, body = rows[0], rows[2:]
            parts.append("<table><tr>" + "".join(f"<th>{cell}</th>" for cell in head) + "</tr>"
                         + "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>"
                                   for row in body) + "</table>")
            rows.clear()

    for line in markdown.splitlines():
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line.strip()[1:-1])
            rows.append([html.escape(cell.strip().replace("\\|", "|").strip("`"))
                         for cell in cells])
            continue
        flush()
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            parts.append(f"<h{level}>{html.escape(line.lstrip('#').strip())}</h{level}>")
        elif line.strip():
            parts.append(f"<p>{html.escape(line)}</p>")
    flush()
    return "\n".join(parts)


def report_page(report: dict[str, Any], plot: Path) -> str:
    """The report (``agents-club tournament report``'s Markdown, rendered) and its plot."""
    return _page(f"{markdown_html(report_markdown(report))}"
                 f"<img alt='strengths with their intervals' style='max-width:800px' "
                 f"src='data:image/png;base64,{_base64(plot)}'>")


def _page(body: str) -> str:
    style = ("body{font-family:sans-serif;margin:24px;max-width:1100px;color:#1d2228}"
             "table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #d0d5db;"
             "padding:3px 8px;font-size:13px;text-align:left}th{background:#f3f5f7}"
             "h1{font-size:22px}h2{font-size:17px;margin-top:22px}p{font-size:13px}")
    return f"<!doctype html><meta charset='utf-8'><title>report</title><style>{style}</style><body>{body}</body>"


def _base64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode("ascii")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--boards", type=int, default=6)
    args = parser.parse_args(argv)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    namespace = f"shots-{uuid.uuid4().hex[:8]}"
    with (tempfile.TemporaryDirectory(prefix="agents-club-shots-") as scratch,
          EmbeddedRedis(Path(scratch) / "redis", persistent=False) as redis):
        server = _serve(port, Path(scratch), redis.url, namespace)
        try:
            wait_until_ready(url, server, 60)
            tournament_id = play_tournament(url, args.boards)
            headers = {"X-Organiser-Key": ORGANISER_KEY}
            with httpx.Client(base_url=url, timeout=60, headers=headers) as http:
                report = http.get(f"/v1/tournaments/{tournament_id}/report").json()
                problems = verify_bundle(http.get(f"/v1/tournaments/{tournament_id}/bundle").json())
            if problems:
                print("\n".join(["the bundle does not reproduce:", *problems]), file=sys.stderr)
                return 1
            arena_report = play_arena(url, redis.url, namespace, Path(scratch))
            plot = Path(scratch) / "plot.png"
            plot_png(report, plot)
            args.out.mkdir(parents=True, exist_ok=True)
            with sync_playwright() as driver:
                browser = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
                page.set_content(report_page(report, plot))
                page.screenshot(path=str(args.out / "tournament-report.png"), full_page=True)
                page.goto(f"{url}/watch/tournaments/{tournament_id}")
                page.wait_for_selector("#final-fit-section:not([hidden]) #head-to-head tbody tr")
                page.screenshot(path=str(args.out / "tournament-final.png"), full_page=True)
                page.goto(f"{url}/watch/leaderboard/{GAME}")
                page.wait_for_selector("body[data-ready] #ratings tbody tr")
                page.screenshot(path=str(args.out / "leaderboard-versions.png"), full_page=True)
                page.set_viewport_size({"width": 1200, "height": 300})
                page.set_content(cost_page(arena_report))
                page.screenshot(path=str(args.out / "arena-cost.png"), full_page=True)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"tournament {tournament_id}: bundle verified; screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
