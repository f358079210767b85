"""Run a whole tournament of LLM endpoints, bot classes and house bots from one file.

    agents-club arena run arena.toml

reads ``arena.toml`` (:mod:`agents_club_cli.arena_config` shows every key) and,
in one command: registers each entrant (an LLM entrant passes admission itself
with its own model; a bot class is registered with the organiser key; a house
bot needs nothing), creates the tournament (organiser key from
``--organiser-key``, ``AGENTS_CLUB_ORGANISER_KEY`` or a local server's key
file), plays every entrant's tables at once (``tables_per_entrant`` each, at
most ``requests_per_endpoint`` chat requests in flight per endpoint, each
retried with exponential backoff), shows a progress bar (on a terminal one
redrawn line; elsewhere one line per change), and writes the report
(Markdown, JSON, PNG) and the bundle into the folder named after the file
(``arena.toml`` → ``arena/``), with every LLM transcript.

Run it again after a crash and it resumes: ``arena.state.json`` beside the
file keeps the agents' credentials and the tournament id, and each entrant
takes up its assigned tables where they stand.

An LLM entrant whose endpoint stops answering (``dead_after`` failed decisions
in a row, after the retries), or whose fallback share passes
``max_fallback_rate``, or whose token or money budget is spent, stops with an
error saying so and forfeits its tables (it places last at each; no fallback
moves are played in its name). A budget is checked before each decision, so it
can be passed by the decisions under way when it runs out: one per table the
entrant is playing (``tables_per_entrant`` at most). The report's cost section
gives every entrant's tokens, money, requests, refusals, fallbacks and forfeits
beside the gateway's decision times. Exit status: 0 when the tournament finished and everything was
written (forfeits included), 1 on a server or admission error (run again to
resume), 2 on a bad ``arena.toml``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents import AgentCredentials, AgentsClubError, Bot, Client, TableFinished, load_bot
from agents.llm import ChatClient, ChatError, EndpointDead, LlmAgent, Transcript, pass_admission
from agents.runner import Runner, Transport
from agents_club_cli.arena_config import ArenaConfig, ArenaError, EntrantSpec, load_config
from agents_club_cli.arena_state import ArenaState
from agents_club_cli.arena_usage import Budget, usage_of
from agents_club_cli.failures import failure_lines
from agents_club_cli.organiser_key import KEY_ENV, default_data_dir, find_organiser_key
from agents_club_cli.play import DEFAULT_SERVER
from agents_club_cli.tournament import progress_line
from tournament.report_cost import COST_NOTES, EntrantCost

if TYPE_CHECKING:
    from agents import Observation
    from agents.runner import GameResult

__all__ = ["add_arguments", "run"]

ENDPOINT_DEAD = "endpoint dead"
BUDGET_SPENT = "budget spent"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare ``run`` on ``parser``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    actions = parser.add_subparsers(dest="action", required=True)
    run_it = actions.add_parser("run", help="register, create, play, report and bundle; resumes")
    run_it.add_argument("config", type=Path, help="the arena file (arena.toml)")
    run_it.add_argument("--server", default=None,
                        help=f"gateway base URL (default: the file's server, $AGENTS_CLUB_SERVER "
                             f"or {DEFAULT_SERVER})")
    run_it.add_argument("--organiser-key", default=os.environ.get(KEY_ENV),
                        help=f"the server's organiser key (default ${KEY_ENV} or the key file)")
    run_it.add_argument("--data-dir", type=Path, default=default_data_dir(),
                        help="where a local server keeps its organiser-key file")
    run_it.add_argument("--interval", type=float, default=1.0,
                        help="seconds between looks at the progress (default 1)")
    run_it.add_argument("--poll-wait", type=float, default=20.0,
                        help="long-poll wait of the entrants' requests in seconds (default 20)")
    run_it.add_argument("--no-plot", action="store_true", help="skip the PNG")


class EntrantUnavailable(RuntimeError):
    """An entrant cannot be registered now (its endpoint failed during admission)."""


class _Stop(Exception):
    """An entrant must give up its tables: ``status`` and the reason."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status


