"""Playing a table to its end with a bot: the loop behind ``agents-club play``.

:class:`Runner` observes the table, asks the bot when its seat must decide,
submits the action and goes on from the observation that comes back with it.
Over the bot socket (the default) the server pushes each decision, and several
runners, one per table, may share one :class:`~agents.AgentSocket`; over HTTP each
action is held (``wait_s``) until this seat must decide again. It prints every event its seat may see as it arrives, so
the console shows the game turn by turn, and returns a :class:`GameResult`.

Network trouble never ends a game early: the client already retries each
request; when the server stays away longer, the runner waits and resumes from
a fresh observation (an action that may or may not have arrived is resent
with the same idempotency key, so it is applied once).

The runner needs no engine. Where it is installed (the SDK's ``[engine]``
extra), the events that open a turn are printed before the move that came
with them, as the game tells them; without it, after.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Literal, TypeVar

from agents._client import Client
from agents._engine import is_the_engine
from agents._exceptions import (
    ActionError,
    InvalidRequest,
    NotYourTurn,
    ServerError,
    StaleVersion,
    TableFinished,
    TransportError,
    error_from_problem,
)
from agents._models import EventOut, ObservationOut, OutcomeOut
from agents.agent_socket import RECONNECTED, AgentSocket, Gone, TableFeed
from agents.bot import Bot
from agents.socket import SocketLost, SocketUnavailable
from agents.wire.socket import (
    AcceptedMessage,
    ActMessage,
    EndMessage,
    EventsMessage,
    ObservationMessage,
    ProblemMessage,
    SubscribeMessage,
)

if TYPE_CHECKING:
    from engine.simulation import PlayoutProbe

__all__ = ["GameResult", "Runner", "Transport"]

Transport = Literal["auto", "ws", "http"]
"""How a :class:`Runner` talks to the server (see there)."""

Printer = Callable[[str], None]
_T = TypeVar("_T")


@dataclass
class GameResult:
    """How a table ended for the seat the runner played."""

    table_id: str
    seat: int | None
    outcome: OutcomeOut | None
    actions: int = 0
    """Actions this runner submitted."""
    refused: list[str] = field(default_factory=list)
    """Problems the server answered to the bot's choices (code: detail)."""
    substitutes: int = 0
    """Times the bot's choice was refused and the first legal action was sent instead."""
    reconnects: int = 0

    @property
    def won(self) -> bool:
        """True when this seat is among the winners."""
        return self.outcome is not None and self.seat in self.outcome.winners


