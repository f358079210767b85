"""Applying actions: the one path every change of a game state takes.

An agent's action, a house bot's move and a turn clock's default action all
go through :func:`advance` (pure: engine ``apply`` plus the table's
bookkeeping) and :func:`commit_step` (one compare-and-set in Redis). A new
table and a change of the record alone (a seat, a close) take :func:`commit_record`.

:func:`submit` is the agent's action, the one HTTP, MCP and the WebSocket call:
one read of the table (its idempotency record and the caller's revocation in
the same round trip), the checks an outside caller needs (seat, scope,
idempotency, version, turn, a well-formed and legal action), then the commit.
It returns an :class:`Applied`: the table as the commit left it, so the caller
builds the seat's next observation from the state just written, with no
second read.

A keyed action's idempotency record (written by the commit itself) holds its
fingerprint, the version it produced, its action id and its events' ids, never
its answer. A retry with the same key and body is answered again from that
record and the table as it is then: the same version, action and events (those
the caller may see), and the seat's observation now. The same key with another
body is ``idempotency/conflict``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from agents.wire.tables import (
    ActionRequest,
    ActionResult,
    EventOut,
    LegalActionOut,
    ObservationOut,
)
from engine.core import Action, EngineError, Game, MalformedAction, Outcome, Seat
from gateway.errors import ProblemError
from gateway.principal import Principal
from gateway.security import PendingRevocation
from gateway.services import quotas
from gateway.services.access import may_see, not_found, require_visible
from gateway.services.context import TableContext
from gateway.services.loaded_table import LoadedTable
from gateway.services.observations import FIRST_READ_EVENTS, LOG_TAIL, event_out, outcome_out
from gateway.services.records import TableRecord, game_or_problem, problem
from gateway.services.waiters import Watch, Written
from gateway.store.tables import CommitResult, IdempotencyRecord, StoredEvent, TableSnapshot

__all__ = [
    "Applied",
    "Events",
    "Step",
    "advance",
    "commit_record",
    "commit_step",
    "finish",
    "load_table",
    "note_finished",
    "parse_table",
    "read_visible",
    "require_scope",
    "submit",
]

Events = list[tuple[tuple[int, ...] | None, dict[str, Any]]]
"""Events to commit, as ``(audience, body)`` (``None``: public)."""


@dataclass(frozen=True)
class Step:
    """A computed change, ready for the compare-and-set."""

    record: TableRecord
    state: Any
    events: Events
    log_entry: dict[str, Any]
    deadline: float | None
    bots_due: bool
    to_act: tuple[Seat, ...]
    """The seats to act after this step (none once the table is over)."""


async def load_table(ctx: TableContext, table_id: str) -> LoadedTable:
    """Read and parse a table; a ``table/not_found`` problem when there is none."""
    return parse_table(table_id, await ctx.store.load(table_id))


async def read_visible(
    ctx: TableContext, table_id: str, caller: PendingRevocation | None
) -> tuple[LoadedTable, Principal | None]:
    """The table and the caller, its revocation asked in the same round trip; 404 when the
    caller may not see the table."""
    snapshot, _seen, revoked = await ctx.store.load_for_action(
        table_id, None, caller.revoked_key if caller is not None else None)
    principal = caller.confirm(revoked) if caller is not None else None
    loaded = parse_table(table_id, snapshot)
    require_visible(loaded.record, principal)
    return loaded, principal


def parse_table(table_id: str, snapshot: TableSnapshot | None) -> LoadedTable:
    """Parse a read table; a ``table/not_found`` problem when there is none."""
    if snapshot is None or snapshot.state is None:
        raise not_found(table_id)
    record = TableRecord.model_validate_json(snapshot.record_json)
    game = game_or_problem(record.game)
    state = game.state_model.model_validate_json(snapshot.state)
    return LoadedTable(snapshot=snapshot, record=record, game=game, state=state)


def schedule_for(
    record: TableRecord, game: Game[Any, Any, Any], state: Any, now: float
) -> tuple[float | None, bool, tuple[Seat, ...]]:
    """For a state about to be stored: when the turn clock runs out (``None``: no clock
    running), whether a house bot must act, and the seats to act (none unless the table
    is being played)."""
    if record.status != "playing":
        return None, False, ()
    bots = record.bot_seats()
    to_act = tuple(game.to_act(state))
    agents_to_act = [seat for seat in to_act if seat not in bots]
    deadline = None
    if agents_to_act and record.turn_timeout_s is not None:
        deadline = now + record.turn_timeout_s
    return deadline, any(seat in bots for seat in to_act), to_act


def advance(
    loaded: LoadedTable, seat: Seat, action: Action, *, by: str, now: float
) -> Step:
    """Apply ``action`` for ``seat`` and do the table's bookkeeping; pure.

    :raises engine.core.IllegalAction: when the rules forbid the action now.
    """
    game = loaded.game
    state, engine_events = game.apply(loaded.state, seat, action)
    events: Events = []
    if by == "timeout":
        # Public on purpose, but without the action: its id may name a hidden card.
        events.append((None, {
            "kind": "turn.timeout",
            "text": f"Seat {seat} ran out of time; its default action was applied.",
            "data": {"seat": seat},
        }))
    events += [(event.audience, {"kind": event.kind, "text": event.text, "data": event.data})
               for event in engine_events]
    record = loaded.record
    outcome = game.outcome(state)
    if outcome is not None:
        record = finish(record, now, events, outcome.model_dump(mode="json"), finished_text(outcome))
    deadline, bots_due, to_act = schedule_for(record, game, state, now)
    log_entry: dict[str, Any] = {
        "version": loaded.version + 1, "seat": seat, "action": action.id, "by": by, "at": now,
        "last_event_id": loaded.snapshot.seq + len(events),
    }
    clock, timeout = loaded.snapshot.deadline, loaded.record.turn_timeout_s
    if by == "agent" and clock is not None and timeout is not None:
        # The clock was set (deadline minus timeout) when the seat was last asked to act:
        # from then to now is its decision time, the time it thought plus its network's.
        log_entry["decision_s"] = round(max(0.0, now - (clock - timeout)), 3)
    return Step(record, state, events, log_entry, deadline, bots_due, to_act)


def finish(record: TableRecord, now: float, events: Events, outcome: dict[str, Any],
           text: str) -> TableRecord:
    """The record of a table that ends now with ``outcome``; appends its ``table.finished``
    event to ``events``. Every end (played out, closed, forfeited, cancelled) takes this."""
    events.append((None, {"kind": "table.finished", "text": text, "data": {"outcome": outcome}}))
    return record.model_copy(update={"status": "finished", "outcome": outcome, "finished_at": now})


async def note_finished(ctx: TableContext, record: TableRecord) -> None:
    """After a commit that finished a table: it no longer counts against its creator, and
    a rated or tournament table goes to its ladder or tournament at once."""
    await quotas.release(ctx, record)
    if record.rated or record.tournament is not None:
        await ctx.tournaments.note_finished(record)


def finished_text(outcome: Outcome) -> str:
    """The ``table.finished`` line: who won, in short (the game's own end event, just
    before it, tells how)."""
    winners = [str(seat) for seat in outcome.winners]
    if not winners:
        who = "nobody wins"
    elif len(winners) == 1:
        who = f"seat {winners[0]} wins"
    else:
        who = f"seats {', '.join(winners[:-1])} and {winners[-1]} share the win"
    return f"The table is over ({outcome.reason.replace('_', ' ')}): {who}."


def retention(ctx: TableContext, record: TableRecord) -> int | None:
    """Seconds a table written as ``record`` is kept: ``finished_table_ttl_s`` once it is
    finished (its replay stays readable that long), for ever before."""
    return ctx.settings.finished_table_ttl_s if record.status == "finished" else None


async def commit_step(
    ctx: TableContext,
    loaded: LoadedTable,
    step: Step,
    *,
    idempotency_scope: str | None = None,
    idempotency: IdempotencyRecord | None = None,
    announce_bots: bool = True,
    besides: Watch | None = None,
) -> tuple[CommitResult, LoadedTable | None]:
    """Store ``step`` if the table is still at ``loaded.version``, in one round trip (the
    compare-and-set indexes the clock and bots itself); returns the commit's result and,
    when it applied, the table as written. The house-bot driver passes
    ``announce_bots=False``: it plays on the table it holds rather than announce it to itself.

    When the step changes who acts and waiters other than ``besides`` (the caller's own
    watch) watch the table's turn stream on this worker, the round trip also reads the
    recent history, and they are handed the table as written
    (:meth:`gateway.services.waiters.Waiters.deliver`): no read of their own.
    """
    table_id = loaded.snapshot.table_id
    turns = ctx.store.turns_key(table_id)
    bots_due = step.bots_due and announce_bots
    state_json = step.state.model_dump_json()
    record = step.record.model_dump(mode="json") if step.record is not loaded.record else None
    hands_over = tuple(step.to_act) != tuple(loaded.game.to_act(loaded.state))
    result = await ctx.store.commit(
        table_id,
        expected_version=loaded.version,
        record=record,
        state=state_json,
        deadline=step.deadline,
        events=step.events,
        log=[step.log_entry],
        idempotency_scope=idempotency_scope,
        idempotency=idempotency,
        to_act=step.to_act,
        expire_s=retention(ctx, step.record),
        history=((LOG_TAIL, FIRST_READ_EVENTS)
                 if hands_over and ctx.waiters.watched(turns, besides=besides) else None),
        index_clock=step.deadline,
        index_bots=_bots_at(ctx, bots_due),
    )
    if not result.applied:
        return result, None
    if bots_due:
        ctx.bots_due.set()
    if step.record.status == "finished":
        await note_finished(ctx, step.record)
    snapshot = TableSnapshot(
        table_id=table_id,
        record_json=loaded.snapshot.record_json if record is None else json.dumps(record),
        state=state_json, version=result.version, seq=result.last_seq, deadline=step.deadline)
    written = LoadedTable(snapshot=snapshot, record=step.record, game=loaded.game,
                          state=step.state)
    if result.history is not None and result.turn_written:
        ctx.waiters.deliver(turns, Written(written, result.history))
    return result, written


async def commit_record(
    ctx: TableContext, record: TableRecord, game: Game[Any, Any, Any], state: Any,
    events: Events, now: float, *, version: int = -1,
    idempotency_scope: str | None = None, idempotency: IdempotencyRecord | None = None,
) -> CommitResult:
    """Write a new table (``version`` -1: its dealt ``state`` too), or a change of the
    record alone of the table at ``version`` (a seat taken or left, the table closed), by
    compare-and-set; then what its status asks: a table no longer open leaves the open
    index, a finished one :func:`note_finished`.

    A record change tells the turn stream that who acts is not known, so every seat
    waiting at the table reads it (it may have left or taken a seat).
    """
    new = version == -1
    deadline, bots_due, to_act = schedule_for(record, game, state, now)
    result = await ctx.store.commit(
        record.id, expected_version=version, record=record.model_dump(mode="json"),
        state=state.model_dump_json() if new else None, deadline=deadline, events=events,
        idempotency_scope=idempotency_scope, idempotency=idempotency,
        to_act=to_act if new else None, expire_s=retention(ctx, record),
        index_clock=deadline, index_bots=_bots_at(ctx, bots_due),
    )
    if not result.applied:
        return result
    if bots_due:
        ctx.bots_due.set()
    if not new and record.status != "open":
        await ctx.store.unindex_open(record.id)
    if record.status == "finished":
        await note_finished(ctx, record)
    return result


def _bots_at(ctx: TableContext, bots_due: bool) -> float | None:
    """When a commit's house bots are to play (its ``index_bots``); ``None``: none is due."""
    return ctx.now() + ctx.settings.house_bot_delay_s if bots_due else None