@dataclass
class _BoundedChat(ChatClient):
    """A chat client that waits for a place at its endpoint before each request."""

    gate: threading.BoundedSemaphore | None = None

    def reply(self, messages: Any, *, tools: Any = None) -> Any:
        assert self.gate is not None
        with self.gate:
            return super().reply(messages, tools=tools)


class _Guarded(Bot):
    """The LLM agent of one table, stopped before a decision once its entrant has stopped
    elsewhere or spent its budget; each decision's cost goes to the budget."""

    def __init__(self, agent: LlmAgent, budget: Budget, stopped: Callable[[], _Stop | None]) -> None:
        self.agent = agent
        self.budget = budget
        self.stopped = stopped

    @property
    def tool_format(self) -> str | None:
        return self.agent.tool_format

    def choose(self, observation: Observation) -> str:
        halt = self.stopped()
        if halt is not None:
            raise halt
        spent = self.budget.spent()
        if spent is not None:
            raise _Stop(BUDGET_SPENT, spent)
        before = len(self.agent.costs)
        try:
            return self.agent.choose(observation)
        finally:
            self.budget.add(self.agent.costs[before:])

    def game_over(self, result: GameResult) -> None:
        self.agent.game_over(result)


class _Console:
    """Progress on one redrawn line on a terminal (one line per change elsewhere), with
    the entrants' news printed above it."""

    def __init__(self) -> None:
        self.live = sys.stdout.isatty()
        self.shown = ""
        self.lock = threading.Lock()

    def say(self, line: str) -> None:
        with self.lock:
            print(("\r\033[K" if self.live and self.shown else "") + line, flush=True)
            if self.live and self.shown:
                print(self.shown, end="", flush=True)

    def progress(self, line: str) -> None:
        with self.lock:
            if line == self.shown:
                return
            if self.live:
                print(f"\r\033[K{line}", end="", flush=True)
            else:
                print(line, flush=True)
            self.shown = line

    def done(self) -> None:
        if self.live and self.shown:
            print(flush=True)


