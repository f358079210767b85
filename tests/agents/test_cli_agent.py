"""``agents-club agent register | update | whoami | list``, and agent names as tournament
entrants."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import pytest

from agents_club_cli.main import main
from tests.agents.conftest import ORGANISER_KEY, RunningGateway


def test_register_prints_and_saves_the_id_whoami_and_list_read_it_back(
    gateway: RunningGateway, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    server = ["--server", gateway.base_url]
    name = f"Dora{str(time.monotonic_ns())[-6:]}"
    assert main(["agent", "register", *server, "--organiser-key", ORGANISER_KEY, "--name", name,
                 "--game", "market-fortune"]) == 0
    told = capsys.readouterr().out
    saved_path = tmp_path / ".agents-club" / f"{name}.json"
    saved = json.loads(saved_path.read_text(encoding="utf-8"))
    assert saved["agent_id"].startswith("agt_") and f"agent {name}: {saved['agent_id']}" in told
    assert stat.S_IMODE(saved_path.stat().st_mode) == 0o600
    # The same name again is the same agent.
    assert main(["agent", "register", *server, "--organiser-key", ORGANISER_KEY, "--name", name,
                 "--game", "market-fortune"]) == 0
    assert saved["agent_id"] in capsys.readouterr().out

    assert main(["agent", "whoami", *server, "--credentials", str(saved_path)]) == 0
    whoami = capsys.readouterr().out
    assert f"agent {name}: {saved['agent_id']} (agent); games: market-fortune" in whoami
    assert main(["agent", "list"]) == 0
    assert saved["agent_id"] in capsys.readouterr().out

    assert main(["tournament", "create", *server, "--organiser-key", ORGANISER_KEY,
                 "--name", "by name", "--seats", "2", "--entrant", name,
                 "--entrant", "bot:greedy", "--boards", "1"]) == 0
    tournament_id = capsys.readouterr().out.split()[1].rstrip(":")
    assert main(["tournament", "status", *server, "--organiser-key", ORGANISER_KEY,
                 tournament_id, "--once"]) == 0
    assert name in capsys.readouterr().out
    # A name saved nowhere here goes to the server, which knows registered names only.
    assert main(["tournament", "create", *server, "--organiser-key", ORGANISER_KEY,
                 "--seats", "2", "--entrant", "nobody-registered", "--entrant", "bot:greedy"]) == 1
    assert "nobody-registered" in capsys.readouterr().err


def test_register_and_update_set_metadata_and_a_new_version_follows_the_old(
    gateway: RunningGateway, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    server = ["--server", gateway.base_url]
    organiser = [*server, "--organiser-key", ORGANISER_KEY, "--game", "market-fortune"]
    name = f"Eve{str(time.monotonic_ns())[-6:]}"
    assert main(["agent", "register", *organiser, "--name", name, "--model", "greedy",
                 "--provider", "house", "--version", "1.0", "--link", "https://example.org/eve"]) == 0
    first = json.loads((tmp_path / ".agents-club" / f"{name}.json").read_text(encoding="utf-8"))
    # The next version: a new agent that follows the saved one, kept elsewhere.
    elsewhere = tmp_path / "v2.json"
    assert main(["agent", "register", *organiser, "--name", f"{name} v2", "--version", "2.0",
                 "--predecessor", name, "--credentials", str(elsewhere)]) == 0
    capsys.readouterr()
    assert main(["agent", "whoami", *server, "--credentials", str(elsewhere)]) == 0
    assert f"version 2.0; follows {name} ({first['agent_id']})" in capsys.readouterr().out
    assert main(["agent", "update", *server, "--credentials", str(elsewhere),
                 "--version", "2.1", "--model", "greedy-2"]) == 0
    assert "model greedy-2; version 2.1" in capsys.readouterr().out
    assert main(["agent", "update", *server, "--credentials", str(elsewhere), "--link",
                 "ftp://nope"]) == 1
    assert "request/invalid" in capsys.readouterr().err
    # The first version cannot follow its own successor.
    v2_id = json.loads(elsewhere.read_text(encoding="utf-8"))["agent_id"]
    assert main(["agent", "update", *server, "--credentials",
                 str(tmp_path / ".agents-club" / f"{name}.json"), "--predecessor", v2_id]) == 1
    assert "agent/invalid_predecessor" in capsys.readouterr().err
    # Its name, saved nowhere here, is resolved by the server.
    assert main(["tournament", "create", *organiser[:4], "--name", "v2", "--seats", "2",
                 "--entrant", f"{name} v2", "--entrant", "bot:greedy", "--boards", "1"]) == 0
    assert "tables planned" in capsys.readouterr().out
