"""The spectator pages in a real headless Chromium against a real gateway (uvicorn, real Redis).

What a person watching would notice: a table waiting on a slow agent shows
its seats and position at once; a move appears on an open page within a
second; the replay slider shows, step by step, the positions the engine's
spectator view gives for the same log; and over whole games no card hidden
from a spectator reaches a page's DOM or anything the page fetched; the
tournament page shows the API's standings. Every page is saved as a PNG into docs/screenshots/ (shown in docs/watch.md).

Chromium is Debian's (``/usr/bin/chromium``), driven by Playwright for Python;
without it these tests skip, saying why (``.ci/run`` installs it).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from agents_club_cli.embedded_redis import free_port
from engine.registry import get_game
from tests.gateway.test_leaks import audit_of

CHROMIUM = os.environ.get("AGENTS_CLUB_CHROMIUM", "/usr/bin/chromium")
DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
SCREENSHOTS_ENV = "AGENTS_CLUB_SCREENSHOTS"
"""Set to ``docs`` to refresh the committed screenshots in docs/screenshots/; otherwise
every run saves them under pytest's temporary directory (table ids and clocks differ
from run to run, so each run would change the committed files)."""
_TOKEN = re.compile(r"[A-Za-z0-9.+_\-]+")

playwright_sync = pytest.importorskip(
    "playwright.sync_api",
    reason="LOUD SKIP: Playwright for Python is not installed (pip install -e '.[dev]'); "
    "the spectator pages are NOT tested in a browser",
)
if not (shutil.which(CHROMIUM) or Path(CHROMIUM).exists()):
    pytest.skip(
        f"LOUD SKIP: no Chromium at {CHROMIUM} (apt-get install -y chromium; .ci/run does it); "
        "the spectator pages are NOT tested in a browser",
        allow_module_level=True,
    )


@dataclass
class Gateway:
    """A real gateway on a loopback port, serving the test's ``app``."""

    url: str
    http: httpx.Client
    organiser: dict[str, str]
    """An organiser token's headers: the organiser deals the tables with a fixed seed."""
    agents: dict[str, dict[str, str]] = field(default_factory=dict)


@pytest.fixture()
def gateway(app: FastAPI) -> Iterator[Gateway]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the gateway did not start"
        time.sleep(0.02)
    with httpx.Client(base_url=url, timeout=10) as http:
        organiser = app.state.tokens.issue(agent_id="org", name="org", scopes=set(), kind="organiser").token
        yield Gateway(url, http, {"Authorization": f"Bearer {organiser}"})
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_sync.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 860})
    opened = context.new_page()
    yield opened
    context.close()


def seat_agents(gateway: Gateway, mint_token: Callable[..., str], game: str, count: int) -> list[dict[str, str]]:
    names = ["Ada", "Brook", "Cyd", "Dee", "Eli"]
    return [{"Authorization": "Bearer " + mint_token(agent_id=f"agt-{i}", name=names[i], games=(game,))}
            for i in range(count)]


def start_table(gateway: Gateway, seats: list[dict[str, str]], game: str, mode: str, **fields: Any) -> str:
    """A table of ``seats`` (agents): the organiser deals it (only it may choose the seed
    of a table several agents share), then every agent joins in seat order."""
    created = gateway.http.post("/v1/tables", headers=gateway.organiser, json={
        "game": game, "mode": mode, "seats": len(seats), "join": False, **fields})
    assert created.status_code == 201, created.text
    table_id: str = created.json()["id"]
    for headers in seats:
        joined = gateway.http.post(f"/v1/tables/{table_id}/join", headers=headers)
        assert joined.status_code == 200, joined.text
    return table_id


def move(gateway: Gateway, table_id: str, seats: list[dict[str, str]], rng: random.Random,
         to_act: list[int] | None = None) -> dict[str, Any]:
    """One random legal move by whoever is to act (``to_act``, when the caller knows it);
    returns the mover's observation after it."""
    if to_act is None:
        to_act = gateway.http.get(f"/v1/tables/{table_id}/observation").json()["to_act"]
    actor = to_act[0]
    mine = gateway.http.get(f"/v1/tables/{table_id}/observation", headers=seats[actor]).json()
    acted = gateway.http.post(f"/v1/tables/{table_id}/actions", headers=seats[actor], json={
        "version": mine["version"], "action": rng.choice(mine["legal_actions"])["id"]})
    assert acted.status_code == 200, acted.text
    observation: dict[str, Any] = acted.json()["observation"]
    return observation


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if os.environ.get(SCREENSHOTS_ENV) == "docs":
        return DOCS_SCREENSHOTS
    return tmp_path_factory.mktemp("screenshots")


