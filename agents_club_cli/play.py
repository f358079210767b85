"""Play a table through the HTTP API with a bot, to the end.

    agents-club play --server http://127.0.0.1:8000 --bot greedy --token $TOKEN --new 4
    agents-club play --bot mybots.cautious:Cautious --token $TOKEN --table 4f1c0a9e2b7d3c51
    agents-club play --bot llm --llm-base-url https://api.example.com/v1 --model some-model \\
        --admit --name my-llm-agent --new 2
    agents-club play --bot greedy --credentials .agents-club/me.json --tournament tn_0a1b2c3d4e5f6a7b

``--new N`` opens a table of N seats, sits the bot in seat 0 and fills the
other seats with house bots; ``--table ID`` joins that table (or resumes it if
the bot already sits there), private tables included: their id is the
invitation; ``--tournament ID`` plays every table the tournament assigns to
this agent (several at once when they overlap) until the tournament is over.
The game is printed turn by turn, then the result. Network failures are
waited out and the game resumes where it was.

A token comes from ``--token`` (or ``AGENTS_CLUB_TOKEN``); ``--admit`` lets
the LLM agent pass admission first and saves its credentials;
``--credentials FILE`` reads saved credentials and renews tokens as they
expire; for a local development server the organiser key
(``--organiser-key``, ``AGENTS_CLUB_ORGANISER_KEY`` or
``<data-dir>/organiser-key``) mints one. With ``--table``, ``--admit`` needs
``--game`` when the table is private (a public table names its own game).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from agents import (
    AgentCredentials,
    AgentsClubError,
    AgentSocket,
    AlreadySeated,
    Bot,
    Client,
    GameOut,
    HouseBot,
    OutcomeOut,
    SocketUnavailable,
    TableNotFound,
    TableOut,
    load_bot,
)
from agents.llm import (
    API_KEY_ENV,
    ChatClient,
    EndpointDead,
    LlmAgent,
    Transcript,
    cost_totals,
    pass_admission,
)
from agents.llm.agent import DEFAULT_MAX_FALLBACK_RATE, FALLBACK_GRACE
from agents.runner import Runner
from agents_club_cli.failures import failure_lines
from agents_club_cli.organiser_key import KEY_ENV, default_data_dir, find_organiser_key
from engine.text import counted

__all__ = ["add_arguments", "default_agent_name", "parse_options", "run"]

DEFAULT_SERVER = "http://127.0.0.1:8000"
DEFAULT_GAME = "market-fortune"
PREFERRED_MODES = {"market-fortune": "family"}
"""The mode ``--new`` opens when ``--mode`` is not given (the shortest game); else the first."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--server", default=os.environ.get("AGENTS_CLUB_SERVER", DEFAULT_SERVER),
                        help=f"gateway base URL (default $AGENTS_CLUB_SERVER or {DEFAULT_SERVER})")
    parser.add_argument("--bot", default="greedy",
                        help="greedy, random (house bots), llm, or package.module:Class (default greedy)")
    who = parser.add_argument_group("identity (one of)")
    who.add_argument("--token", default=os.environ.get("AGENTS_CLUB_TOKEN"),
                     help="bearer token (default $AGENTS_CLUB_TOKEN)")
    who.add_argument("--admit", action="store_true", help="pass admission first (needs --bot llm)")
    who.add_argument("--organiser-key", default=os.environ.get(KEY_ENV),
                     help=f"mint a token with the server's organiser key (local servers; default ${KEY_ENV} "
                     "or the key file in --data-dir)")
    who.add_argument("--data-dir", type=Path, default=default_data_dir(),
                     help="where a local server keeps its organiser-key file (default $AGENTS_CLUB_DATA_DIR or .data)")
    who.add_argument("--name", default=None, help="agent name for --admit or --organiser-key")
    who.add_argument("--credentials", type=Path, default=None,
                     help="agent id and secret as JSON: written by --admit (default .agents-club/<name>.json), "
                     "read otherwise to get tokens")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--table", help="join (or resume) this table")
    where.add_argument("--new", type=int, metavar="SEATS", help="open a table of SEATS seats, the rest house bots")
    where.add_argument("--tournament", metavar="ID",
                       help="play every table this tournament assigns to the agent, until it ends")
    table = parser.add_argument_group("a new table")
    table.add_argument("--game", default=None,
                       help=f"game (default {DEFAULT_GAME}); with --table the table's own game is played, "
                       "and --game is needed only by --admit at a private table")
    table.add_argument("--mode", default=None, help="mode (default: family for Market Fortune, else the first)")
    table.add_argument("--house-bot", default=None, help="bot in the other seats (default greedy if the game has it)")
    table.add_argument("--variant", action="append", default=[], help="rule variant to switch on (repeatable)")
    table.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                       help="game option, the value read as JSON (repeatable), e.g. turn_limit_per_seat=20")
    table.add_argument("--seed", type=int, default=None, help="fix the deal (revealed by the replay)")
    table.add_argument("--turn-timeout", type=float, default=None, help="seconds per decision")
    llm = parser.add_argument_group("the LLM agent (--bot llm)")
    llm.add_argument("--llm-base-url", default=os.environ.get("AGENTS_CLUB_LLM_BASE_URL"),
                     help="OpenAI-compatible endpoint, e.g. https://api.openai.com/v1")
    llm.add_argument("--model", default=os.environ.get("AGENTS_CLUB_LLM_MODEL"), help="model name")
    llm.add_argument("--transcripts", type=Path, default=Path("transcripts"),
                     help="folder for the JSONL transcript of each game (default transcripts/)")
    llm.add_argument("--max-attempts", type=int, default=3, help="replies asked for per decision (default 3)")
    llm.add_argument("--max-fallback-rate", type=float, default=DEFAULT_MAX_FALLBACK_RATE,
                     help="stop with an error once more than this share of decisions fell back "
                          f"(after {FALLBACK_GRACE} decisions; default {DEFAULT_MAX_FALLBACK_RATE})")
    parser.add_argument("--poll-wait", type=float, default=20.0, help="long-poll wait in seconds (default 20)")
    parser.add_argument("--transport", choices=("auto", "ws", "http"), default="auto",
                        help="auto (default): the bot socket, HTTP where the server has none; "
                        "ws: the socket only; http: HTTP only")
    parser.add_argument("--quiet", action="store_true", help="print only the result")


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs as a dict; values are JSON when they parse, else strings."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, equals, raw = pair.partition("=")
        if not equals or not key:
            raise ValueError(f"--option wants KEY=VALUE, got {pair!r}")
        try:
            options[key] = json.loads(raw)
        except ValueError:
            options[key] = raw
    return options


