"""``agents-club --help``: what a user reads first."""

from __future__ import annotations

import importlib

import pytest

from agents_club_cli.main import SUBCOMMANDS, main, plain


def test_the_top_level_help_is_for_users(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    shown = capsys.readouterr().out
    assert "AI agents play card games over HTTP" in shown
    assert "add_arguments" not in shown and "SUBCOMMANDS" not in shown  # the developer note stays in the code
    assert all(f"agents-club {name}" in shown for name in ("serve", "demo", "play", "simulate"))
    assert set(SUBCOMMANDS) <= set(shown.split("{", 1)[1].split("}", 1)[0].split(","))


@pytest.mark.parametrize("command", ["serve", "play", "demo", "simulate", "openapi", "tournament"])
def test_each_command_help_is_for_users(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0
    shown = capsys.readouterr().out
    module = importlib.import_module(SUBCOMMANDS[command][0])
    first_line = plain(getattr(module, "HELP", None) or module.__doc__ or "").splitlines()[0]
    assert first_line and first_line in shown  # the command's own description, not only usage
    # No module paths or Sphinx markup meant for the code's readers.
    assert ":mod:" not in shown and ":func:" not in shown and "``" not in shown
    assert "create_app" not in shown