class Arena:
    """One run of ``arena.toml`` against ``server`` (see the module docstring)."""

    def __init__(self, config: ArenaConfig, server: str, organiser_key: str | None,
                 console: _Console, poll_wait_s: float) -> None:
        self.config = config
        self.server = server
        self.organiser_key = organiser_key
        self.console = console
        self.poll_wait_s = poll_wait_s
        self.state = ArenaState.open(config, server)
        self.gates: dict[str, threading.BoundedSemaphore] = {}
        self.chats: dict[str, ChatClient] = {}
        self.chats_lock = threading.Lock()
        self.budgets: dict[str, Budget] = {}
        self.budgets_lock = threading.Lock()

    # ---- registration and creation ------------------------------------------------

    def transcripts(self, entrant: EntrantSpec) -> Path:
        return self.config.out_dir / "transcripts" / entrant.name

    def chat(self, entrant: EntrantSpec) -> ChatClient:
        """The entrant's one chat client (its admission and every table share it; httpx's
        client serves threads), made on first use and closed by :meth:`close`."""
        assert entrant.endpoint is not None and entrant.model is not None
        key = os.environ.get(entrant.api_key_env) if entrant.api_key_env else None
        if entrant.api_key_env and key is None:
            raise ArenaError(f"entrant {entrant.name!r}: ${entrant.api_key_env} is not set")
        with self.chats_lock:
            if entrant.name not in self.chats:
                gate = self.gates.setdefault(entrant.endpoint.rstrip("/"),
                                             threading.BoundedSemaphore(
                                                 self.config.limits.requests_per_endpoint))
                self.chats[entrant.name] = _BoundedChat(
                    base_url=entrant.endpoint, model=entrant.model, api_key=key or "",
                    timeout_s=self.config.limits.request_timeout_s,
                    max_retries=self.config.limits.max_retries, gate=gate)
            return self.chats[entrant.name]

    def close(self) -> None:
        """Close the entrants' chat clients."""
        with self.chats_lock:
            for chat in self.chats.values():
                chat.close()
            self.chats.clear()

    def organiser(self) -> str:
        if self.organiser_key is None:
            raise ArenaError("the arena needs the organiser key (--organiser-key, "
                             f"${KEY_ENV} or a local server's key file)")
        return self.organiser_key

    def register(self) -> None:
        """Give every agent entrant an agent id (kept in the state)."""
        game = str(self.config.tournament["game"])
        for entrant in self.config.entrants:
            if entrant.kind == "house" or entrant.name in self.state.agents:
                continue
            with Client(self.server) as client:
                if entrant.kind == "bot":
                    load_bot(str(entrant.bot))  # a wrong class fails before anything is created
                    token = client.organiser_token(entrant.name, games=[game],
                                                   organiser_key=self.organiser())
                    self.state.agents[entrant.name] = {"agent_id": token.agent_id}
                    self.console.say(f"registered {entrant.name}: {token.agent_id}")
                else:
                    transcript = Transcript(self.transcripts(entrant) / f"admission-{entrant.name}.jsonl")
                    try:
                        passed = pass_admission(client, self.chat(entrant), game=game,
                                                agent_name=entrant.name, transcript=transcript)
                    except ChatError as failed:
                        raise EntrantUnavailable(f"entrant {entrant.name!r} could not take admission: its "
                                         f"endpoint failed ({failed}); fix it or remove the "
                                         "entrant, then run again") from None
                    if passed.secret is None:
                        raise ArenaError(f"entrant {entrant.name!r}: the agent exists already and "
                                         "its secret is not in the state file; choose another name")
                    self.state.agents[entrant.name] = {"agent_id": passed.agent_id,
                                                       "secret": passed.secret}
                    self.console.say(f"admitted {entrant.name}: {passed.agent_id} (score "
                                     f"{passed.score.questions_correct}/"
                                     f"{passed.score.questions_total})")
            self.state.save()

    def entrant_id(self, entrant: EntrantSpec) -> str:
        return entrant.entrant_id or self.state.agents[entrant.name]["agent_id"]

    def create(self, client: Client) -> str:
        """The tournament's id: created now, or the one of an earlier run."""
        if self.state.tournament_id is None:
            settings = dict(self.config.tournament)
            created = client.create_tournament(
                str(settings.pop("name")), settings.pop("game"),
                settings.pop("mode"), settings.pop("seats"),
                [self.entrant_id(entrant) for entrant in self.config.entrants], **settings)
            self.state.tournament_id = created.id
            self.state.save()
            self.console.say(f"tournament {created.id}: {created.progress.total} tables planned")
        else:
            self.console.say(f"resuming tournament {self.state.tournament_id}")
        return self.state.tournament_id

    # ---- playing --------------------------------------------------------------------

    def agent_client(self, entrant: EntrantSpec) -> Client:
        client = Client(self.server)
        saved = self.state.agents[entrant.name]
        try:
            if "secret" in saved:
                client.credentials = AgentCredentials(saved["agent_id"], saved["secret"])
                client.renew_token()
            else:
                client.token = client.organiser_token(
                    entrant.name, games=[str(self.config.tournament["game"])],
                    organiser_key=self.organiser()).access_token
        except BaseException:
            client.close()
            raise
        return client

    def halted(self, entrant: EntrantSpec) -> _Stop | None:
        stopped = self.state.stopped.get(entrant.name)
        return _Stop(stopped.status, stopped.error) if stopped is not None else None

    def give_up(self, entrant: EntrantSpec, client: Client, table_id: str, stop: _Stop) -> None:
        """Stop ``entrant`` (said once) and forfeit ``table_id``."""
        if self.state.stop(entrant.name, stop.status, str(stop)):
            self.console.say(f"entrant {entrant.name} stops and forfeits its tables "
                             f"({stop.status}): {stop}")
        try:
            client.close_table(table_id)
        except TableFinished:
            return  # it ended meanwhile: nothing to give up
        self.state.forfeited(entrant.name, table_id)

    def bot_for(self, entrant: EntrantSpec, client: Client, game: str) -> Bot:
        if entrant.kind == "bot":
            return load_bot(str(entrant.bot))
        limits = self.config.limits
        agent = LlmAgent(self.chat(entrant), rulebook=client.rulebook(game), game_title=game,
                         transcripts=self.transcripts(entrant), max_attempts=limits.max_attempts,
                         max_fallback_rate=limits.max_fallback_rate,
                         max_endpoint_failures=limits.dead_after)
        return _Guarded(agent, self.budget(entrant), lambda: self.halted(entrant))

    def budget(self, entrant: EntrantSpec) -> Budget:
        """``entrant``'s budget, one for all its tables, made when its first table starts:
        its transcripts are read then, before this run's decisions write to them."""
        with self.budgets_lock:
            if entrant.name not in self.budgets:
                self.budgets[entrant.name] = Budget(
                    self.transcripts(entrant), entrant.budget_tokens, entrant.budget_money,
                    self.config.prices.get(str(entrant.model)))
            return self.budgets[entrant.name]

    def play_table(self, entrant: EntrantSpec, client: Client, table_id: str, game: str) -> None:
        halt = self.halted(entrant)
        if halt is not None:
            self.give_up(entrant, client, table_id, halt)
            return
        bot = self.bot_for(entrant, client, game)
        # A bot class plays over the bot socket (one connection per table, HTTP where the
        # server offers none); the LLM agent over HTTP, whose observation carries its tools.
        transport: Transport = "auto" if entrant.kind == "bot" else "http"
        try:
            Runner(client, bot, printer=None, poll_wait_s=self.poll_wait_s,
                   transport=transport).play(table_id)
        except EndpointDead as dead:
            self.give_up(entrant, client, table_id, _Stop(ENDPOINT_DEAD, str(dead)))
        except _Stop as stop:
            self.give_up(entrant, client, table_id, stop)

    def drive(self, entrant: EntrantSpec, tournament_id: str) -> None:
        """Play every table assigned to ``entrant`` until the tournament ends, at most
        ``tables_per_entrant`` at once.

        Tables are played in daemon threads: when the run stops on an error, the process
        ends without waiting for tables still held by long polls (a rerun resumes them).
        """
        game = str(self.config.tournament["game"])
        slots = threading.BoundedSemaphore(self.config.limits.tables_per_entrant)
        errors: list[BaseException] = []

        def one(client: Client, table_id: str, table_game: str) -> None:
            with slots:
                try:
                    self.play_table(entrant, client, table_id, table_game)
                except BaseException as failure:  # handed to the driver, which raises it
                    errors.append(failure)

        tables: list[threading.Thread] = []
        with self.agent_client(entrant) as client:
            for assignment in client.assigned_tables(tournament_id, wait_s=self.poll_wait_s):
                if errors:
                    raise errors[0]
                assert assignment.table_id is not None
                table = threading.Thread(target=one, daemon=True, name=f"arena-{assignment.table_id}",
                                         args=(client, assignment.table_id, assignment.game or game))
                table.start()
                tables.append(table)
            for table in tables:
                table.join()
        if errors:
            raise errors[0]

    def play(self, client: Client, tournament_id: str, interval: float) -> None:
        """Drive every agent entrant in its own thread, showing the progress until the end.

        :raises AgentsClubError: the first error of a driver (the run stops; a rerun resumes).
        """
        errors: list[BaseException] = []

        def driver(entrant: EntrantSpec) -> None:
            try:
                self.drive(entrant, tournament_id)
            except BaseException as failure:  # raised in the main thread below
                errors.append(failure)

        drivers = [threading.Thread(target=driver, args=(entrant,), daemon=True,
                                    name=f"arena-{entrant.name}")
                   for entrant in self.config.entrants if entrant.kind != "house"]
        for thread in drivers:
            thread.start()
        while True:
            if errors:
                self.console.done()
                raise errors[0]
            tournament = client.tournament(tournament_id)
            stopped = len(self.state.stopped)
            self.console.progress(progress_line(tournament) + (
                f"; {stopped} entrant{'s' if stopped > 1 else ''} forfeiting" if stopped else ""))
            if tournament.status != "running" and not any(t.is_alive() for t in drivers):
                break
            time.sleep(interval)
        self.console.done()
        if errors:
            raise errors[0]

    # ---- the report and the bundle ---------------------------------------------------

    def costs(self) -> dict[str, EntrantCost]:
        """Every entrant's cost line, keyed by entrant id (see :mod:`tournament.report_cost`)."""
        lines: dict[str, EntrantCost] = {}
        for entrant in self.config.entrants:
            stopped = self.state.stopped.get(entrant.name)
            status = stopped.status if stopped else "played"
            error = stopped.error if stopped else None
            forfeited = len(stopped.forfeited) if stopped else 0
            if entrant.kind == "llm":
                lines[self.entrant_id(entrant)] = usage_of(self.transcripts(entrant)).cost(
                    entrant.model, self.config.prices.get(str(entrant.model)),
                    forfeited=forfeited, status=status, error=error)
            else:
                lines[self.entrant_id(entrant)] = EntrantCost(
                    kind=entrant.kind, forfeited_tables=forfeited, status=status, error=error)
        return lines

    def write(self, client: Client, tournament_id: str, plot: bool) -> list[Path]:
        from gateway import __version__
        from tournament.report import plot_png, report_markdown

        out = self.config.out_dir
        out.mkdir(parents=True, exist_ok=True)
        cost = {entrant: line.to_json() for entrant, line in self.costs().items()}
        report: dict[str, Any] = client.tournament_report(tournament_id)
        report["cost"] = cost
        stem = out / tournament_id
        written = [stem.with_suffix(".json"), stem.with_suffix(".md")]
        written[0].write_text(json.dumps(report, indent=2), encoding="utf-8")
        written[1].write_text(report_markdown(report), encoding="utf-8")
        if plot:
            try:
                plot_png(report, stem.with_suffix(".png"))
                written.append(stem.with_suffix(".png"))
            except ImportError:
                self.console.say("no PNG: matplotlib is not installed "
                                 "(pip install agents-club[report])")
        bundle = client.tournament_bundle(tournament_id)
        bundle["software"]["exporter"] = __version__
        bundle["arena"] = {"cost": cost, "notes": COST_NOTES}
        path = out / f"{tournament_id}.bundle.json.gz"
        path.write_bytes(gzip.compress(json.dumps(bundle).encode("utf-8"), mtime=0))
        written.append(path)
        return written