def run(args: argparse.Namespace) -> int:
    """Play one table to its end; 0 when it finished, 1 on an error, 2 on bad arguments."""
    say = (lambda line: None) if args.quiet else print
    try:
        with Client(args.server) as client:
            chat = _chat(args)
            # Loaded before any request, so a wrong --bot fails before sitting down.
            house_or_own = None if chat is not None else load_bot(args.bot)
            # A private table shows its game only to who sits there: with --table the
            # game is learnt by joining, after authenticating (only --admit needs it before).
            wanted = _game(client, args.game or DEFAULT_GAME) if args.new is not None else _admission_game(args, client)
            _authenticate(args, client, chat, wanted)
            if args.tournament:
                return _play_tournament(args, client, house_or_own, chat, say)
            table_id, game = _seat(args, client, house_or_own, wanted)
            bot = house_or_own if house_or_own is not None else _llm_agent(args, client, chat, game)
            say(f"playing table {table_id} at {args.server} with {args.bot}")
            result = Runner(client, bot, printer=say, poll_wait_s=args.poll_wait,
                            transport=args.transport).play(table_id)
            report = cost_report(client, result.table_id, bot)
    except (ValueError, ImportError) as wrong:
        print(f"agents-club play: {wrong}", file=sys.stderr)
        return 2
    except AgentsClubError as failure:
        print("\n".join(failure_lines("play", failure)), file=sys.stderr)
        return 1
    except EndpointDead as dead:
        print(f"agents-club play: the LLM endpoint is not answering, so the agent stops and "
              f"forfeits its remaining turns: {dead}", file=sys.stderr)
        return 3
    if args.quiet:
        print(f"table {result.table_id}: {_verdict(result.won, result.outcome)}")
    if isinstance(bot, LlmAgent) and bot.fallbacks:
        print(f"LLM fallbacks: {len(bot.fallbacks)} of {counted(bot.decisions, 'decision')}")
    for line in report if not args.quiet else ():
        print(line)
    return 0


