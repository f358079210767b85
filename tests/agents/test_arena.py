"""``agents-club arena run``: a whole tournament of local LLM endpoints from one file.

The entrants' endpoints are real HTTP servers on 127.0.0.1 (:mod:`llm_stub_server`),
the gateway is the real app on a real Redis; a guard refuses any connection that
would leave the machine.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from agents import Bot, Observation
from agents_club_cli.arena_usage import usage_of
from agents_club_cli.main import main
from tests.agents.conftest import ORGANISER_KEY, RunningGateway
from tests.agents.llm_stub_server import PROMPT_TOKENS, StubLlm, serving

ROOT = Path(__file__).resolve().parents[2]


class LastLegal(Bot):
    """A bot class entrant: always the last legal action."""

    def choose(self, observation: Observation) -> str:
        return observation.legal_actions[-1].id


@pytest.fixture()
def local_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse every socket connection that is not to this machine."""
    connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        if isinstance(address, tuple) and address[0] not in ("127.0.0.1", "::1", "localhost"):
            raise AssertionError(f"a connection would leave the machine: {address}")
        return connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


def _arena_toml(path: Path, entrants: list[str], *, boards: int, turns: int,
                limits: str = "") -> Path:
    path.write_text(f"""
[tournament]
name = "stub arena"
game = "market-fortune"
mode = "family"
seats = 2
format = "duplicate"
boards = {boards}
options = {{ turn_limit_per_seat = {turns} }}
turn_timeout_s = 30
max_concurrent_tables = 8

[limits]
max_retries = 1
request_timeout_s = 10
{limits}

[prices."stub-first"]
input_per_million = 1.0
output_per_million = 4.0
currency = "EUR"

{"".join(entrants)}
""", encoding="utf-8")
    return path


def _llm(stub: StubLlm, model: str, extra: str = "") -> str:
    return (f'[[entrants]]\nname = "{stub.agent_name}"\nendpoint = "{stub.url}"\n'
            f'model = "{model}"\napi_key_env = "STUB_LLM_KEY"\n{extra}\n\n')


HOUSE_GREEDY = '[[entrants]]\nhouse = "greedy"\n\n'


@pytest.fixture()
def stubs(gateway: RunningGateway, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, StubLlm]]:
    """Four endpoints with different policies, one of them dead, each for a fresh agent name."""
    monkeypatch.setenv("STUB_LLM_KEY", "local-test-key")
    tag = uuid.uuid4().hex[:6]
    with ExitStack() as stack:
        yield {policy: stack.enter_context(serving(StubLlm(gateway, f"{policy}-{tag}", policy)))
               for policy in ("first", "last", "random", "dead")}


