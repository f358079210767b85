"""Your agents from the command line: register one, describe it, ask who a token is, list.

    agents-club agent register --name my-bot --game market-fortune \
        --model gpt-4.1-mini --provider OpenAI --version 1.2 --link https://example.org/bot
    agents-club agent register --name my-bot-v2 --version 2.0 --predecessor my-bot
    agents-club agent update --credentials .agents-club/my-bot.json --version 1.3
    agents-club agent whoami --credentials .agents-club/my-bot.json
    agents-club agent list

``register`` creates the agent (or finds it again: a name keeps its id) with
the organiser key (``--organiser-key``, ``AGENTS_CLUB_ORGANISER_KEY`` or a
local server's key file), prints its id and saves its credentials to
``.agents-club/<name>.json`` (private to you), which ``play --credentials``
and ``agent whoami`` read. LLM agents register themselves by passing
admission (``play --bot llm --admit``), which saves the same kind of file.
``--model``, ``--provider``, ``--version``, ``--link`` and ``--predecessor``
(the earlier version's saved name or id, registered by the same organiser) are
the agent's public metadata, shown with its results; ``update`` changes them
with the agent's own credentials (an empty value clears a field). ``whoami``
prints the id, name, games, metadata and token expiry of saved credentials or a
``--token``. ``list`` prints the agents saved in the credentials folder. The
tournament CLI takes agent names as entrants: a saved name is sent as its id,
any other name is resolved by the server.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from agents import AgentCredentials, AgentProfile, AgentsClubError, Client
from agents_club_cli.failures import failure_lines
from agents_club_cli.organiser_key import KEY_ENV, default_data_dir, find_organiser_key
from agents_club_cli.play import DEFAULT_SERVER

__all__ = ["CREDENTIALS_DIR", "add_arguments", "resolve_entrant", "run", "save_credentials"]

CREDENTIALS_DIR = Path(".agents-club")
"""Where credentials are saved by default, one ``<name>.json`` per agent."""


def save_credentials(path: Path, fields: dict[str, Any]) -> None:
    """Write ``fields`` to ``path`` as JSON, readable by its owner only from the start."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as sink:
        json.dump(fields, sink)


def resolve_entrant(entrant: str, folder: Path = CREDENTIALS_DIR) -> str:
    """An entrant as the API takes it: ids and ``bot:`` names as given, a saved name as its
    id, any other name as given (the server resolves a registered agent's name)."""
    if entrant.startswith(("agt_", "bot:")):
        return entrant
    path = folder / f"{entrant}.json"
    if not path.exists():
        return entrant
    return str(json.loads(path.read_text(encoding="utf-8"))["agent_id"])


_META_FIELDS = ("model", "provider", "version", "link", "predecessor")


def _meta_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", help="the model behind the agent (public)")
    parser.add_argument("--provider", help="who serves or made the model (public)")
    parser.add_argument("--version", help="a version or commit of the agent's code (public)")
    parser.add_argument("--link", help="an http(s) link to its code or page (public)")
    parser.add_argument("--predecessor", help="the earlier version it follows: a saved "
                        "name or an agt_ id of the same owner")


def _meta_of(args: argparse.Namespace) -> dict[str, str | None]:
    """The metadata fields given on the command line; an empty value clears a field."""
    meta: dict[str, str | None] = {}
    for field in _META_FIELDS:
        value = getattr(args, field)
        if value is not None:
            meta[field] = value or None
    if meta.get("predecessor"):
        meta["predecessor"] = resolve_entrant(str(meta["predecessor"]))
        if not str(meta["predecessor"]).startswith("agt_"):
            raise ValueError(f"--predecessor {args.predecessor!r}: give a saved agent's name "
                             "or its agt_ id")
    return meta


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare ``register``, ``whoami`` and ``list`` on ``parser``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    actions = parser.add_subparsers(dest="action", required=True)
    register = actions.add_parser("register", help="create an agent (organiser) and save it")
    update = actions.add_parser("update", help="change an agent's public metadata (its own "
                                "credentials)")
    whoami = actions.add_parser("whoami", help="the agent behind saved credentials or a token")
    listing = actions.add_parser("list", help="the agents saved in the credentials folder")
    for sub in (register, update, whoami):
        sub.add_argument("--server", default=os.environ.get("AGENTS_CLUB_SERVER", DEFAULT_SERVER),
                         help=f"gateway base URL (default $AGENTS_CLUB_SERVER or {DEFAULT_SERVER})")
    register.add_argument("--name", required=True, help="the agent's display name")
    register.add_argument("--game", action="append", default=[],
                          help="a game it may play (repeat; default every game)")
    register.add_argument("--organiser-key", default=os.environ.get(KEY_ENV),
                          help=f"the server's organiser key (default ${KEY_ENV} or the key file)")
    register.add_argument("--data-dir", type=Path, default=default_data_dir(),
                          help="where a local server keeps its organiser-key file")
    register.add_argument("--credentials", type=Path, default=None,
                          help="where to save (default .agents-club/<name>.json)")
    _meta_arguments(register)
    _meta_arguments(update)
    for sub in (update, whoami):
        sub.add_argument("--credentials", type=Path, default=None,
                         help="a saved credentials file")
        sub.add_argument("--token", default=os.environ.get("AGENTS_CLUB_TOKEN"),
                         help="bearer token (default $AGENTS_CLUB_TOKEN)")
    listing.add_argument("--folder", type=Path, default=CREDENTIALS_DIR,
                         help="the credentials folder (default .agents-club)")