def require_scope(principal: Principal, game: str) -> None:
    if not principal.may_play(game):
        raise problem("auth/wrong_scope", f"Your token does not allow playing {game}.")


def _fingerprint(body: ActionRequest) -> str:
    """The request body's canonical fields, hashed, to tell a retry from a reused key: the
    version and the action id as sent (a structured action as sorted JSON)."""
    action = body.action
    if not isinstance(action, str):
        raw = action.model_dump(mode="json") if isinstance(action, BaseModel) else action
        action = "\x00" + json.dumps(raw, sort_keys=True)  # never equal to an id string
    return hashlib.blake2b(f"{body.version}\x00{action}".encode(), digest_size=16).hexdigest()


def _parse_action(game: Game[Any, Any, Any], submitted: Any) -> Action:
    """The game's action for an id string or a structured body; ``action/malformed`` otherwise."""
    try:
        if isinstance(submitted, str):
            parsed: Action = game.parse_action(submitted)
            return parsed
        raw = submitted.model_dump(mode="json") if isinstance(submitted, BaseModel) else submitted
        action: Action = TypeAdapter(game.action_type).validate_python(raw)
        return action
    except MalformedAction as error:
        raise problem("action/malformed", error.message) from None
    except ValidationError as error:
        raise problem(
            "action/malformed",
            f"Not an action of this game: {error.error_count()} schema error(s).",
            errors=[{"loc": list(e["loc"]), "msg": e["msg"]} for e in error.errors()],
        ) from None