TOURNAMENT_TABLES_AT_ONCE = 8
"""The most tables ``--tournament`` plays at the same time (one thread each)."""


def _play_tournament(args: argparse.Namespace, client: Client, house_or_own: Bot | None,
                     chat: ChatClient | None, say: Any) -> int:
    """Play each table assigned in ``args.tournament`` as it comes, until the tournament ends.

    One bot socket serves the agent's assignments and every table it plays (unless
    ``--transport http``, or the server has none): a runner thread per table shares it.
    """
    played: list[str] = []
    lock = threading.Lock()
    with contextlib.ExitStack() as stack:
        socket = _agent_socket(args, client, say)
        if socket is not None:
            stack.enter_context(socket)

        def play_one(table_id: str, game_name: str) -> None:
            game = _game(client, game_name)
            bot = house_or_own if house_or_own is not None else _llm_agent(args, client, chat, game)
            result = Runner(client, bot, printer=None, poll_wait_s=args.poll_wait,
                            transport=args.transport, socket=socket).play(table_id)
            with lock:
                played.append(table_id)
                print(f"table {result.table_id}: {_verdict(result.won, result.outcome)}")

        say(f"waiting for the tables of tournament {args.tournament} at {args.server}")
        assigned = (socket.assigned_tables(args.tournament, wait_s=args.poll_wait)
                    if socket is not None
                    else client.assigned_tables(args.tournament, wait_s=args.poll_wait))
        with ThreadPoolExecutor(max_workers=TOURNAMENT_TABLES_AT_ONCE) as pool:
            running = [pool.submit(play_one, assignment.table_id, assignment.game or DEFAULT_GAME)
                       for assignment in assigned if assignment.table_id is not None]
            for future in running:
                future.result()  # a table's failure ends the run with its error
    print(f"tournament {args.tournament} is over: {counted(len(played), 'table')} played")
    return 0


def _agent_socket(args: argparse.Namespace, client: Client, say: Any) -> AgentSocket | None:
    """The agent's one bot socket, started; ``None`` for ``--transport http`` and where the
    server serves none. (The LLM agent reads its assignments on it and plays its tables over
    HTTP, whose observations carry its tools.)"""
    if args.transport == "http":
        return None
    socket = AgentSocket(client, notice=say)
    try:
        socket.start()
    except SocketUnavailable:
        if args.transport == "ws":
            raise
        say("  ~ the server has no socket; playing over HTTP")
        return None
    return socket


def cost_report(client: Client, table_id: str, bot: Bot) -> list[str]:
    """The end-of-game lines on time and cost: each agent seat's decision times as the
    gateway measured them (from the replay's action log), and for the LLM agent its
    tokens and the time it waited for the model. Nothing when the replay cannot be read
    (a table closed before it started)."""
    lines: list[str] = []
    try:
        log = client.replay(table_id).log
    except AgentsClubError:
        log = []
    per_seat: dict[int, list[float]] = {}
    for entry in log:
        if entry.by == "agent" and entry.decision_s is not None:
            per_seat.setdefault(entry.seat, []).append(entry.decision_s)
    if per_seat:
        lines.append("Decision times (gateway clock, from being asked to the action): " + "; ".join(
            f"seat {seat}: {counted(len(times), 'decision')}, mean {sum(times) / len(times):.1f} s, "
            f"slowest {max(times):.1f} s" for seat, times in sorted(per_seat.items())))
    if isinstance(bot, LlmAgent) and bot.costs:
        costs = [cost for cost in bot.costs if cost.table_id == table_id]
        totals = cost_totals(costs)
        if totals["prompt_tokens"] is None or totals["completion_tokens"] is None:
            tokens = "tokens not reported by the endpoint"
        else:
            tokens = f"{totals['prompt_tokens']} prompt + {totals['completion_tokens']} completion tokens"
        via = ", ".join(f"{sum(c.via == kind for c in costs)} by {kind}"
                        for kind in ("tool", "text", "fallback") if any(c.via == kind for c in costs))
        lines.append(
            f"LLM cost: {counted(len(costs), 'decision')} ({via}), {tokens}, "
            f"{counted(sum(c.requests for c in costs), 'request')} answered, "
            f"{sum(c.failed_requests for c in costs)} failed, {totals['llm_s']:.1f} s waiting for "
            f"the model; decisions took {totals['decision_s']:.1f} s (slowest "
            f"{totals['slowest_decision_s']:.1f} s)")
    return lines