def fits_a_phone(page: Any) -> None:
    """At a phone's width (390 px) the page needs no sideways scrolling (wide tables and the
    price track scroll inside their own boxes)."""
    size = page.viewport_size
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, page.url
    finally:
        page.set_viewport_size(size)


def screenshot(page: Any, folder: Path, name: str) -> None:
    """Save the whole page as ``name`` (every page of the site is saved by some test)."""
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / name), full_page=True)
    assert (folder / name).stat().st_size > 10_000  # a drawn page, not a blank one


def test_a_table_waiting_on_a_slow_agent_shows_at_once_and_follows_a_move(
    gateway: Gateway, page: Any, mint_token: Callable[..., str], screenshots: Path,
) -> None:
    game = "market-fortune"
    seats = seat_agents(gateway, mint_token, game, 3)
    table_id = start_table(gateway, seats, game, "family", seed=5, turn_timeout_s=600)
    rng = random.Random(1)
    for _ in range(6):
        move(gateway, table_id, seats, rng)
    page.goto(f"{gateway.url}/watch")  # a warm browser: the clock below times the page, not Chromium's start
    # Nobody acts now: the agent to act is "slow". The page must not wait for it.
    started = time.monotonic()
    page.goto(f"{gateway.url}/watch/{table_id}")
    page.wait_for_selector('[data-seat="2"]', timeout=1000)
    assert time.monotonic() - started < 1.0
    for index, name in enumerate(["Ada", "Brook", "Cyd"]):
        assert page.text_content(f'[data-seat-name="{index}"]') == name
    seen = gateway.http.get(f"/v1/tables/{table_id}/observation").json()
    acting = page.locator(".seat.to-act")
    assert acting.get_attribute("data-seat") == str(seen["to_act"][0])
    clock = page.text_content(".seat.to-act .clock") or ""
    assert re.fullmatch(r"\d+:\d\d", clock)
    minutes, seconds = map(int, clock.split(":"))
    # The table's 600 s clock, just started (to a second or two: the page and the server
    # share no clock, and the server's Date header is cut to the second).
    assert 590 <= minutes * 60 + seconds <= 602
    # The clock runs down (on the page, without another read).
    page.wait_for_function("(shown) => document.querySelector('.seat.to-act .clock').textContent !== shown",
                           arg=clock, timeout=2000)
    assert page.get_attribute("[data-deck=Stock]", "data-deck-count") == str(seen["view"]["stock_deck"])
    for player in seen["view"]["players"]:
        panel = page.locator(f'[data-seat="{player["seat"]}"]')
        assert panel.get_attribute("data-hand-count") == str(player["hand_count"])
        assert panel.get_attribute("data-investment-count") == str(player["investment_count"])
    assert "Market Fortune" in (page.get_attribute("#board", "aria-label") or "")
    page.wait_for_selector("#events li.fresh")
    screenshot(page, screenshots, "table-market-fortune.png")
    fits_a_phone(page)

    # A move through the API appears on the open page within a second.
    after = move(gateway, table_id, seats, rng)
    started = time.monotonic()
    page.wait_for_selector(f'body[data-version="{after["version"]}"]', timeout=1000)
    assert time.monotonic() - started < 1.0


def test_the_turn_clock_holds_when_the_visitors_clock_is_wrong(
    gateway: Gateway, page: Any, mint_token: Callable[..., str],
) -> None:
    """A visitor whose clock runs an hour late still sees the table's clock, not 60 more minutes."""
    game = "market-fortune"
    seats = seat_agents(gateway, mint_token, game, 2)
    table_id = start_table(gateway, seats, game, "family", seed=6, turn_timeout_s=120)
    page.clock.install(time=time.time() - 3600)
    page.clock.resume()
    page.goto(f"{gateway.url}/watch/{table_id}")
    page.wait_for_selector(".seat.to-act .clock")
    minutes, seconds = map(int, (page.text_content(".seat.to-act .clock") or "").split(":"))
    assert 110 <= minutes * 60 + seconds <= 122