def _run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    server = (args.server or config.server or os.environ.get("AGENTS_CLUB_SERVER")
              or DEFAULT_SERVER)
    console = _Console()
    arena = Arena(config, server, find_organiser_key(args.organiser_key, args.data_dir),
                  console, args.poll_wait)
    try:
        arena.register()
        with Client(server, token=arena.organiser()) as client:
            tournament_id = arena.create(client)
            arena.play(client, tournament_id, args.interval)
            tournament = client.tournament(tournament_id)
            written = arena.write(client, tournament_id, plot=not args.no_plot)
    finally:
        arena.close()
    for name, stopped in arena.state.stopped.items():
        print(f"{name}: {stopped.status}, {len(stopped.forfeited)} tables forfeited: "
              f"{stopped.error}", file=sys.stderr)
    print(f"tournament {tournament_id} {tournament.status}; wrote "
          + ", ".join(str(path) for path in written))
    print(f"check it: agents-club tournament verify {written[-1]}")
    return 0


def run(args: argparse.Namespace) -> int:
    """Run the arena; 0 when it finished and its report and bundle are written, 1 on a server
    or admission error (run again to resume), 2 on a bad arena file."""
    try:
        return _run(args)
    except (ArenaError, ImportError) as wrong:  # the file, or a bot class it names
        print(f"agents-club arena: {wrong}", file=sys.stderr)
        return 2
    except EntrantUnavailable as unavailable:
        print(f"agents-club arena: {unavailable}", file=sys.stderr)
        return 1
    except AgentsClubError as failure:
        print("\n".join(failure_lines("arena", failure)), file=sys.stderr)
        print("agents-club arena: run the same command again to resume", file=sys.stderr)
        return 1
