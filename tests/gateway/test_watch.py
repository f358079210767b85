"""The spectator pages: served for watchable tables, built only on the spectator's API.

Their behaviour in a browser is tested in test_watch_browser.py."""

from __future__ import annotations

import re
from collections.abc import Callable

from fastapi.testclient import TestClient

from gateway.routes.watch import PAGE

GAME = "market-fortune"


def test_the_list_page_is_html_and_reads_only_public_listings(client: TestClient) -> None:
    answer = client.get("/watch")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert "/v1/tables?status=" in answer.text


def test_a_table_page_is_served_for_a_public_table(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    seat = auth(mint_token(agent_id="watcher0", name="watcher0", games=(GAME,)))
    table = client.post("/v1/tables", headers=seat, json={
        "game": GAME, "mode": "family", "seats": 2, "house_bots": [{"seat": 1}]}).json()
    answer = client.get(f"/watch/{table['id']}")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/html")
    assert answer.text == PAGE.read_text(encoding="utf-8")


def test_an_unknown_table_is_a_problem_not_a_page(client: TestClient) -> None:
    answer = client.get("/watch/no-such-table")
    assert answer.status_code == 404
    assert answer.json()["code"] == "table/not_found"


def test_the_page_calls_only_spectator_endpoints_and_never_sends_a_token() -> None:
    """What the page may fetch: its whole reach is the spectator's API (nothing hidden)."""
    script = PAGE.read_text(encoding="utf-8")
    fetched = set(re.findall(r"getJson\(`([^`]+)`\)", script))
    fetched |= set(re.findall(r"fetch\(`([^`]+)`", script))
    table = r"^/v1/tables/\$\{encodeURIComponent\(tableId\)\}"
    allowed = (
        re.compile(r"^/v1/tables\?status=\$\{status\}&limit=50$"),
        re.compile(table + "$"),
        # Never held (no ?wait): the page draws at once, then re-reads on each event.
        re.compile(table + "/observation$"),
        re.compile(table + r"/events\?after=\$\{Math\.max\(0, seen\.last_event_id - 12\)\}$"),
        re.compile(table + r"/events/stream\?after=\$\{last\}$"),
        # Answered only once the table is over (tested in test_watch_browser.py).
        re.compile(table + "/replay/positions$"),
        re.compile(r"^/v1/tournaments\?limit=50$"),
        re.compile(r"^/v1/tournaments/\$\{encodeURIComponent\(tournamentId\)\}$"),
        # The final fit, read once the tournament is over (the report opens only then).
        re.compile(r"^/v1/tournaments/\$\{encodeURIComponent\(tournamentId\)\}/report$"),
        re.compile(r"^/v1/games$"),
        re.compile(r"^/v1/games/\$\{encodeURIComponent\(game\)\}/leaderboard$"),
    )
    assert fetched and all(any(p.match(path) for p in allowed) for path in fetched), fetched
    assert "authorization" not in script.lower()
    # Server text is only ever inserted as text, never as markup.
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script