def _verdict(won: bool, outcome: OutcomeOut | None) -> str:
    """``won (victory)``, ``lost: seat 1 won (victory)``, ``lost: nobody won (turn_limit)``."""
    if outcome is None:
        return "won" if won else "lost"
    if won:
        return f"won ({outcome.reason})"
    winners = " and ".join(str(seat) for seat in outcome.winners)
    who = f"{'seats' if len(outcome.winners) > 1 else 'seat'} {winners}" if winners else "nobody"
    return f"lost: {who} won ({outcome.reason})"


def default_agent_name(bot_spec: str) -> str:
    """The agent name ``play`` uses without ``--name``: ``greedy-player``,
    ``prudent-investor-player`` for ``prudent_investor:PrudentInvestor`` (from the class name)."""
    base = bot_spec.rpartition(":")[2]
    # CamelCase, snake_case and dotted names all become lower-case words joined by dashes.
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", base).lower()
    slug = re.sub(r"[^a-z0-9]+", "-", words).strip("-")[:25].rstrip("-") or "bot"
    return f"{slug}-player"  # at most 32 characters: the longest name admission accepts


def _chat(args: argparse.Namespace) -> ChatClient | None:
    """The language model ``--bot llm`` talks to (``None`` for other bots), arguments checked."""
    if args.bot != "llm":
        if args.admit:
            raise ValueError("--admit needs --bot llm: only the LLM agent can answer the quiz")
        return None
    if not args.llm_base_url or not args.model:
        raise ValueError("--bot llm needs --llm-base-url and --model (the key is read from "
                         f"${API_KEY_ENV})")  # fmt: skip
    return ChatClient(base_url=args.llm_base_url, model=args.model)


def _llm_agent(args: argparse.Namespace, client: Client, chat: ChatClient | None, game: GameOut) -> Bot:
    """The LLM agent for ``game``, built once the table (hence the rulebook) is known."""
    assert chat is not None
    return LlmAgent(chat, rulebook=client.rulebook(game.name), game_title=game.title,
                    transcripts=args.transcripts, max_attempts=args.max_attempts, printer=print,
                    max_fallback_rate=args.max_fallback_rate)  # fmt: skip


def _admission_game(args: argparse.Namespace, client: Client) -> GameOut | None:
    """With ``--table``: the game ``--admit`` must pass admission for, before any token exists.

    ``--game`` when given; else the table's own game, which a public table shows
    to anyone. A private table answers 404 until one sits there, hence ``--game``.
    Without ``--admit`` nothing is asked here: the game comes with the join.
    """
    if not args.admit:
        return None  # as before: joining a table plays its game, whatever --game says
    if args.game:
        return _game(client, args.game)
    try:
        return _game(client, client.table(args.table).game)
    except TableNotFound:
        raise ValueError(f"--admit with --table {args.table}: the table is private or unknown, so its game "
                         "cannot be read before joining; pass --game GAME to be admitted for") from None  # fmt: skip