def test_a_hab_und_gut_table_draws_its_price_track(
    gateway: Gateway, browser: Any, mint_token: Callable[..., str], screenshots: Path,
) -> None:
    game = "hab-und-gut"
    seats = seat_agents(gateway, mint_token, game, 4)
    table_id = start_table(gateway, seats, game, "standard", seed=8, turn_timeout_s=300)
    rng = random.Random(2)
    for _ in range(9):
        move(gateway, table_id, seats, rng)
    context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
    page = context.new_page()
    page.goto(f"{gateway.url}/watch/{table_id}")
    page.wait_for_selector('[data-marker="salt"]', timeout=1000)
    seen = gateway.http.get(f"/v1/tables/{table_id}/observation").json()
    for price in seen["view"]["prices"]:
        assert page.get_attribute(f'[data-marker="{price["commodity"]}"]', "data-space") == str(price["space"])
    for seat in seen["view"]["seats"]:
        assert page.get_attribute(f'[data-seat="{seat["seat"]}"]', "data-money") == str(seat["money"])
    # Usable at phone width: nothing wider than the screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, screenshots, "table-hab-und-gut-phone.png")
    context.close()


def spectator_hidden_by_version(gateway: Gateway, table_id: str) -> dict[int, frozenset[str]]:
    """After the end: per table version, the cards the engine's audit hides from a spectator,
    from the seed and log replayed through the engine (an oracle independent of the views)."""
    replay = gateway.http.get(f"/v1/tables/{table_id}/replay").json()
    game = get_game(replay["game"])
    audit = audit_of(replay["game"])
    state = game.new_table(game.config_model.model_validate(replay["config"]), replay["seed"])
    first = replay["log"][0]["version"]
    hidden = {version: audit.hidden_from(state, None) for version in range(first)}
    for entry in replay["log"]:  # an entry's version is the table's version after it
        state, _ = game.apply(state, entry["seat"], game.parse_action(entry["action"]))
        hidden[entry["version"]] = audit.hidden_from(state, None)
    return hidden


_SNAPSHOT = """() => ({
    version: Number(document.body.dataset.version),
    position: document.getElementById("board").innerHTML + document.getElementById("summary").textContent
        + document.getElementById("board").getAttribute("aria-label"),
    page: document.querySelector("header").outerHTML + document.querySelector("main:not([hidden])").outerHTML,
})"""
_WHOLE_DOCUMENT = "() => document.documentElement.outerHTML"
"""The page with its script and style, read at the start and the end (they never change)."""


WHOLE_GAMES: dict[str, dict[str, Any]] = {
    # A short Market Fortune game (the rulebook's cap is lower at this table): watched whole.
    "market-fortune": {"mode": "family", "seats": 2, "options": {"turn_limit_per_seat": 10}},
    "hab-und-gut": {"mode": "standard", "seats": 3},
}


@pytest.mark.parametrize("game_name", sorted(WHOLE_GAMES))
def test_whole_games_leak_nothing_and_the_replay_matches_the_engine(
    game_name: str, gateway: Gateway, page: Any, mint_token: Callable[..., str], screenshots: Path,
) -> None:
    table = dict(WHOLE_GAMES[game_name])
    seats = seat_agents(gateway, mint_token, game_name, int(table.pop("seats")))
    table_id = start_table(gateway, seats, game_name, str(table.pop("mode")), seed=23, **table)
    bodies: list[str] = []

    def keep(response: Any) -> None:
        # A stream cut when the page closes has no body to read.
        with contextlib.suppress(playwright_sync.Error):
            if "/v1/" in response.url:
                bodies.append(response.text())

    page.on("response", keep)
    page.goto(f"{gateway.url}/watch/{table_id}")
    page.wait_for_selector("body[data-ready]")
    rng = random.Random(7)
    first_document = page.evaluate(_WHOLE_DOCUMENT)
    snapshots = [(page.evaluate(_SNAPSHOT), 0)]
    after: dict[str, Any] = {"to_act": None}
    for _ in range(2000):
        after = move(gateway, table_id, seats, rng, after["to_act"])
        # The page follows at its own pace: its DOM is read after every move, whatever
        # version it shows then, and judged by that version once the game is over.
        snapshots.append((page.evaluate(_SNAPSHOT), after["version"]))
        if after["status"] == "finished":
            break
    else:
        raise AssertionError("the table did not finish")
    page.wait_for_selector(f'body[data-version="{after["version"]}"]', timeout=2000)
    snapshots.append((page.evaluate(_SNAPSHOT), after["version"]))
    whole_documents = [first_document, page.evaluate(_WHOLE_DOCUMENT)]
    screenshot(page, screenshots, f"table-finished-{game_name}.png")
    page.close()

    hidden_by_version = spectator_hidden_by_version(gateway, table_id)
    # The drawing and its words show one position: no card hidden at that version. The
    # page as a whole (its event history too, which may run ahead of the drawing) names
    # no card hidden at every version so far: an event may name a card public then (a
    # pile top someone has since drawn).
    for snapshot, table_version in snapshots:
        version = snapshot["version"]
        hidden_so_far = frozenset.intersection(
            *(hidden_by_version[v] for v in range(table_version + 1) if v in hidden_by_version))
        assert not set(_TOKEN.findall(snapshot["position"])) & hidden_by_version[version], version
        assert not set(_TOKEN.findall(snapshot["page"])) & hidden_so_far, table_version
    assert len({snapshot["version"] for snapshot, _ in snapshots}) > 20
    for document in whole_documents:
        assert not set(_TOKEN.findall(document)) & frozenset.intersection(*hidden_by_version.values())

    # Each observation the page fetched names no card hidden at its version; nothing it
    # fetched (events, the stream) names a card hidden from the spectator all game long.
    never_public = frozenset.intersection(*hidden_by_version.values())
    assert never_public, "the scan would be vacuous"
    observations = 0
    for body in bodies:
        tokens = set(_TOKEN.findall(body))
        assert not tokens & never_public
        if body.startswith("{") and '"last_event_id"' in body:
            seen = json.loads(body)
            assert not tokens & hidden_by_version[seen["version"]], seen["version"]
            observations += 1
    assert observations > 20
    assert any(body.startswith("retry:") and "event: table.finished" in body for body in bodies), "no stream read"

    replay_matches_the_engine(gateway, page.context, table_id, screenshots)