def _engine_problem(error: EngineError, legal: list[Action]) -> ProblemError:
    """An engine rules error as problem+json, naming the rule and what is legal now."""
    extra: dict[str, Any] = {"legal_actions": [action.id for action in legal]}
    if error.rule:
        extra["rule"] = error.rule
    if error.code == "action/not_your_turn":
        return problem("action/not_your_turn", error.message, **extra)
    return ProblemError(422, error.code, "Illegal action", error.message, **extra)


@dataclass(frozen=True)
class Applied:
    """An agent's action as applied (by this request, or first by an earlier one with the
    same idempotency key: ``retried``), and the table after it."""

    table: LoadedTable
    """The table as the commit wrote it; for a retry, as read now."""
    seat: Seat
    principal: Principal
    version: int
    """The version the action produced."""
    action: LegalActionOut
    events: list[EventOut]
    """The action's events the seat may see."""
    retried: bool = False

    @property
    def decides(self) -> bool:
        """Whether the seat is at a decision point: to act, or the table is not being played."""
        table = self.table
        return table.record.status != "playing" or self.seat in table.game.to_act(table.state)

    def result(self, observation: ObservationOut | None) -> ActionResult:
        """The answer, with the seat's ``observation`` (its status and outcome are the
        answer's; ``None``: the socket's ``accepted``, whose observation is pushed)."""
        record = self.table.record
        return ActionResult(
            table_id=record.id, version=self.version, action=self.action, events=self.events,
            status=observation.status if observation is not None else record.status,
            outcome=observation.outcome if observation is not None else outcome_out(record),
            observation=observation,
        )