class Runner:
    """Plays one seat of a table with ``bot`` through ``client``.

    ``printer`` receives one line per event and per own action (``None``:
    silent). ``max_outage_s`` bounds how long the server may stay unreachable
    before :class:`~agents.TransportError` ends the run. ``transport``: ``auto``
    (the default) plays over the bot socket and falls back to HTTP where the server
    serves none or it stays away; ``ws`` insists on the socket; ``http`` never
    uses it. A bot that plays by function calling (``tool_format``) plays over HTTP,
    whose observation carries the tools. ``socket``: an :class:`~agents.AgentSocket`
    (started) to play on, shared with the agent's other tables and its assignments;
    without one the runner opens a connection of its own for the table.
    """

    def __init__(
        self,
        client: Client,
        bot: Bot,
        *,
        printer: Printer | None = print,
        poll_wait_s: float = 20.0,
        max_outage_s: float = 120.0,
        max_refusals_per_turn: int = 2,
        transport: Transport = "auto",
        socket: AgentSocket | None = None,
    ) -> None:
        self.client = client
        self.transport = transport
        self.socket = socket
        self.bot = bot
        self.printer = printer
        self.poll_wait_s = poll_wait_s
        self.max_outage_s = max_outage_s
        self.max_refusals_per_turn = max_refusals_per_turn
        self._printed_up_to = 0

    def play(self, table_id: str) -> GameResult:
        """Play ``table_id`` (where this client's token is seated) until it ends: over the
        socket (``transport`` ``auto`` or ``ws``), else, or where the server serves none,
        over HTTP."""
        result = GameResult(table_id=table_id, seat=None, outcome=None)
        # The socket is for an agent: a client without a token (or the credentials to get
        # one) reads as a spectator over HTTP, which says so.
        authenticated = bool(self.client.token) or self.client.credentials is not None
        if (self.transport != "http" and authenticated
                and getattr(self.bot, "tool_format", None) is None):
            try:
                return self._play_over_socket(table_id, result)
            except SocketUnavailable:
                if self.transport == "ws":
                    raise
                self._say("  ~ the server has no socket; playing over HTTP")
            except SocketLost:
                if self.transport == "ws":
                    raise
                self._say("  ~ the socket stayed away; playing on over HTTP")
        return self._play_over_http(table_id, result)

    def _play_over_socket(self, table_id: str, result: GameResult) -> GameResult:
        """The game over the bot socket: the runner's own (one connection for this table),
        or the shared :class:`~agents.AgentSocket` it was given."""
        if self.socket is not None:
            return self._play_on(self.socket, table_id, result)
        with AgentSocket(self.client, max_outage_s=self.max_outage_s, notice=self._say) as socket:
            socket.start()
            return self._play_on(socket, table_id, result)

    def _play_on(self, socket: AgentSocket, table_id: str, result: GameResult) -> GameResult:
        """Play ``table_id`` on ``socket``: an action for each pushed decision, and a resume
        whenever the socket comes back after a loss.

        The server pushes the seat's observation whenever it must decide, so there
        is nothing to ask. After a loss the socket opens a new connection and says
        so (:data:`~agents.agent_socket.RECONNECTED`); the game then subscribes again
        after the last version it decided at and the last event it printed, and
        sends its unanswered action again with the same idempotency key: the server
        applies it at most once and answers it either way.
        """
        game = _SocketGame(socket, socket.follow(table_id), table_id, result)
        finished = False
        try:
            self._subscribe(game)
            while True:
                item = game.feed.get()
                if isinstance(item, Gone):
                    raise item.error
                if item == RECONNECTED:
                    result.reconnects += 1
                    game.held_events.clear()  # pushed again after what was printed
                    self._subscribe(game)
                    continue
                if isinstance(item, EndMessage):
                    finished = True
                    if item.observation is not None:
                        game.result.seat = item.observation.seat
                    return self._finish(result, item.observation.outcome
                                        if item.observation is not None else None)
                self._handle(game, item)
        finally:
            socket.forget(table_id, unsubscribe=not finished)

    def _subscribe(self, game: _SocketGame) -> None:
        """Follow the table after what this game has seen; resend an unanswered action."""
        with contextlib.suppress(SocketLost):  # the socket is being reopened: RECONNECTED (or Gone) comes
            game.socket.send(SubscribeMessage(
                type="subscribe", table_id=game.table_id, after_version=game.decided,
                events_after=self._printed_up_to if self.printer else None))
            if game.pending is not None:
                game.socket.send(game.pending[1])  # applied at most once: the same key

    def _handle(self, game: _SocketGame, message: object) -> None:
        if isinstance(message, ObservationMessage):
            self._observed(game, message.observation)
        elif isinstance(message, EventsMessage):
            if game.pending is not None:
                # Pushed apart from the action's answer, they may come first: the move is
                # printed among them when its answer comes.
                game.held_events.extend(message.events)
            else:
                self._show(message.events)
        elif isinstance(message, AcceptedMessage):
            self._accepted(game, message)
        elif isinstance(message, ProblemMessage):
            self._refused(game, message)

    def _observed(self, game: _SocketGame, observation: ObservationOut) -> None:
        game.result.seat = observation.seat
        if observation.seat is None:
            raise ValueError(f"this client holds no seat at table {game.table_id}: join it first")
        if game.pending is not None:
            game.next = observation  # decided once the action in flight is answered
            return
        if observation.version > game.decided and observation.legal_actions and (
                observation.seat in observation.to_act):
            self._act(game, observation)

    def _act(self, game: _SocketGame, observation: ObservationOut) -> None:
        refused = game.refusals_at.get(observation.version, 0)
        substitute = refused >= self.max_refusals_per_turn
        action_id = self._decide(observation, substitute=substitute)
        if substitute:
            game.result.substitutes += 1
        act = ActMessage(type="act", ref=f"{observation.version}:{refused}",
                         table_id=game.table_id, version=observation.version, action=action_id,
                         idempotency_key=uuid.uuid4().hex)
        game.pending, game.decided = (observation, act), observation.version
        with contextlib.suppress(SocketLost):  # resent with its key once the socket is back (RECONNECTED)
            game.socket.send(act)

    def _accepted(self, game: _SocketGame, message: AcceptedMessage) -> None:
        if game.pending is None or message.ref != game.pending[1].ref:
            return
        observation, game.pending = game.pending[0], None
        game.server_errors = 0
        applied = message.result
        game.result.actions += 1
        # Events held while the action was in flight: those before its own come first.
        first = applied.events[0].id if applied.events else None
        self._show([event for event in game.held_events if first is None or event.id < first])
        opening = _opening_events(observation, applied.events)
        self._show(applied.events[:opening])
        self._say(f"> seat {observation.seat} plays {applied.action.id}: {applied.action.text}")
        self._show(applied.events[opening:])
        self._release(game)
        # The answer's observation is the seat's right after the action: when the same seat
        # must decide again (a second decision in its turn), it is decided now, with no
        # wait for the server to push it.
        following = applied.observation
        if following is not None and (game.next is None or following.version > game.next.version):
            game.next = following
        self._decide_next(game)

    def _refused(self, game: _SocketGame, message: ProblemMessage) -> None:
        error = error_from_problem(message.problem, status=int(message.problem.get("status", 400)))
        if message.ref is None:
            raise error  # the subscription itself was refused (a table not found)
        if game.pending is None or message.ref != game.pending[1].ref:
            return
        if isinstance(error, ServerError):  # applied or not: sent again with its key
            if game.server_errors > self.client.retry.max_retries:
                raise error
            wait = self.client.retry.wait_s(min(game.server_errors, 5), None)
            game.server_errors += 1
            self._say(f"  ~ the server could not answer ({error.code_received}); "
                      f"sending again in {wait:.1f}s")
            time.sleep(wait)
            with contextlib.suppress(SocketLost):  # else resent once the socket is back
                game.socket.send(game.pending[1])
            return
        game.server_errors = 0
        (observation, act), game.pending = game.pending, None
        self._release(game)
        if isinstance(error, StaleVersion | NotYourTurn | TableFinished):
            self._decide_next(game)
            return  # the table moved on (a clock, a defender): its next decision is pushed
        if not isinstance(error, ActionError | InvalidRequest):
            raise error
        game.result.refused.append(f"{error.code_received}: {error.detail}")
        self._say(f"  ! seat {observation.seat}: {act.action!r} refused ({error.code_received})")
        game.refusals_at[observation.version] = game.refusals_at.get(observation.version, 0) + 1
        game.next = None
        self._act(game, observation)  # decide again on the same observation

    def _release(self, game: _SocketGame) -> None:
        """Print the events held while an action was in flight (those not printed yet)."""
        held, game.held_events = game.held_events, []
        self._show(held)

    def _decide_next(self, game: _SocketGame) -> None:
        following, game.next = game.next, None
        if following is not None:
            self._observed(game, following)

    def _play_over_http(self, table_id: str, result: GameResult) -> GameResult:
        refusals_at: dict[int, int] = {}
        observation: ObservationOut | None = None
        wait: float | None = None
        while True:
            if observation is None:
                # Held by the server until this seat must act (or the table ends).
                # A bot that plays by function calling (the LLM agent) names its tool format.
                tools = getattr(self.bot, "tool_format", None)
                observation = self._reconnecting(
                    result, partial(self.client.observe, table_id, wait_s=wait, tools=tools)
                )
            result.seat = observation.seat
            if observation.seat is None and observation.status != "finished":
                if observation.spectator_reason == "no_token":
                    raise ValueError(f"the observation of table {table_id} was sent without a "
                                     "token (the server answered the spectator's view): give "
                                     "the client your access token")
                raise ValueError(f"this client holds no seat at table {table_id}: join it first")
            if observation.status == "finished":
                self._catch_up(result, table_id, observation.last_event_id)
                return self._finish(result, observation.outcome)
            if self.printer is not None:
                # Show what the other seats did up to this observation.
                self._catch_up(result, table_id, observation.last_event_id)
            if observation.seat in observation.to_act and observation.legal_actions:
                refused = refusals_at.get(observation.version, 0)
                action_id = self._decide(observation, substitute=refused >= self.max_refusals_per_turn)
                if refused >= self.max_refusals_per_turn:
                    result.substitutes += 1
                accepted, following = self._submit(result, observation, action_id)
                if not accepted:
                    refusals_at[observation.version] = refused + 1
                observation, wait = following, None
                continue
            observation, wait = None, self.poll_wait_s

    # ---- steps -------------------------------------------------------------------

    def _decide(self, observation: ObservationOut, *, substitute: bool) -> str:
        """The bot's choice, or the first legal action when the bot keeps being refused."""
        if substitute:
            return observation.legal_actions[0].id
        return self.bot.choose(observation)

    def _submit(
        self, result: GameResult, observation: ObservationOut, action_id: str
    ) -> tuple[bool, ObservationOut | None]:
        """Send ``action_id``: whether the server did not refuse it as not legal, and the
        observation to go on from (``None``: observe again)."""
        try:
            applied = self._reconnecting(
                result,
                # Answered at the seat's next decision: one request per decision.
                lambda: self.client.act(observation.table_id, action_id, version=observation.version,
                                        wait_s=self.poll_wait_s),
            )
        except (StaleVersion, NotYourTurn, TableFinished):
            return True, None  # the table moved on (a clock, a defender): observe again
        except (ActionError, InvalidRequest) as refused:  # not legal, or not even an action
            result.refused.append(f"{refused.code_received}: {refused.detail}")
            self._say(f"  ! seat {observation.seat}: {action_id!r} refused ({refused.code_received})")
            return False, None
        result.actions += 1
        opening = _opening_events(observation, applied.events)
        # A game may announce a turn only with the turn's first action: that announcement
        # comes before the move in the game, so it is printed before the move here too.
        self._show(applied.events[:opening])
        self._say(f"> seat {observation.seat} plays {applied.action.id}: {applied.action.text}")
        self._show(applied.events[opening:])
        return True, applied.observation

    def _finish(self, result: GameResult, outcome: OutcomeOut | None) -> GameResult:
        result.outcome = outcome
        self._say(_result_line(result))
        game_over = getattr(self.bot, "game_over", None)
        if callable(game_over):  # duck-typed bots need not define it
            game_over(result)
        return result

    def _catch_up(self, result: GameResult, table_id: str, last_event_id: int) -> None:
        """Print the events up to ``last_event_id`` this seat has not printed yet."""
        while self._printed_up_to < last_event_id:
            after = self._printed_up_to
            page = self._reconnecting(result, partial(self.client.events_page, table_id, after=after, wait_s=0))
            self._show(page.events)
            if page.last_id <= after:
                return
            self._printed_up_to = page.last_id

    # ---- plumbing ----------------------------------------------------------------

    def _reconnecting(self, result: GameResult, request: Callable[[], _T]) -> _T:
        """Run ``request``, waiting out network failures and 5xx answers for up to ``max_outage_s``.

        The client has already retried the request itself; this covers longer
        outages (a restarting server, a proxy answering 502 meanwhile).
        """
        started = time.monotonic()
        attempt = 0
        while True:
            try:
                return request()
            except (TransportError, ServerError) as failure:
                if time.monotonic() - started > self.max_outage_s:
                    raise
                result.reconnects += 1
                wait = self.client.retry.wait_s(min(attempt, 5), None)
                self._say(f"  ~ connection lost ({failure}); retrying in {wait:.1f}s")
                time.sleep(wait)
                attempt += 1

    def _show(self, events: list[EventOut]) -> None:
        for event in events:
            if event.id > self._printed_up_to:
                self._say(f"  [{event.id}] {event.text}")
                self._printed_up_to = event.id

    def _say(self, line: str) -> None:
        if self.printer is not None:
            self.printer(line)


