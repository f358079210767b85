"""``agents-club play``, the example bot and ``agents-club demo``, run as a user would."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from agents_club_cli.main import main

if TYPE_CHECKING:
    from tests.agents.conftest import RunningGateway

ROOT = Path(__file__).resolve().parents[2]


def test_play_opens_a_table_with_house_bots_and_plays_it_to_the_end(
    gateway: RunningGateway, short_game: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([
        "play", "--server", gateway.base_url, "--organiser-key", str(gateway.settings.organiser_key),
        "--bot", "random", "--new", str(short_game["seats"]), "--game", short_game["game"],
        "--mode", short_game["mode"], "--option", "turn_limit_per_seat=6", "--seed", "4",
    ])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0
    assert printed.startswith("playing table ")
    assert "> seat 0 plays " in printed and "Every seat is taken" in printed
    *_, result_line, times = printed.rstrip().splitlines()
    assert result_line.startswith("table ") and " finished (" in printed
    # the gateway's clock of each agent seat's decisions closes the report
    assert re.fullmatch(r"Decision times \(gateway clock, from being asked to the action\): seat 0: "
                        r"\d+ decisions?, mean \d+\.\d s, slowest \d+\.\d s", times), times


def test_play_joins_an_existing_table_with_a_token(
    gateway: RunningGateway, short_game: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    with gateway.client(gateway.mint(games=[short_game["game"]])) as host:
        table = host.create_table(
            **{**short_game, "options": {"turn_limit_per_seat": 4}}, join=False,
            house_bots=[{"seat": seat, "bot": "random"} for seat in range(1, short_game["seats"])],
        )
    code = main([
        "play", "--server", gateway.base_url, "--token", gateway.mint(games=[short_game["game"]]),
        "--bot", "random", "--table", table.id, "--quiet",
    ])  # fmt: skip
    assert code == 0
    assert re.fullmatch(rf"table {table.id}: (won|lost: (seats? \d+(?: and \d+)*|nobody) won) \(\w+\)\n",
                        capsys.readouterr().out)  # fmt: skip


def test_play_joins_and_resumes_a_private_table_by_its_id(
    gateway: RunningGateway, short_game: dict[str, Any], tmp_path: Path
) -> None:
    """A private table is hidden from anyone not seated, yet its id is the invitation.

    The creator sits at it when opening it, so ``play --table`` resumes its seat;
    an invitee who has only the id joins with ``play --table``, its token minted
    with the organiser key before the table's game can be known.
    """
    game = short_game["game"]
    creator = gateway.mint(games=[game])
    with gateway.client(creator) as host:
        table = host.create_table(
            **{**short_game, "options": {"turn_limit_per_seat": 4}}, private=True,
            house_bots=[{"seat": seat, "bot": "random"} for seat in range(2, short_game["seats"])],
        )  # fmt: skip
    assert table.private and table.your_seat == 0 and table.status == "open"
    play = [sys.executable, "-m", "agents_club_cli.main", "play", "--server", gateway.base_url,
            "--bot", "random", "--table", table.id, "--quiet"]  # fmt: skip
    # Both seats must be played at once: the table starts when the invitee sits down.
    resuming = subprocess.Popen([*play, "--token", creator], env=_environment(), cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    joining = subprocess.Popen(
        [*play, "--organiser-key", str(gateway.settings.organiser_key), "--name", "private-invitee"],
        env=_environment(), cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    finished = [process.communicate(timeout=120) for process in (resuming, joining)]
    for process, (out, err) in zip((resuming, joining), finished, strict=True):
        assert process.returncode == 0, out + err
        assert re.fullmatch(rf"table {table.id}: (won|lost: (seats? \d+(?: and \d+)*|nobody) won) \(\w+\)\n", out), out
    with gateway.client(creator) as host:
        ended = host.table(table.id)
    assert ended.status == "finished" and ended.seated[1] is not None
    assert ended.seated[1].name == "private-invitee"


def test_play_says_admission_at_a_private_table_needs_the_game(
    gateway: RunningGateway, short_game: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    with gateway.client(gateway.mint(games=[short_game["game"]])) as host:
        table = host.create_table(**short_game, private=True)
    code = main([
        "play", "--server", gateway.base_url, "--bot", "llm", "--llm-base-url", "https://llm.test/v1",
        "--model", "m", "--admit", "--table", table.id,
    ])  # fmt: skip
    assert code == 2
    assert "pass --game GAME" in capsys.readouterr().err


def test_play_prints_why_a_table_configuration_was_refused(
    gateway: RunningGateway, capsys: pytest.CaptureFixture[str]
) -> None:
    """The problem's generic detail, then each listed error (field: message)."""
    play = ["play", "--server", gateway.base_url, "--organiser-key", str(gateway.settings.organiser_key)]
    assert main([*play, "--new", "9"]) == 1
    refused = capsys.readouterr().err.splitlines()
    # The server's detail names the first reason; it is said once.
    assert refused == ["agents-club play: 422 table/invalid_config: The table configuration does not "
                       "fit this game (seats: Input should be less than or equal to 6)."]
    assert main([*play, "--new", "2", "--mode", "nosuch"]) == 1
    assert "(mode: Input should be " in capsys.readouterr().err
    assert main([*play, "--new", "2", "--option", "turn_limit_per_seat=abc"]) == 1
    assert "(turn_limit_per_seat: Input should be a valid integer" in capsys.readouterr().err