async def submit(
    ctx: TableContext,
    table_id: str,
    caller: PendingRevocation,
    body: ActionRequest,
    idempotency_key: str | None,
    *,
    watch: Watch | None = None,
    told: LoadedTable | None = None,
) -> Applied:
    """Apply one agent's action, at most once per idempotency key.

    A ``version`` that is not the table's current one is ``table/stale_version``
    with ``current_version``. The caller's token revocation is asked in the same
    round trip as the table, and refused before anything about the table is told.
    ``watch``: the caller's own watch of the table's turn stream, if it holds one
    (:func:`commit_step`'s ``besides``).

    ``told``: the table as the caller was last told it, from a connection that holds it
    anyway and is closed when its token is revoked (the bot socket). At the action's
    version it is acted on without a read: the commit's compare-and-set on the version,
    and its check of the idempotency key, refuse it if the table or the key moved on,
    and a read follows; so does any refusal, so every answer is the one a read gives.
    Revocation is then the connection's to enforce: it closes on the revocation's
    publish, so an action sent while that publish is on its way may still apply, as an
    HTTP action whose read came just before the revocation does. That holds only while
    the publish can be heard: while the subscription of the token's revocation mark is
    not confirmed (the listener's link is down), the told table is not used and the
    revocation is read, as over HTTP.
    """
    scope = f"{caller.agent_id}:{idempotency_key}" if idempotency_key else None
    fingerprint = _fingerprint(body)
    told_now = (told if told is not None and told.version == body.version
                and ctx.waiters.confirmed(caller.revoked_key) else None)
    for _attempt in range(3):  # the told table, a read, and a read again when a retry won the race
        if told_now is not None:
            # No revocation read: the connection closes on the revocation's publish.
            caller.confirm_still_valid()
            loaded, stored, principal = told_now, None, caller.confirm(revoked=False)
        else:
            snapshot, stored, revoked = await ctx.store.load_for_action(
                table_id, scope, caller.revoked_key)
            principal = caller.confirm(revoked)  # before anything about the table is told
            loaded = parse_table(table_id, snapshot)
        try:
            seat = _seat_in(loaded, principal)
            if stored is not None:
                return await _applied_before(ctx, loaded, seat, principal, stored, fingerprint)
            action, step = await _step_for(ctx, loaded, seat, principal, body,
                                           count_refusal=loaded is not told_now)
        except ProblemError:
            if loaded is not told_now:
                raise
            told_now = None  # refused on the told table: answered from a read, as any request
            continue
        first, last = loaded.snapshot.seq + 1, loaded.snapshot.seq + len(step.events)
        idempotency = (IdempotencyRecord(fingerprint, loaded.version + 1, action.id, (first, last))
                       if scope is not None else None)
        committed, written = await commit_step(
            ctx, loaded, step, idempotency_scope=scope, idempotency=idempotency, besides=watch)
        if written is not None:
            return Applied(
                table=written, seat=seat, principal=principal, version=written.version,
                action=LegalActionOut(id=action.id, text=action.text),
                events=[event_out(first + index, audience, event)
                        for index, (audience, event) in enumerate(step.events)
                        if audience is None or seat in audience],
            )
        if committed.replayed is None:
            raise _stale(committed.version, body.version)
        told_now = None
    raise _stale(loaded.version, body.version)