@dataclass
class _SocketGame:
    """Where a table played over the bot socket stands (:meth:`Runner._play_over_socket`)."""

    socket: AgentSocket
    feed: TableFeed
    table_id: str
    result: GameResult
    decided: int = -1
    """The last version this game sent an action for (-1: none yet)."""
    pending: tuple[ObservationOut, ActMessage] | None = None
    """The action sent and not answered yet, with the observation it decided on."""
    next: ObservationOut | None = None
    """An observation that came while an action was in flight: decided after its answer."""
    held_events: list[EventOut] = field(default_factory=list)
    """Events pushed while an action was in flight, printed after its move."""
    refusals_at: dict[int, int] = field(default_factory=dict)
    server_errors: int = 0
    """Server errors answered in a row to the action in flight."""


def _opening_events(observation: ObservationOut, events: list[EventOut]) -> int:
    """How many of an action's first ``events`` announce the turn the seat decided in.

    Such an event starts a turn (by the game's own :class:`~engine.simulation.PlayoutProbe`)
    and names the turn the observation was in; a turn started *by* the action (the
    next one) names a later turn, and stays after the move.
    """
    probe = _probe(observation.game)
    view = observation.view
    turn = view.get("turn") if isinstance(view, Mapping) else getattr(view, "turn", None)
    if probe is None or not isinstance(turn, int):
        return 0
    from engine.core import Event  # installed: the probe came from it

    count = 0
    for event in events:
        as_engine_event = Event(kind=event.kind, text=event.text, audience=None, data=event.data)
        if event.data.get("turn") != turn or not probe.is_turn(as_engine_event):
            break
        count += 1
    return count


def _probe(game_name: str) -> PlayoutProbe | None:
    """The game's event probe, or ``None`` when this client does not have the game installed
    (or has no engine at all: the SDK without its ``[engine]`` extra)."""
    try:
        from engine.registry import UnknownGame, get_game
        from engine.simulation import probe_for
    except ModuleNotFoundError as missing:
        if not is_the_engine(missing):
            raise
        return None
    try:
        return probe_for(get_game(game_name))
    except UnknownGame:
        return None


def _result_line(result: GameResult) -> str:
    outcome = result.outcome
    if outcome is None:
        return f"table {result.table_id} finished"
    verdict = "won" if result.won else "lost"
    winners = ", ".join(str(seat) for seat in outcome.winners) or "nobody"
    text = f" — {outcome.text}" if outcome.text else ""
    return (
        f"table {result.table_id} finished ({outcome.reason}): winners {winners}; "
        f"seat {result.seat} {verdict} after {result.actions} action{'' if result.actions == 1 else 's'}{text}"
    )