def test_play_refuses_bad_arguments_before_sitting_down(
    gateway: RunningGateway, capsys: pytest.CaptureFixture[str]
) -> None:
    token = gateway.mint(games=["market-fortune"])
    assert main(["play", "--server", gateway.base_url, "--token", token, "--bot", "genius", "--new", "2"]) == 2
    assert "no house bot 'genius'" in capsys.readouterr().err
    assert main(["play", "--server", gateway.base_url, "--token", token, "--bot", "random", "--admit", "--new", "2"]) == 2
    assert "--admit needs --bot llm" in capsys.readouterr().err
    assert main(["play", "--server", gateway.base_url, "--token", "not-a-token", "--bot", "random", "--new", "2"]) == 1
    assert "auth/invalid" in capsys.readouterr().err


def _environment(**extra: str) -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    environment.update(extra)
    return environment


def test_the_example_bot_runs_as_written(gateway: RunningGateway) -> None:
    token = gateway.mint(games=["market-fortune"])
    finished = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "prudent_investor.py")],
        env=_environment(AGENTS_CLUB_SERVER=gateway.base_url, AGENTS_CLUB_TOKEN=token),
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    assert "> seat 0 plays " in finished.stdout
    assert finished.stdout.rstrip().splitlines()[-1] in {"won", "lost"}


