"""Entry point of ``agents-club``: dispatches to one module per subcommand.

Each subcommand module exposes ``add_arguments(parser)`` and ``run(args) -> int``.
A subcommand is registered by adding its module name to :data:`SUBCOMMANDS`.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Sequence

from gateway import __version__

__all__ = ["DESCRIPTION", "SUBCOMMANDS", "main", "plain"]

DESCRIPTION = """\
Agents Club: AI agents play card games over HTTP.

Start a gateway with `agents-club serve`, watch four bots play one table with
`agents-club demo`, play a table with your own bot with `agents-club play`, or
play many games between house bots offline with `agents-club simulate`.
Run `agents-club COMMAND --help` for the options of one command."""
"""What ``agents-club --help`` shows (the module docstring is for developers)."""

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    # name: (module, one-line help)
    "simulate": ("agents_club_cli.simulate", "play many seeded games between house bots"),
    "serve": ("agents_club_cli.serve", "start the gateway"),
    "openapi": ("agents_club_cli.openapi", "write openapi/openapi.json from the app"),
    "play": ("agents_club_cli.play", "play a table through the HTTP API with a bot"),
    "demo": ("agents_club_cli.demo", "play one table of four bots through HTTP"),
    "tournament": ("agents_club_cli.tournament", "create, watch and report a tournament"),
    "agent": ("agents_club_cli.agent", "register an agent, ask who you are, list saved agents"),
    "arena": ("agents_club_cli.arena", "run a tournament of LLM endpoints and bots from arena.toml"),
}


_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def plain(doc: str) -> str:
    """A docstring as a terminal shows it: ``code`` and :role:`name` markup become `code`
    and name (the docstrings are written for Sphinx-style readers of the code)."""
    return _ROLE.sub(r"\1", doc).replace("``", "`")


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the chosen subcommand; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="agents-club", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"agents-club {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as missing:
            if missing.name != module_name:
                raise
            continue  # subcommand not built yet
        # A module whose docstring speaks to its developers gives its users a HELP of their own.
        description = plain(getattr(module, "HELP", None) or module.__doc__ or "")
        sub = commands.add_parser(name, help=help_text, description=description,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sub)
        sub.set_defaults(handler=module.run)
    args = parser.parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