_DRAWN = """() => {
    const all = (selector, read) => [...document.querySelectorAll('#replay-board ' + selector)].map(read);
    return {
        step: document.body.dataset.step,
        seats: all('[data-seat]', (s) => [s.dataset.handCount, s.dataset.strategyCount, s.dataset.investmentCount,
                                         s.dataset.money, s.dataset.shares].filter((v) => v !== undefined).map(Number)),
        decks: all('[data-deck]', (d) => Number(d.dataset.deckCount)),
        piles: all('[data-pile]', (p) => [Number(p.dataset.pileCount), p.querySelector('[data-card]')?.dataset.card ?? null]),
        face_up: all('[data-investment="up"] [data-card]', (c) => c.dataset.card),
        markers: all('[data-marker]', (m) => [m.dataset.marker, Number(m.dataset.space)]),
    };
}"""


def drawn(view: Any) -> dict[str, list[Any]]:
    """What the replay page must draw of a spectator view, read from the view itself."""
    if view.game == "market-fortune":
        return {
            "seats": [[p.hand_count, p.strategy_count, p.investment_count] for p in view.players],
            "decks": [view.stock_deck, view.return_deck, view.strategy_deck],
            "piles": [[len(pile), pile[-1] if pile else None]
                      for pile in (view.stock_pile, view.return_pile, view.strategy_pile)],
            "face_up": [card for p in view.players for inv in p.investments if inv.face_up
                        for card in (inv.stock, inv.ret, inv.innovation) if card],
            "markers": [],
        }
    return {
        "seats": [[seat.money, seat.shares_held] for seat in view.seats],
        "decks": [], "piles": [], "face_up": [],
        "markers": [[price.commodity, price.space] for price in view.prices],
    }


def replay_matches_the_engine(gateway: Gateway, context: Any, table_id: str, screenshots: Path) -> None:
    """The slider's positions are the engine's spectator views of the same log, step by step."""
    replay = gateway.http.get(f"/v1/tables/{table_id}/replay").json()
    game = get_game(replay["game"])
    state = game.new_table(game.config_model.model_validate(replay["config"]), replay["seed"])
    views = [game.view(state, None)]
    for entry in replay["log"]:
        state, _ = game.apply(state, entry["seat"], game.parse_action(entry["action"]))
        views.append(game.view(state, None))
    page = context.new_page()
    page.goto(f"{gateway.url}/watch/{table_id}/replay?step=3")
    page.wait_for_selector('body[data-step="3"]', timeout=3000)
    page.click("#play")  # autoplay moves on by itself, and the address follows
    page.wait_for_selector('body[data-step="5"]', timeout=5000)
    page.click("#play")
    assert page.url.endswith("?step=" + page.evaluate("document.body.dataset.step"))
    page.locator("#slider").fill("0")
    page.wait_for_selector('body[data-step="0"]')
    # What the page draws at each step is read as it draws it (one read per step would
    # double the round trips); the steps come from real key presses.
    page.evaluate(f"""() => {{
        const read = {_DRAWN};
        window.drawnSteps = [read()];
        new MutationObserver(() => window.drawnSteps.push(read()))
            .observe(document.body, {{ attributes: true, attributeFilter: ["data-step"] }});
    }}""")
    for index in range(1, len(views)):
        page.keyboard.press("ArrowRight")
        if index == len(views) * 2 // 3:
            screenshot(page, screenshots, f"replay-{replay['game']}.png")
            fits_a_phone(page)
    page.wait_for_function(f"() => window.drawnSteps.length === {len(views)}", timeout=3000)
    shown = page.evaluate("window.drawnSteps")
    for index, expected in enumerate(views):
        assert shown[index] == {"step": str(index), **drawn(expected)}, index
    page.close()