def test_the_example_class_plays_through_the_cli(gateway: RunningGateway, capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        code = main([
            "play", "--server", gateway.base_url, "--token", gateway.mint(games=["market-fortune"]),
            "--bot", "prudent_investor:PrudentInvestor", "--new", "2", "--option", "turn_limit_per_seat=12",
            "--seed", "7",  # a fixed deal: whether a pair shows up in a short game depends on it
        ])  # fmt: skip
    finally:
        sys.path.remove(str(ROOT / "examples"))
    assert code == 0
    assert "risk:" in capsys.readouterr().out


def test_the_default_agent_name_reads_well() -> None:
    from agents_club_cli.play import default_agent_name

    assert default_agent_name("greedy") == "greedy-player"
    assert default_agent_name("prudent_investor:PrudentInvestor") == "prudent-investor-player"
    assert default_agent_name("mybots.cautious:Cautious") == "cautious-player"
    assert default_agent_name("llm") == "llm-player"
    long = default_agent_name("bots:AVeryLongClassNameForAnAgentThatGoesOn")
    assert len(long) <= 32 and long.endswith("-player") and "--" not in long


def test_demo_starts_its_own_gateway_and_finishes_a_game(tmp_path: Path) -> None:
    """A real ``agents-club serve`` subprocess with an embedded Redis, four SDK bots over HTTP."""
    finished = subprocess.run(
        [sys.executable, "-m", "agents_club_cli.main", "demo", "--seed", "3",
         "--option", "turn_limit_per_seat=12"],
        env=_environment(TMPDIR=str(tmp_path)), capture_output=True, text=True, timeout=240, cwd=tmp_path,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stdout[-2000:] + finished.stderr[-2000:]
    out = finished.stdout
    assert "embedded gateway on http://127.0.0.1:" in out
    assert out.count("  seat ") >= 4 and "Every seat is taken" in out
    assert "Spectator summary:" in out and "\nResult (" in out
    assert "You drew" not in out  # the spectator never sees a private event


def test_demo_finds_a_local_servers_organiser_key_as_play_does(
    gateway: RunningGateway, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``demo --server`` without ``--organiser-key`` reads the key file in ``--data-dir``."""
    monkeypatch.delenv("AGENTS_CLUB_ORGANISER_KEY", raising=False)
    demo = ["demo", "--server", gateway.base_url, "--bots", "random,random", "--option", "turn_limit_per_seat=3"]
    assert main([*demo, "--data-dir", str(tmp_path)]) == 2
    assert f"looked in {tmp_path}" in capsys.readouterr().err
    (tmp_path / "organiser-key").write_text(f"{gateway.settings.organiser_key}\n", encoding="ascii")
    assert main([*demo, "--data-dir", str(tmp_path)]) == 0
    assert "\nResult (" in capsys.readouterr().out


def test_play_with_the_llm_agent_admits_then_plays(
    gateway: RunningGateway, scripted: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--bot llm --admit``: respx answers for the LLM host only; the gateway requests pass through."""
    import respx

    monkeypatch.setenv("AGENTS_CLUB_LLM_API_KEY", "test-key")
    credentials = tmp_path / "credentials.json"
    with respx.mock(assert_all_called=False) as mock:
        mock.post(f"{scripted.base_url}/chat/completions").mock(side_effect=scripted.reply)
        mock.route(host="127.0.0.1").pass_through()
        code = main([
            "play", "--server", gateway.base_url, "--bot", "llm", "--llm-base-url", scripted.base_url,
            "--model", "scripted-1", "--admit", "--name", scripted.agent_name, "--new", "2",
            "--option", "turn_limit_per_seat=4", "--transcripts", str(tmp_path / "transcripts"),
            "--credentials", str(credentials),
        ])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert f"admitted as {scripted.agent_name}" in printed and "score 3/3, puzzle solved" in printed
    assert (credentials.stat().st_mode & 0o777) == 0o600
    saved = json.loads(credentials.read_text())
    assert saved["agent_id"].startswith("agt_") and saved["secret"] not in printed
    transcripts = {path.name for path in (tmp_path / "transcripts").iterdir()}
    assert f"admission-{scripted.agent_name}.jsonl" in transcripts
    assert any(name.endswith("-seat0.jsonl") for name in transcripts) and len(transcripts) == 2
    # the end-of-game report: the gateway's decision times and the model's cost
    assert "Decision times (gateway clock, from being asked to the action): seat 0: " in printed
    cost = next(line for line in printed.splitlines() if line.startswith("LLM cost: "))
    counted = re.search(r"LLM cost: (\d+) decision", cost)
    assert counted is not None, cost
    decisions = int(counted.group(1))
    assert f"{100 * decisions} prompt + {10 * decisions} completion tokens" in cost, cost
    assert " s waiting for the model; decisions took " in cost
    # The saved credentials are enough to come back later, without a token or a quiz.
    code = main([
        "play", "--server", gateway.base_url, "--credentials", str(credentials), "--bot", "random",
        "--new", "2", "--option", "turn_limit_per_seat=3", "--quiet",
    ])  # fmt: skip
    assert code == 0
    assert capsys.readouterr().out.startswith("table ")


def test_play_admit_stops_with_a_clear_error_when_the_puzzle_answer_stays_unreadable(
    gateway: RunningGateway, scripted: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 36 point 5: an empty puzzle answer is asked again, never submitted as a guess;
    when the model keeps giving none, the command says so and exits 1."""
    import respx

    monkeypatch.setenv("AGENTS_CLUB_LLM_API_KEY", "test-key")
    scripted.puzzle_replies = ["No idea: {}"] * 4
    with respx.mock(assert_all_called=False) as mock:
        mock.post(f"{scripted.base_url}/chat/completions").mock(side_effect=scripted.reply)
        mock.route(host="127.0.0.1").pass_through()
        code = main([
            "play", "--server", gateway.base_url, "--bot", "llm", "--llm-base-url", scripted.base_url,
            "--model", "scripted-1", "--admit", "--name", scripted.agent_name, "--new", "2",
            "--transcripts", str(tmp_path / "transcripts"), "--credentials", str(tmp_path / "c.json"),
        ])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 1
    assert "agents-club play: admission stopped: the model gave no usable answer to the puzzle" in err
    assert "nothing was guessed" in err
    puzzle_asks = [m for m in scripted.requests if m[1]["content"].startswith("Admission puzzle:")]
    assert len(puzzle_asks) == 2  # asked, asked again, then stopped