def _seat_in(loaded: LoadedTable, principal: Principal) -> Seat:
    """The caller's seat at the table; a private table it may not see is not found."""
    record = loaded.record
    seat = record.seat_of(principal.agent_id)
    if seat is None:
        if not may_see(record, principal):
            raise not_found(record.id)  # a private table is not admitted to exist
        raise problem("table/not_seated", "You do not sit at this table.")
    require_scope(principal, record.game)
    return seat


async def _step_for(
    ctx: TableContext, loaded: LoadedTable, seat: Seat, principal: Principal,
    body: ActionRequest, *, count_refusal: bool,
) -> tuple[Action, Step]:
    """The seat's action and the step it makes, or the refusal a request at that version
    gets; ``count_refusal``: a refusal of the action itself is counted for the table's
    tournament report (once per request: not on a told table, which a read answers again)."""
    record, game = loaded.record, loaded.game
    if record.status == "open":
        raise problem("table/not_started", "The table starts when every seat is taken.")
    if record.status == "finished":
        raise problem("table/finished", "The table is over; see its replay.")
    if body.version != loaded.version:
        raise _stale(loaded.version, body.version)
    try:
        to_act = game.to_act(loaded.state)
        if seat not in to_act:
            raise problem(
                "action/not_your_turn",
                f"Seat {seat} is not to act now; seats to act: {to_act}.", to_act=to_act,
            )
        action = _parse_action(game, body.action)
        try:
            return action, advance(loaded, seat, action, by="agent", now=ctx.now())
        except EngineError as error:
            raise _engine_problem(error, game.legal_actions(loaded.state, seat)) from None
    except ProblemError:
        if record.tournament is not None and count_refusal:
            await ctx.tournaments.note_refused(record, principal.agent_id)
        raise


async def _applied_before(
    ctx: TableContext, loaded: LoadedTable, seat: Seat, principal: Principal,
    stored: IdempotencyRecord, fingerprint: str,
) -> Applied:
    """A retried action, told again from its idempotency record and the table now: its
    action, and its events as the seat may see them (read back by their ids)."""
    if stored.fingerprint != fingerprint:
        raise problem(
            "idempotency/conflict", "This Idempotency-Key was already used with another body."
        )
    first, last = stored.events
    events: list[StoredEvent] = (
        await ctx.store.events_after(loaded.snapshot.table_id, first - 1, count=last - first + 1)
        if last else [])
    action = loaded.game.parse_action(stored.action)
    return Applied(
        table=loaded, seat=seat, principal=principal, version=stored.version,
        action=LegalActionOut(id=action.id, text=action.text),
        events=[event_out(event.seq, event.audience, event.body)
                for event in events if event.visible_to(seat)],
        retried=True,
    )


def _stale(current: int, sent: int) -> ProblemError:
    if sent > current:  # not a table that moved on: a version it never had
        detail = (f"Version {sent} is ahead of the table, which is at version {current}; "
                  "send the version of your latest observation.")
    else:
        detail = f"The table moved on to version {current}; observe again and resend."
    return problem("table/stale_version", detail, current_version=current)