def test_the_replay_is_refused_before_the_end_and_private_tables_stay_unwatchable(
    gateway: Gateway, page: Any, mint_token: Callable[..., str], screenshots: Path,
) -> None:
    game = "market-fortune"
    seats = seat_agents(gateway, mint_token, game, 2)
    table_id = start_table(gateway, seats, game, "family", seed=3)
    refused = gateway.http.get(f"/v1/tables/{table_id}/replay/positions")
    assert refused.status_code == 409 and refused.json()["code"] == "table/not_finished"
    page.goto(f"{gateway.url}/watch/{table_id}/replay")
    page.wait_for_selector("body[data-ready]")
    assert "opens when the table ends" in (page.text_content("#replay-board") or "")
    private = gateway.http.post("/v1/tables", headers=seats[0], json={
        "game": game, "mode": "family", "seats": 2, "private": True}).json()["id"]
    for path in (f"/watch/{private}", f"/watch/{private}/replay", f"/v1/tables/{private}/replay/positions"):
        assert gateway.http.get(path).status_code == 404, path
    # An open table shows the seats taken so far, and its page follows the joins.
    waiting = gateway.http.post("/v1/tables", headers=seats[0], json={
        "game": game, "mode": "family", "seats": 2}).json()["id"]
    page.goto(f"{gateway.url}/watch/{waiting}")
    page.wait_for_selector('[data-seat-name="0"]', timeout=1000)
    assert page.text_content('[data-seat-name="1"]') == "Seat 1"
    assert gateway.http.post(f"/v1/tables/{waiting}/join", headers=seats[1]).status_code == 200
    page.wait_for_selector('[data-seat="1"][data-hand-count]', timeout=1000)
    assert page.text_content('[data-seat-name="1"]') == "Brook"
    page.goto(f"{gateway.url}/watch")
    page.wait_for_selector("body[data-ready]")
    assert page.locator(f'a[href="/watch/{table_id}"]').count() == 1
    assert page.locator(f'a[href="/watch/{private}"]').count() == 0


