"""Watch four bots play one table through the public API, from nothing.

    agents-club demo                                   # its own gateway, embedded Redis
    agents-club demo --bots greedy,random,random,random --seed 7
    agents-club demo --server http://127.0.0.1:8000    # a local server: its key file in .data
    agents-club demo --server https://example.org --organiser-key "$KEY"

Without ``--server`` the demo starts ``agents-club serve`` as a subprocess on
a free port, with an embedded Redis in a temporary data directory, and stops
it at the end. With ``--server``, the organiser key is found as ``agents-club
play`` finds it: ``--organiser-key``, ``AGENTS_CLUB_ORGANISER_KEY``, or the
``organiser-key`` file a local server wrote into ``--data-dir``. Each bot gets its own token and plays its seat with
the SDK's runner, exactly as an outside bot would (over the bot socket,
HTTP where the server offers none); the demo itself follows the table
as a spectator (Server-Sent Events), printing every public event, and ends
with the spectator's summary of the final position and the result.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agents import AgentsClubError, Client, HouseBot
from agents.runner import GameResult, Runner
from agents_club_cli.embedded_redis import free_port
from agents_club_cli.failures import failure_lines
from agents_club_cli.organiser_key import KEY_ENV, default_data_dir, find_organiser_key
from agents_club_cli.play import PREFERRED_MODES, parse_options
from agents_club_cli.serve import wait_until_ready

__all__ = ["add_arguments", "run"]

DEFAULT_BOTS = "greedy,random,greedy,random"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--server", default=None, help="use this gateway instead of starting one")
    parser.add_argument("--organiser-key", default=os.environ.get(KEY_ENV),
                        help=f"the --server's organiser key (default ${KEY_ENV} or the key file in --data-dir)")
    parser.add_argument("--data-dir", type=Path, default=default_data_dir(),
                        help="where a local --server keeps its organiser-key file (default $AGENTS_CLUB_DATA_DIR "
                        "or .data)")  # fmt: skip
    parser.add_argument("--game", default="market-fortune", help="game (default market-fortune)")
    parser.add_argument("--mode", default=None, help="mode (default family for Market Fortune, else the first)")
    parser.add_argument("--bots", default=DEFAULT_BOTS,
                        help=f"one house bot per seat, comma separated (default {DEFAULT_BOTS})")
    parser.add_argument("--seed", type=int, default=None, help="fix the deal")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="game option, the value read as JSON (repeatable)")
    parser.add_argument("--startup-timeout", type=float, default=60.0,
                        help="seconds to wait for the embedded gateway (default 60)")


def run(args: argparse.Namespace) -> int:
    """Start (or reach) a gateway, play the table, print it; 0 when the table finished."""
    bots = [name.strip() for name in args.bots.split(",") if name.strip()]
    if len(bots) < 2:
        print("agents-club demo: --bots needs at least two bots", file=sys.stderr)
        return 2
    try:
        options = parse_options(args.option)
        with _gateway(args) as (base_url, organiser_key):
            return _play(args, base_url, organiser_key, bots, options)
    except (ValueError, RuntimeError) as failure:
        print(f"agents-club demo: {failure}", file=sys.stderr)
        return 2
    except AgentsClubError as failure:
        print("\n".join(failure_lines("demo", failure)), file=sys.stderr)
        return 1


def _play(args: argparse.Namespace, base_url: str, organiser_key: str, bots: list[str],
          options: dict[str, object]) -> int:  # fmt: skip
    run_id = uuid.uuid4().hex[:6]
    players: list[Client] = []
    try:
        for seat, bot in enumerate(bots):
            client = Client(base_url)
            token = client.organiser_token(f"demo-{run_id}-{seat}-{bot}"[:32], games=[args.game],
                                           organiser_key=organiser_key)  # fmt: skip
            client.token = token.access_token
            players.append(client)
        game = next((g for g in players[0].games().games if g.name == args.game), None)
        if game is None:
            raise ValueError(f"no game {args.game!r} on {base_url}")
        mode = args.mode or PREFERRED_MODES.get(game.name) or game.modes[0].name
        # The organiser opens the table: only it may choose the seed of a table several
        # agents share (whoever knows a seed knows every hidden card).
        with Client(base_url) as organiser:
            organiser.token = organiser.organiser_token(
                f"demo-{run_id}-organiser", organiser_key=organiser_key, kind="organiser",
            ).access_token
            table = organiser.create_table(game.name, mode, len(bots), options=options,
                                           seed=args.seed, join=False)  # fmt: skip
        for client in players:
            client.join(table.id)
        print(f"{game.title} ({mode}), table {table.id} at {base_url}")
        for seat, bot in enumerate(bots):
            print(f"  seat {seat}: {bot} bot")
        results: dict[int, GameResult | BaseException] = {}
        threads = [
            threading.Thread(target=_play_seat, args=(client, HouseBot(bot), table.id, results, seat),
                             name=f"seat-{seat}", daemon=True)
            for seat, (client, bot) in enumerate(zip(players, bots, strict=True))
        ]
        for thread in threads:
            thread.start()
        with Client(base_url) as spectator:
            for event in spectator.events(table.id, mode="sse"):
                print(f"  [{event.id}] {event.text}")
            for thread in threads:
                thread.join(timeout=60)
            failures = {seat: error for seat, error in results.items() if isinstance(error, BaseException)}
            if failures:
                for seat, error in failures.items():
                    print(f"seat {seat} stopped: {error!r}", file=sys.stderr)
                return 1
            final = spectator.observe(table.id)
        print("\nSpectator summary:")
        print(final.summary)
        outcome = final.outcome
        if outcome is not None:
            winners = ", ".join(f"seat {seat} ({bots[seat]})" for seat in outcome.winners) or "nobody"
            print(f"\nResult ({outcome.reason}): {winners} won. {outcome.text}".rstrip())
        return 0 if final.status == "finished" else 1
    finally:
        for client in players:
            client.close()


def _play_seat(client: Client, bot: HouseBot, table_id: str,
               results: dict[int, GameResult | BaseException], seat: int) -> None:  # fmt: skip
    try:
        results[seat] = Runner(client, bot, printer=None).play(table_id)
    except BaseException as error:  # reported by the main thread, which owns the output
        results[seat] = error


@contextmanager
def _gateway(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """The gateway to use and its organiser key: ``--server``, or a fresh embedded one."""
    if args.server:
        key = find_organiser_key(args.organiser_key, args.data_dir)
        if key is None:
            raise ValueError(f"--server needs the organiser key: --organiser-key, ${KEY_ENV}, or the "
                             f"organiser-key file of a local server in --data-dir (looked in {args.data_dir})")  # fmt: skip
        yield args.server.rstrip("/"), key
        return
    with tempfile.TemporaryDirectory(prefix="agents-club-demo-") as scratch:
        data_dir = Path(scratch)
        port = free_port()
        environment = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
        environment.update({"AGENTS_CLUB_ENVIRONMENT": "development", "AGENTS_CLUB_DATA_DIR": str(data_dir)})
        environment.pop("AGENTS_CLUB_ORGANISER_KEY", None)  # the demo server makes its own
        log_path = data_dir / "serve.log"
        with log_path.open("wb") as log:
            server = subprocess.Popen(
                [sys.executable, "-m", "agents_club_cli.main", "serve", "--port", str(port),
                 "--data-dir", str(data_dir)],
                stdout=log, stderr=subprocess.STDOUT, env=environment,
            )  # fmt: skip
            try:
                base_url = f"http://127.0.0.1:{port}"
                wait_until_ready(base_url, server, args.startup_timeout, log_path=log_path)
                key = find_organiser_key(None, data_dir)
                if key is None:
                    raise RuntimeError(f"the embedded gateway wrote no organiser key into {data_dir}")
                print(f"embedded gateway on {base_url} (Redis in {data_dir})")
                yield base_url, key
            finally:
                server.terminate()  # serve stops uvicorn, then its embedded Redis
                try:
                    server.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()