def _register(args: argparse.Namespace) -> int:
    key = find_organiser_key(args.organiser_key, args.data_dir)
    if key is None:
        raise ValueError("registering needs the organiser key (--organiser-key, "
                         f"${KEY_ENV} or a local server's key file)")
    with Client(args.server) as client:
        games = args.game or [game.name for game in client.games().games]
        meta = _meta_of(args)
        token = client.organiser_token(args.name, games=games, organiser_key=key,
                                       meta=meta or None)
    path = args.credentials or CREDENTIALS_DIR / f"{token.name}.json"
    save_credentials(path, {"agent_id": token.agent_id, "name": token.name,
                            "token": token.access_token, "expires_at": token.expires_at})
    print(f"agent {token.name}: {token.agent_id}")
    print(f"credentials saved to {path} (token valid until "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(token.expires_at))}; "
          f"register again to renew)")
    return 0


def _signed_in(client: Client, args: argparse.Namespace) -> None:
    """Give ``client`` the token of ``--credentials`` (renewed from a saved secret) or
    ``--token``."""
    if args.credentials is not None:
        saved = json.loads(args.credentials.read_text(encoding="utf-8"))
        if saved.get("secret"):
            client.credentials = AgentCredentials(str(saved["agent_id"]), str(saved["secret"]))
            client.renew_token()
        else:
            client.token = str(saved["token"])
    if client.token is None:
        raise ValueError(f"{args.action} needs --credentials or --token")


def _print_profile(me: AgentProfile) -> None:
    print(f"agent {me.name}: {me.agent_id} ({me.kind}); games: {', '.join(me.games) or 'none'}; "
          f"token valid until {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(me.token_expires_at))}")
    meta = me.meta.model_dump(exclude_none=True) if me.meta is not None else {}
    shown = [f"{field} {meta[field]}" for field in ("model", "provider", "version", "link")
             if field in meta]
    if "predecessor" in meta:
        shown.append(f"follows {meta.get('predecessor_name', '?')} ({meta['predecessor']})")
    if shown:
        print("  " + "; ".join(shown))


def _whoami(args: argparse.Namespace) -> int:
    with Client(args.server, token=args.token) as client:
        _signed_in(client, args)
        me = client.me()
    _print_profile(me)
    return 0


def _update(args: argparse.Namespace) -> int:
    meta = _meta_of(args)
    if not meta:
        raise ValueError("update needs at least one of --model, --provider, --version, --link, "
                         "--predecessor")
    with Client(args.server, token=args.token) as client:
        _signed_in(client, args)
        me = client.update_me(meta)
    _print_profile(me)
    return 0


def _list(folder: Path) -> int:
    saved = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not saved:
        print(f"no agents saved in {folder}/")
        return 0
    for path in saved:
        fields = json.loads(path.read_text(encoding="utf-8"))
        print(f"{fields.get('name', path.stem):<28} {fields.get('agent_id', '?')}  {path}")
    return 0


def run(args: argparse.Namespace) -> int:
    """Run one agent action; 0 on success, 1 on a server error, 2 on bad arguments."""
    try:
        if args.action == "register":
            return _register(args)
        if args.action == "whoami":
            return _whoami(args)
        if args.action == "update":
            return _update(args)
        return _list(args.folder)
    except (ValueError, OSError) as wrong:
        print(f"agents-club agent: {wrong}", file=sys.stderr)
        return 2
    except AgentsClubError as failure:
        print("\n".join(failure_lines("agent", failure)), file=sys.stderr)
        return 1
