"""Playing a table to its end with a bot: the loop behind ``agents-club play``.

:class:`Runner` observes the table, asks the bot when its seat must decide,
submits the action and goes on from the observation that comes back with it;
when another seat is to act it observes again with ``wait``, which the server
holds until this seat must decide. It prints every event its seat may see as it arrives, so
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

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, TypeVar

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
)
from agents._models import EventOut, ObservationOut, OutcomeOut
from agents.bot import Bot

if TYPE_CHECKING:
    from engine.simulation import PlayoutProbe

__all__ = ["GameResult", "Runner"]

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
    before :class:`~agents.TransportError` ends the run.
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
    ) -> None:
        self.client = client
        self.bot = bot
        self.printer = printer
        self.poll_wait_s = poll_wait_s
        self.max_outage_s = max_outage_s
        self.max_refusals_per_turn = max_refusals_per_turn
        self._printed_up_to = 0

    def play(self, table_id: str) -> GameResult:
        """Play ``table_id`` (where this client's token is seated) until it ends."""
        result = GameResult(table_id=table_id, seat=None, outcome=None)
        refusals_at: dict[int, int] = {}
        observation: ObservationOut | None = None
        wait: float | None = None
        while True:
            if observation is None:
                # Held by the server until this seat must act (or the table ends).
                # A bot that plays by function calling (the LLM agent) names its tool format.
                tools = getattr(self.bot, "tool_format", None)
                observation = self._reconnecting(
                    result, partial(self.client.observe, table_id, wait=wait, tools=tools)
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
                result.outcome = observation.outcome
                self._say(_result_line(result))
                game_over = getattr(self.bot, "game_over", None)
                if callable(game_over):  # duck-typed bots need not define it
                    game_over(result)
                return result
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
                lambda: self.client.act(observation.table_id, action_id, version=observation.version),
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

    def _catch_up(self, result: GameResult, table_id: str, last_event_id: int) -> None:
        """Print the events up to ``last_event_id`` this seat has not printed yet."""
        while self._printed_up_to < last_event_id:
            after = self._printed_up_to
            page = self._reconnecting(result, partial(self.client.events_page, table_id, after=after, wait=0))
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
