"""End to end: a tournament of two SDK agents and a house bot, through the HTTP API.

Each agent finds its tables with :meth:`agents.Client.assigned_tables` and plays
them with the SDK's runner; the test then recomputes every table's placements
from its replay alone (seed and log played again by the engine) and checks the
results JSON, the CSV, the standings and the report against them.
"""

from __future__ import annotations

import asyncio
import csv
import gzip
import importlib.util
import io
import json
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from agents import Client, HouseBot
from agents.runner import GameResult, Runner
from agents_club_cli.main import main
from engine.registry import get_game
from gateway.store.auth import AuthStore
from gateway.store.connection import Keys, connect
from tests.agents.conftest import ORGANISER_KEY, RunningGateway
from tournament.results import placements

GAME = "market-fortune"


def _register(gateway: RunningGateway, *names: str) -> list[str]:
    async def scenario() -> list[str]:
        client = connect(gateway.settings.redis_url or "")
        try:
            store = AuthStore(client, Keys(gateway.settings.redis_namespace))
            return [(await store.create_agent(name=name, scopes=[f"game:{GAME}"]))[0].agent_id
                    for name in names]
        finally:
            await client.aclose()

    return asyncio.run(scenario())


def _play_all(gateway: RunningGateway, agent_id: str, name: str, tournament_id: str,
              played: list[GameResult]) -> None:
    token = gateway.tokens.issue(agent_id=agent_id, name=name, scopes={f"game:{GAME}"}).token
    with gateway.client(token) as client:
        runner = Runner(client, HouseBot("greedy"), printer=None, poll_wait_s=2.0)
        for assignment in client.assigned_tables(tournament_id, wait_s=2.0):
            assert assignment.table_id is not None
            played.append(runner.play(assignment.table_id))