def test_the_tournament_and_leaderboard_pages_show_what_the_api_says(
    gateway: Gateway, page: Any, organiser_headers: dict[str, str], mint_token: Callable[..., str],
    screenshots: Path,
) -> None:
    created = gateway.http.post("/v1/tournaments", headers=organiser_headers, json={
        "name": "Friday bots", "game": "market-fortune", "mode": "family", "seats": 2,
        "options": {"turn_limit_per_seat": 6}, "entrants": ["bot:greedy", "bot:random", "bot:greedy#2"],
        "format": "round_robin", "boards": 2, "turn_timeout_s": 0.2, "max_concurrent_tables": 3,
        "rated": True})
    assert created.status_code == 201, created.text
    tournament_id = created.json()["id"]
    give_up = time.monotonic() + 20
    while (shown := gateway.http.get(f"/v1/tournaments/{tournament_id}").json())["status"] == "running":
        assert time.monotonic() < give_up, shown["progress"]
        time.sleep(0.1)
    page.goto(f"{gateway.url}/watch/tournaments/{tournament_id}")
    page.wait_for_selector("body[data-ready]")
    rows = page.eval_on_selector_all("#standings tbody tr", """(rows) => rows.map((row) => [
        row.dataset.entrant, ...[...row.cells].slice(1).map((c) => c.textContent)])""")
    assert rows == [[s["entrant"], s["name"], f"{s['points']:.1f}", str(s["games"]), str(s["wins"]),
                     f"{s['mean_placement']:.2f}"] for s in shown["standings"]]
    progress = shown["progress"]
    assert page.text_content("#progress-text") == (
        f"{progress['done']} of {progress['total']} tables done, {progress['running']} running, "
        f"{progress['waiting']} waiting.")
    assert page.eval_on_selector_all("#rating-chart [data-rating]", "(gs) => gs.map((g) => g.dataset.rating)") == [
        rating["entrant"] for rating in shown["ratings"]]
    # Every table linked, to its page and (finished) its replay.
    for table in shown["tables"]:
        assert page.locator(f'a[href="/watch/{table["table_id"]}/replay"]').count() == 1
    assert len(shown["tables"]) == progress["total"]
    # Over: the report's final fit and head-to-head beside the live ratings, by name.
    report = gateway.http.get(f"/v1/tournaments/{tournament_id}/report").json()
    page.wait_for_selector("#final-fit-section:not([hidden]) #head-to-head tbody tr")
    names = {standing["entrant"]: standing["name"] for standing in shown["standings"]}
    assert page.eval_on_selector_all("#final-fit tbody tr", """(rows) => rows.map((row) =>
        row.cells[1].textContent)""") == [names[line["entrant"]] for line in report["fit"]]
    assert page.eval_on_selector_all("#head-to-head tbody tr", """(rows) => rows.map((row) =>
        [row.cells[0].textContent, row.cells[1].textContent])""") == [
        [names[pair["entrant"]], names[pair["opponent"]]] for pair in report["head_to_head"]]
    screenshot(page, screenshots, "tournament.png")
    fits_a_phone(page)
    page.click(f'a[href="/watch/{shown["tables"][0]["table_id"]}/replay"]')
    page.wait_for_selector('body[data-step="0"]')

    board = gateway.http.get("/v1/games/market-fortune/leaderboard").json()
    page.goto(f"{gateway.url}/watch/leaderboard/market-fortune")
    page.wait_for_selector("body[data-ready]")
    assert page.eval_on_selector_all("#ratings tbody tr", "(rows) => rows.map((r) => r.dataset.entrant)") == [
        rating["entrant"] for rating in board["ratings"]]
    assert board["tables"] == progress["total"]
    screenshot(page, screenshots, "leaderboard.png")

    private = gateway.http.post("/v1/tournaments", headers=organiser_headers, json={
        **{key: created.json()[key] for key in ("game", "mode", "seats")}, "name": "hidden",
        "entrants": ["bot:greedy", "bot:random"], "format": "duplicate", "boards": 1, "private": True})
    assert private.status_code == 201, private.text
    assert gateway.http.get(f"/watch/tournaments/{private.json()['id']}").status_code == 404
    # A public tournament's published table is replayed for anyone (it could not be watched
    # live); a private tournament's table is nobody's but the organiser's, even when over.
    published = shown["tables"][0]["table_id"]
    assert gateway.http.get(f"/v1/tables/{published}/replay/positions").status_code == 200
    assert gateway.http.get(f"/watch/{published}").status_code == 404
    give_up = time.monotonic() + 20
    while (hidden := gateway.http.get(f"/v1/tournaments/{private.json()['id']}",
                                      headers=organiser_headers).json())["status"] == "running":
        assert time.monotonic() < give_up
        time.sleep(0.1)
    for table in hidden["tables"]:
        for path in (f"/watch/{table['table_id']}/replay", f"/v1/tables/{table['table_id']}/replay/positions"):
            assert gateway.http.get(path).status_code == 404, path
        organiser = {"Authorization": "Bearer " + mint_token(agent_id="org", name="org", kind="organiser")}
        assert gateway.http.get(f"/v1/tables/{table['table_id']}/replay/positions",
                                headers=organiser).status_code == 200
    # The list: public tables and tournaments, not the private ones.
    ada = seat_agents(gateway, mint_token, "hab-und-gut", 1)
    gateway.http.post("/v1/tables", headers=ada[0], json={
        "game": "hab-und-gut", "mode": "standard", "seats": 3, "house_bots": [{"seat": 1}, {"seat": 2}]})
    page.goto(f"{gateway.url}/watch")
    page.wait_for_selector("body[data-ready]")
    assert page.locator(f'a[href="/watch/tournaments/{tournament_id}"]').count() == 1
    assert page.locator(f'a[href="/watch/tournaments/{private.json()["id"]}"]').count() == 0
    screenshot(page, screenshots, "tables.png")
    fits_a_phone(page)