def _authenticate(args: argparse.Namespace, client: Client, chat: ChatClient | None, game: GameOut | None) -> None:
    """Give ``client`` a token: given, earned by admission, bought with saved credentials,
    or minted with the organiser key. With credentials, expired tokens renew themselves.

    ``game`` is the game to be admitted for or to mint a token for; ``None`` (``--table``
    without ``--game``) mints a token for every game, as the table's is not known yet.
    """
    if args.token and not args.admit:
        client.token = args.token
        return
    name = args.name or default_agent_name(args.bot)
    if args.admit:
        assert chat is not None and game is not None
        transcript = Transcript(args.transcripts / f"admission-{name}.jsonl")
        passed = pass_admission(client, chat, game=game.name, agent_name=name, transcript=transcript)
        print(f"admitted as {passed.name} ({passed.agent_id}); score "
              f"{passed.score.questions_correct}/{passed.score.questions_total}, puzzle "
              f"{'solved' if passed.score.puzzle_solved else 'not solved'}")  # fmt: skip
        if passed.secret is not None:
            path = args.credentials or Path(".agents-club") / f"{passed.name}.json"
            _save_credentials(path, passed.agent_id, passed.secret)  # pass_admission gave the client them
            print(f"agent id and secret saved to {path} (renew tokens with POST /v1/auth/token)")
        return
    if args.credentials is not None:
        saved = json.loads(args.credentials.read_text(encoding="utf-8"))
        if not saved.get("secret"):  # registered by `agents-club agent register`: a token
            client.token = str(saved["token"])
            return
        client.credentials = AgentCredentials(str(saved["agent_id"]), str(saved["secret"]))
        client.renew_token()
        return
    key = find_organiser_key(args.organiser_key, args.data_dir)
    if key is None:
        raise ValueError("no token: pass --token, --credentials, --admit (with --bot llm) or --organiser-key")
    games = [game.name] if game is not None else [known.name for known in client.games().games]
    client.token = client.organiser_token(name, games=games, organiser_key=key).access_token


def _save_credentials(path: Path, agent_id: str, secret: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Created private from the start: the secret must not be readable by others even briefly.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as sink:
        json.dump({"agent_id": agent_id, "secret": secret}, sink)


def _seat(args: argparse.Namespace, client: Client, bot: Bot | None, game: GameOut | None) -> tuple[str, GameOut]:
    """Join ``--table`` (resuming when already seated) or open a ``--new`` table; its id and game.

    ``bot`` is ``None`` for the LLM agent, which plays any game; ``game`` is the
    ``--new`` table's game (for ``--table`` the table's own game is returned).
    """
    if args.table:
        return _join(client, str(args.table), bot)
    assert game is not None
    _check_house_bot(bot, game)
    mode = args.mode or PREFERRED_MODES.get(game.name) or game.modes[0].name
    house = args.house_bot or ("greedy" if "greedy" in game.house_bots else "random")
    table = client.create_table(
        game.name, mode, args.new,
        variants=args.variant,
        options=parse_options(args.option),
        house_bots=[{"seat": seat, "bot": house} for seat in range(1, args.new)],
        turn_timeout_s=args.turn_timeout,
        seed=args.seed,
    )  # fmt: skip
    return table.id, game


def _join(client: Client, table_id: str, bot: Bot | None) -> tuple[str, GameOut]:
    """Sit at ``table_id``, or find the seat already held there; the table's game decides the bot."""
    games = client.games().games
    if isinstance(bot, HouseBot) and not any(bot.name in game.house_bots for game in games):
        # A name no game knows is refused before sitting down; the table's game is known only after.
        raise ValueError(f"no game on this server has a house bot {bot.name!r}")
    joined_now = True
    try:
        table: TableOut = client.join(table_id)
    except AlreadySeated:
        # Seated already (a table this agent opened, or a game to resume): it may see the table now,
        # even a private one.
        joined_now = False
        table = client.table(table_id)
    game = _named(games, table.game)
    try:
        _check_house_bot(bot, game)
    except ValueError:
        if joined_now and table.status == "open":
            # Give back the seat just taken, so the table does not start with a bot that cannot play it.
            with contextlib.suppress(AgentsClubError):
                client.leave(table_id)
        raise
    return table.id, game


def _check_house_bot(bot: Bot | None, game: GameOut) -> None:
    """Refuse a house bot the game does not have, rather than fail at the bot's first turn."""
    if isinstance(bot, HouseBot) and bot.name not in game.house_bots:
        raise ValueError(f"{game.name} has no house bot {bot.name!r} (it has: {', '.join(game.house_bots)})")


def _game(client: Client, name: str) -> GameOut:
    return _named(client.games().games, name)


def _named(games: list[GameOut], name: str) -> GameOut:
    for game in games:
        if game.name == name:
            return game
    raise ValueError(f"no game {name!r} on this server (it has: {', '.join(g.name for g in games)})")