def test_one_command_runs_a_four_entrant_arena_to_a_verified_bundle(
    gateway: RunningGateway, stubs: dict[str, StubLlm], local_only: None, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = _arena_toml(tmp_path / "arena.toml", [
        _llm(stub, f"stub-{policy}") for policy, stub in stubs.items()], boards=2, turns=3)
    code = main(["arena", "run", str(config), "--server", gateway.base_url,
                 "--organiser-key", ORGANISER_KEY, "--interval", "0.2", "--poll-wait", "2"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    dead = stubs["dead"].agent_name
    assert f"entrant {dead} stops and forfeits its tables (endpoint dead)" in out
    # The progress: one line per change (not a terminal), the bar ending full.
    bars = [line for line in out.splitlines() if line.startswith("[")]
    assert len(bars) == len(set(bars)) and bars[-1].startswith(f"[{'#' * 30}] ")
    state = json.loads((tmp_path / "arena.state.json").read_text())
    tournament_id = state["tournament_id"]
    assert (os.stat(tmp_path / "arena.state.json").st_mode & 0o777) == 0o600
    folder = tmp_path / "arena"
    bundle = folder / f"{tournament_id}.bundle.json.gz"
    assert {path.name for path in folder.iterdir()} >= {
        f"{tournament_id}.md", f"{tournament_id}.json", f"{tournament_id}.png", bundle.name}
    # The bundle verifies: every table replays, forfeits included.
    assert main(["tournament", "verify", str(bundle)]) == 0
    assert "everything matches" in capsys.readouterr().out
    # The dead entrant forfeited every table it was given, and placed last at each.
    ids = {name: fields["agent_id"] for name, fields in state["agents"].items()}
    results = json.loads(gzip.decompress(bundle.read_bytes()))["results"]
    theirs = [result for result in results if ids[dead] in result["seating"]]
    forfeits = len(theirs)
    assert bars[-1].startswith(f"[{'#' * 30}] {len(results)}/{len(results)} done")
    assert forfeits >= 2 and all(result["reason"] == "forfeit" for result in theirs)
    assert f"{dead}: endpoint dead, {forfeits} tables forfeited: the endpoint failed 1 decision" in err
    assert all(result["placements"][result["seating"].index(ids[dead])] == 2 for result in theirs)
    assert all(result["reason"] != "forfeit" for result in results if result not in theirs)
    # Asked twice per failed decision (one retry); once it is dead its later tables are
    # forfeited without asking it again.
    asks = stubs["dead"].failures // 2
    assert asks >= 1 and stubs["dead"].failures == 2 * asks
    # Every entrant's cost line, in the JSON and the Markdown.
    report = json.loads((folder / f"{tournament_id}.json").read_text())
    for policy, stub in stubs.items():
        cost = report["cost"][ids[stub.agent_name]]
        assert cost["model"] == f"stub-{policy}" and cost["kind"] == "llm"
        if policy == "dead":
            assert (cost["status"], cost["forfeited_tables"], cost["fallbacks"]) == (
                "endpoint dead", forfeits, 0)
            assert cost["failed_requests"] == asks and cost["decisions"] == 0
        else:
            assert cost["status"] == "played" and cost["forfeited_tables"] == 0
            assert cost["decisions"] == stub.turns and cost["fallbacks"] == 0
        # admission (3 questions and the puzzle) plus every turn, 100 tokens in each
        assert cost["requests"] == 4 + (0 if policy == "dead" else stub.turns)
        assert cost["prompt_tokens"] == PROMPT_TOKENS * cost["requests"]
        assert (cost["money"] is not None) == (policy == "first")
    first = report["cost"][ids[stubs["first"].agent_name]]
    assert first["money"] == pytest.approx(
        (first["prompt_tokens"] * 1.0 + first["completion_tokens"] * 4.0) / 1e6)
    markdown = (folder / f"{tournament_id}.md").read_text()
    section = markdown[markdown.index("## Cost and latency"):]
    for stub in stubs.values():
        assert f"| {stub.agent_name}" in section, section
    assert f"| {dead} (endpoint dead) | 400 | 40 | – | 4 + {asks} failed (0) | 0 | 0 | {forfeits} |" in section


@pytest.mark.parametrize(("budget", "spent"), [
    ("budget_tokens = 500", "its token budget is spent (550 of 500 tokens)"),
    ("budget_money = 0.00065", "its money budget is spent (0.0007 of 0.00065 EUR)"),
], ids=["tokens", "money"])
def test_an_entrant_that_spent_its_budget_stops_and_forfeits_its_tables(
    gateway: RunningGateway, stubs: dict[str, StubLlm], local_only: None, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], budget: str, spent: str,
) -> None:
    """Admission costs 4 replies of 110 tokens (0.00056 EUR at 1 + 4 EUR per million): the
    first decision takes the entrant past its budget, and the budget is checked before each
    decision, so the second one is never asked for. One table at a time keeps it exact."""
    stub = stubs["first"]
    config = _arena_toml(tmp_path / "arena.toml", [_llm(stub, "stub-first", budget), HOUSE_GREEDY],
                         boards=2, turns=3, limits="tables_per_entrant = 1")
    code = main(["arena", "run", str(config), "--server", gateway.base_url,
                 "--organiser-key", ORGANISER_KEY, "--interval", "0.2", "--poll-wait", "2"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    name = stub.agent_name
    assert f"entrant {name} stops and forfeits its tables (budget spent): {spent}" in out
    assert stub.turns == 1
    state = json.loads((tmp_path / "arena.state.json").read_text())
    tournament_id = state["tournament_id"]
    agent_id = state["agents"][name]["agent_id"]
    assert state["stopped"][name]["status"] == "budget spent"
    bundle = tmp_path / "arena" / f"{tournament_id}.bundle.json.gz"
    assert main(["tournament", "verify", str(bundle)]) == 0
    capsys.readouterr()
    # every table it was given, the one it had begun included, is forfeited, placing it last
    results = json.loads(gzip.decompress(bundle.read_bytes()))["results"]
    assert len(results) == 4 and all(agent_id in result["seating"] for result in results)
    assert all(result["reason"] == "forfeit" for result in results)
    assert all(result["placements"][result["seating"].index(agent_id)] == 2 for result in results)
    assert f"{name}: budget spent, 4 tables forfeited: {spent}" in err
    report = json.loads((tmp_path / "arena" / f"{tournament_id}.json").read_text())
    cost = report["cost"][agent_id]
    assert (cost["status"], cost["error"], cost["forfeited_tables"]) == ("budget spent", spent, 4)
    assert (cost["requests"], cost["decisions"], cost["fallbacks"]) == (5, 1, 0)
    assert (cost["prompt_tokens"], cost["completion_tokens"]) == (500, 50)
    assert cost["money"] == pytest.approx(0.0007) and cost["currency"] == "EUR"
    markdown = (tmp_path / "arena" / f"{tournament_id}.md").read_text()
    section = markdown[markdown.index("## Cost and latency"):]
    assert (f"| {name} (budget spent) | 500 | 50 | 0.0007 EUR | 5 + 0 failed (0) | 0 | 0 (0%) | 4 |"
            in section), section
    assert f"- {name}: {spent}" in section


def test_no_more_requests_reach_an_endpoint_at_once_than_its_limit(
    gateway: RunningGateway, stubs: dict[str, StubLlm], local_only: None, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Four tables played at once share two places at their endpoint: it sees two requests
    at once (the limit is reached) and never three."""
    stub = stubs["random"]
    stub.delay_s = 0.1  # long enough for the tables' requests to overlap
    config = _arena_toml(tmp_path / "arena.toml", [_llm(stub, "stub-random"), HOUSE_GREEDY],
                         boards=2, turns=3,
                         limits="requests_per_endpoint = 2\ntables_per_entrant = 4")
    code = main(["arena", "run", str(config), "--server", gateway.base_url,
                 "--organiser-key", ORGANISER_KEY, "--interval", "0.2", "--poll-wait", "2"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert stub.turns > 4 and stub.most_in_flight == 2


def test_a_killed_arena_resumes_where_it_stopped(
    gateway: RunningGateway, stubs: dict[str, StubLlm], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Killed mid-run (SIGKILL, nothing saved on the way out), the same command resumes the
    same tournament with the saved credentials and finishes it. Entrants of all three kinds:
    an LLM endpoint, a bot class and a house bot."""
    stub = stubs["random"]
    stub.delay_s = 0.02  # a run long enough to be killed in the middle
    config = _arena_toml(tmp_path / "arena.toml", [
        _llm(stub, "stub-random"),
        '[[entrants]]\nname = "last-bot-' + stub.agent_name + '"\n'
        'bot = "tests.agents.test_arena:LastLegal"\n\n',
        HOUSE_GREEDY], boards=3, turns=4)
    command = ["arena", "run", str(config), "--server", gateway.base_url,
               "--organiser-key", ORGANISER_KEY, "--interval", "0.1", "--poll-wait", "2"]
    first_run = subprocess.Popen(
        [sys.executable, "-m", "agents_club_cli.main", *command], cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    state_path = tmp_path / "arena.state.json"
    try:
        give_up = time.monotonic() + 60
        with gateway.client(ORGANISER_KEY) as client:
            while True:
                assert first_run.poll() is None, first_run.communicate()[0]
                assert time.monotonic() < give_up, "the first run never got going"
                saved = json.loads(state_path.read_text()) if state_path.exists() else {}
                if saved.get("tournament_id"):
                    progress = client.tournament(saved["tournament_id"]).progress
                    if progress.done >= 1:
                        break
                time.sleep(0.05)
            first_run.send_signal(signal.SIGKILL)
            first_run.wait(timeout=10)
            tournament_id = saved["tournament_id"]
            interrupted = client.tournament(tournament_id)
        assert interrupted.status == "running" and interrupted.progress.done < interrupted.progress.total
    finally:
        if first_run.poll() is None:
            first_run.kill()
        first_run.communicate()
    code = main(command)
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert f"resuming tournament {tournament_id}" in out and "admitted" not in out
    assert json.loads(state_path.read_text())["tournament_id"] == tournament_id
    bundle = tmp_path / "arena" / f"{tournament_id}.bundle.json.gz"
    assert main(["tournament", "verify", str(bundle)]) == 0
    results = json.loads(gzip.decompress(bundle.read_bytes()))["results"]
    assert len(results) == interrupted.progress.total
    assert all(result["reason"] != "forfeit" for result in results)
    # the cost counts the decisions of both runs, from the transcripts
    report = json.loads((tmp_path / "arena" / f"{tournament_id}.json").read_text())
    ids = {name: fields["agent_id"] for name, fields in json.loads(state_path.read_text())["agents"].items()}
    # (a reply the killed run received but never recorded is not counted: at most one
    # per request in flight when it died)
    decisions = report["cost"][ids[stub.agent_name]]["decisions"]
    assert stub.turns - 4 <= decisions <= stub.turns
    assert report["cost"]["bot:greedy"]["kind"] == "house"


def test_a_record_cut_short_by_a_crash_is_not_counted(tmp_path: Path) -> None:
    decision = {"kind": "decision", "via": "model", "requests": 1, "prompt_tokens": 100,
                "completion_tokens": 10}
    (tmp_path / "table-1.jsonl").write_text(
        json.dumps(decision) + "\n" + json.dumps(decision)[:30], encoding="utf-8")
    usage = usage_of(tmp_path)
    assert (usage.decisions, usage.requests, usage.prompt_tokens) == (1, 1, 100)


def test_a_bad_arena_file_is_refused_with_the_reason(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "arena.toml"
    config.write_text('[tournament]\ngame = "market-fortune"\nmode = "family"\nseats = 2\n'
                      '[[entrants]]\nname = "a"\nhouse = "greedy"\n'
                      '[[entrants]]\nname = "b"\nendpoint = "http://127.0.0.1:9/v1"\n'
                      'model = "m"\nbudget_money = 1.0\n', encoding="utf-8")
    assert main(["arena", "run", str(config)]) == 2
    assert "money budget but [prices] has no price for its model 'm'" in capsys.readouterr().err
    config.write_text('[tournament]\ngame = "market-fortune"\nmode = "family"\nseats = 2\n'
                      'boards = "four"\n', encoding="utf-8")
    assert main(["arena", "run", str(config)]) == 2
    assert "tournament.boards: Input should be a valid integer, got 'four'" in capsys.readouterr().err
    config.write_text('[tournament]\ngame = "market-fortune"\nmode = "family"\nseats = 2\n'
                      'duplicate_form = "sideways"\n', encoding="utf-8")
    assert main(["arena", "run", str(config)]) == 2
    assert "tournament.duplicate_form: Input should be" in capsys.readouterr().err
    config.write_text('[tournament]\ngame = "market-fortune"\nmode = "family"\n',
                      encoding="utf-8")
    assert main(["arena", "run", str(config)]) == 2
    assert "tournament.seats: Field required" in capsys.readouterr().err