def test_two_sdk_agents_and_a_house_bot_play_a_tournament_to_its_report(
    gateway: RunningGateway,
) -> None:
    suffix = str(time.monotonic_ns())[-6:]
    ann, bob = _register(gateway, f"Ann{suffix}", f"Bob{suffix}")
    with Client(gateway.base_url, token=ORGANISER_KEY) as organiser:
        tournament = organiser.create_tournament(
            "e2e", GAME, "family", 3, [ann, bob, "bot:greedy"], format="duplicate", boards=2,
            options={"turn_limit_per_seat": 4}, turn_timeout_s=10, max_concurrent_tables=3)
        assert tournament.progress.total == 6
        played: dict[str, list[GameResult]] = {ann: [], bob: []}
        threads = [threading.Thread(target=_play_all, daemon=True,
                                    args=(gateway, agent, agent, tournament.id, played[agent]))
                   for agent in (ann, bob)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
            assert not thread.is_alive(), "an agent did not finish its tables"
        shown = organiser.tournament(tournament.id)
        assert shown.status == "finished"
        assert shown.progress.done == 6
        assert len(played[ann]) == len(played[bob]) == 6  # every table seats both agents

        results = organiser.tournament_results(tournament.id)
        replays = {bundle["replay"]["table_id"]: bundle["replay"]
                   for bundle in organiser.tournament_replays(tournament.id)}
        assert len(results.results) == len(replays) == 6
        game = get_game(GAME)
        recomputed: dict[str, tuple[int, ...]] = {}
        for result in results.results:
            replay = replays[result.table_id]
            config = game.config_model.model_validate(replay["config"])
            state = game.new_table(config, replay["seed"])
            for entry in replay["log"]:
                state, _events = game.apply(state, entry["seat"], game.parse_action(entry["action"]))
            outcome = game.outcome(state)
            assert outcome is not None
            recomputed[result.table_id] = placements(outcome.winners, outcome.scores, 3)
            assert tuple(result.placements) == recomputed[result.table_id]
            assert replay["seed"] == results.board_seeds[str(result.board)]
        # Every agent held every seat of each board it played (duplicate).
        for agent in (ann, bob):
            seats_by_board = Counter((result.board, result.seating.index(agent))
                                     for result in results.results)
            assert set(seats_by_board.values()) == {1} and len(seats_by_board) == 6
        rows = list(csv.DictReader(io.StringIO(organiser.tournament_results_csv(tournament.id))))
        assert len(rows) == 18
        by_id = {result.table_id: result for result in results.results}
        for row in rows:
            result = by_id[row["table_id"]]
            seat = int(row["seat"])
            assert row["entrant"] == result.seating[seat]
            assert int(row["placement"]) == recomputed[row["table_id"]][seat]
        standings = {standing.entrant: standing for standing in shown.standings}
        assert set(standings) == {ann, bob, "bot:greedy"}
        for entrant, standing in standings.items():
            assert standing.games == 6
            assert standing.wins == sum(1 for table_id, places in recomputed.items()
                                        if places[by_id[table_id].seating.index(entrant)] == 1)
        report = organiser.tournament_report(tournament.id)
        assert isinstance(report, dict) and report
        assert organiser.tournament_report(tournament.id) == report  # kept once made


def test_the_cli_creates_plays_watches_and_reports_a_tournament(
    gateway: RunningGateway, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    (cleo,) = _register(gateway, f"Cleo{str(time.monotonic_ns())[-6:]}")
    server = ["--server", gateway.base_url]
    organiser = [*server, "--organiser-key", ORGANISER_KEY]
    assert main(["tournament", "create", *organiser, "--name", "cli", "--seats", "2",
                 "--entrant", cleo, "--entrant", "bot:greedy", "--boards", "2",
                 "--option", "turn_limit_per_seat=4", "--turn-timeout", "10"]) == 0
    created = capsys.readouterr().out
    tournament_id = created.split()[1].rstrip(":")
    assert tournament_id.startswith("tn_") and "4 tables planned" in created
    token = gateway.tokens.issue(agent_id=cleo, name=cleo, scopes={f"game:{GAME}"}).token
    assert main(["play", *server, "--token", token, "--tournament", tournament_id,
                 "--poll-wait", "2", "--quiet"]) == 0
    played = capsys.readouterr().out
    assert played.count("table ") >= 4 and "4 tables played" in played
    assert main(["tournament", "status", *server, tournament_id, "--once"]) == 0
    status = capsys.readouterr().out
    assert "4/4 done, 0 running, 0 waiting (finished)" in status and "greedy bot" in status
    assert main(["tournament", "report", *server, tournament_id, "--out", str(tmp_path)]) == 0
    markdown = (tmp_path / f"{tournament_id}.md").read_text(encoding="utf-8")
    assert markdown.strip() and markdown in capsys.readouterr().out
    assert json.loads((tmp_path / f"{tournament_id}.json").read_text(encoding="utf-8"))["fit"]
    assert main(["tournament", "export", *organiser, tournament_id, "--out", str(tmp_path)]) == 0
    bundle_path = tmp_path / f"{tournament_id}.bundle.json.gz"
    assert "4 results, 4 replays" in capsys.readouterr().out
    assert main(["tournament", "verify", str(bundle_path)]) == 0
    assert "everything matches" in capsys.readouterr().out
    bundle = json.loads(gzip.decompress(bundle_path.read_bytes()))
    assert [result["index"] for result in bundle["results"]] == [0, 1, 2, 3]
    assert bundle["report"]["method"]["seed"] == 0 and bundle["software"]["gateway"]
    # A result that its replay does not reach, and a fit that is not the data's, are caught.
    tampered = json.loads(json.dumps(bundle))
    # Reversed, unless that reads the same (a drawn table): then a strict order instead.
    placed = tampered["results"][0]["placements"]
    tampered["results"][0]["placements"] = (
        placed[::-1] if placed[::-1] != placed else list(range(1, len(placed) + 1)))
    tampered["report"]["fit"][0]["strength"] += 0.5
    (tmp_path / "tampered.json.gz").write_bytes(gzip.compress(json.dumps(tampered).encode()))
    assert main(["tournament", "verify", str(tmp_path / "tampered.json.gz")]) == 1
    told = capsys.readouterr().out
    assert f"table {bundle['results'][0]['table_id']}: the replay ends" in told
    assert "fit: " in told
    # A file that is not a bundle at all is told as such (exit 2), not a traceback.
    (tmp_path / "junk.json.gz").write_bytes(b"not gzip")
    truncated = gzip.compress(json.dumps({"format": bundle["format"]}).encode())
    (tmp_path / "truncated.json.gz").write_bytes(truncated)
    for unreadable in ("junk.json.gz", "truncated.json.gz", "missing.json.gz"):
        assert main(["tournament", "verify", str(tmp_path / unreadable)]) == 2
        assert "is not a readable bundle" in capsys.readouterr().err
    if importlib.util.find_spec("matplotlib") is not None:
        assert (tmp_path / f"{tournament_id}.png").read_bytes().startswith(b"\x89PNG")
