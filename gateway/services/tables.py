"""Table lifecycle: create, list, show, join, leave, close, observe, replay.

Joining and leaving are compare-and-set changes like actions: on a version
conflict the table is read again and the request checked again, so two agents
racing for the last seat never both get it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import secrets
import time
import zlib
from typing import Any, NamedTuple

from pydantic import ValidationError

from agents.wire.tables import (
    ActionRequest,
    ActionResult,
    CreateTableRequest,
    LogEntryOut,
    ObservationOut,
    ReplayOut,
    SeatOut,
    TableList,
    TableOut,
    TableStatus,
)
from engine.bots import UnknownBot, available_bots, get_bot
from engine.core import Game, InvalidConfig, Seat
from gateway.errors import rate_limited
from gateway.principal import Principal
from gateway.security import PendingRevocation
from gateway.services import quotas
from gateway.services.access import require_visible
from gateway.services.actions import (
    Applied,
    Events,
    commit_record,
    finish,
    load_table,
    parse_table,
    read_visible,
    require_scope,
    submit,
)
from gateway.services.context import TableContext
from gateway.services.loaded_table import LoadedTable
from gateway.services.observations import (
    FIRST_READ_EVENTS,
    LOG_TAIL,
    RECENT_EVENTS,
    RECENT_LOG_ENTRIES,
    TABLE_FIELDS,
    SinceLastMove,
    SpectatorReason,
    event_out,
    last_move,
    observation,
    outcome_out,
    reaches,
    since_last_move,
    table_settings,
)
from gateway.services.records import SeatRecord, TableRecord, game_or_problem, problem
from gateway.services.waiters import Watch
from gateway.store.admission import AdmissionStore
from gateway.store.tables import (
    IdempotencyRecord,
    RecentHistory,
    StoredEvent,
    TableSnapshot,
    TurnEntry,
)
from tournament.house import house_bot_name

__all__ = [
    "CAS_ATTEMPTS",
    "Position",
    "build_replay",
    "close_table",
    "closed",
    "create_table",
    "get_table",
    "hold",
    "join_table",
    "leave_table",
    "limit_anonymous_replays",
    "list_tables",
    "observation_after",
    "observation_of",
    "observe",
    "play",
    "replay_json",
    "require_replay_open",
    "seat_event",
    "seat_record",
    "start_if_full",
    "table_config",
    "table_out",
    "with_first_decision",
]

CAS_ATTEMPTS = 20
"""Reads allowed to a change of a table's record (a join, a leave, a close) that keeps
losing the compare-and-set race; then it gives up."""


_FREE_SEAT: dict[str, Any] = {"agent_id": None, "name": None, "kind": None}


def table_out(record: TableRecord, version: int, principal: Principal | None) -> TableOut:
    """The public facts of a table (never the seed or state)."""
    return TableOut(
        id=record.id,
        game=record.game,
        mode=record.mode,
        seats=record.seats,
        variants=record.variants,
        private=record.private,
        status=record.status,
        turn_timeout_s=record.turn_timeout_s,
        created_by=record.created_by,
        created_at=record.created_at,
        seated=[SeatOut(seat=seat, **(occupant.model_dump() if occupant else _FREE_SEAT))
                for seat, occupant in enumerate(record.seated)],
        version=version,
        your_seat=record.seat_for(principal),
        outcome=outcome_out(record),
        settings=table_settings(record),
    )


def seat_event(kind: str, seat: Seat, occupant: SeatRecord, verb: str) -> dict[str, Any]:
    """A ``seat.joined`` (``verb`` took) or ``seat.left`` (``verb`` left) event's body."""
    return {
        "kind": kind,
        "text": f"{occupant.name} {verb} seat {seat}.",
        "data": {"seat": seat, "name": occupant.name, "agent_id": occupant.agent_id},
    }


def seat_record(entrant: str, seat: int, name: str) -> SeatRecord:
    """The seat of one entrant: an agent by its id and registered name, or a house bot
    (``bot:<name>``, or ``bot:<name>#<n>`` for one of several copies)."""
    if entrant.startswith("bot:"):
        bot = house_bot_name(entrant)
        return SeatRecord(agent_id=f"bot:{bot}:{seat}", name=f"{name} (seat {seat})",
                          kind="house_bot", bot=bot)
    return SeatRecord(agent_id=entrant, name=name)


def start_if_full(record: TableRecord, now: float, events: Events) -> TableRecord:
    """A table starts the moment its last seat is taken."""
    if record.status != "open" or not record.full:
        return record
    events.append((None, {"kind": "table.started", "text": "Every seat is taken; play begins.", "data": {}}))
    return record.model_copy(update={"status": "playing", "started_at": now})


def table_config(
    game: Game[Any, Any, Any], options: dict[str, Any], *, mode: str, seats: int,
    variants: list[str],
) -> Any:
    """The game's configuration of a table: ``options`` and the request's own fields,
    validated strictly as every request field is (an option of the wrong type, "1", true
    or 1.0 for an integer cap, is refused, never coerced). Options may lower a game's
    numeric caps (turn limits, match targets), never raise them past the rulebook's
    values (the config's defaults): a table of house bots with a cap of 10**30 would play
    on for ever, at the server's expense.

    :raises ProblemError: ``table/invalid_config``.
    """
    named_twice = sorted(set(options) & TABLE_FIELDS)
    if named_twice:  # the request's own field would win: refuse rather than drop it
        raise problem(
            "table/invalid_config",
            f"Send {', '.join(named_twice)} as request field(s), not in options.",
        )
    try:
        config = game.config_model.model_validate(
            {**options, "mode": mode, "seats": seats, "variants": tuple(variants)}, strict=True)
    except ValidationError as error:
        errors = [{"loc": list(e["loc"]), "msg": e["msg"]} for e in error.errors()]
        # The first reason goes in the detail too: many clients show only the detail.
        first = errors[0]
        where = ".".join(str(part) for part in first["loc"]) or "options"
        where = where if len(where) <= 60 else where[:60] + "…"  # an option name is the caller's text
        raise problem(
            "table/invalid_config",
            f"The table configuration does not fit this game ({where}: {first['msg']}).",
            errors=errors,
        ) from None
    fields = game.config_model.model_fields
    for name in sorted(set(options) & set(fields) - TABLE_FIELDS):
        default = fields[name].default
        value = getattr(config, name)
        numeric = isinstance(default, int | float) and not isinstance(default, bool)
        if numeric and isinstance(value, int | float) and value > default:
            raise problem(
                "table/invalid_config",
                f"Option {name} may be at most {default} (the rulebook's value); got more.",
            )
    return config


def _check_rated(principal: Principal, request: CreateTableRequest) -> None:
    """Only the organiser opens a rated table: a rating must measure play, so an agent never
    arranges who it plays (:mod:`gateway.services.rated_queue` seats agents at random).

    :raises ProblemError: ``table/rated_not_allowed``.
    """
    if request.rated and principal.kind != "organiser":
        raise problem(
            "table/rated_not_allowed",
            "An agent never opens a rated table: join the rated queue (POST "
            f"/v1/games/{request.game}/rated-queue), which seats agents at random, or play "
            "the organiser's tournaments; leave rated out for a practice table.")


def _check_seed_choice(principal: Principal, request: CreateTableRequest) -> None:
    """Who may choose a seed: the deal is the public engine's ``new_table(config, seed)``,
    so whoever knows the seed knows every hidden card and the deck order. The organiser
    may (it runs the club); an agent only for a table it sits at with house bots in every
    other seat: such a table starts at once and no other agent can ever sit there, so the
    only hands it can read are the bots'. Anything else is refused, never silently dealt
    from another seed.

    A rated table never takes a chosen seed, not even from the organiser: house bots are
    deterministic given seed, version and seat, so a chosen seed is a result decided
    offline, and the ladder must measure play.

    :raises ProblemError: ``table/seed_not_allowed``.
    """
    if request.seed is None:
        return
    if request.rated:
        raise problem(
            "table/seed_not_allowed",
            "A rated table is dealt from a secret seed; leave seed out (or rated false).",
        )
    if principal.kind == "organiser":
        return
    if request.join and len(request.house_bots) == request.seats - 1:
        return  # the bot seats are checked distinct and in range before the deal
    raise problem(
        "table/seed_not_allowed",
        "An agent may choose the seed only of a table it sits at (join true) with house bots "
        "in every other seat; leave seed out and the server deals from a secret one, revealed "
        "by the replay after the end.",
    )


async def create_table(
    ctx: TableContext, principal: Principal, request: CreateTableRequest,
    *, idempotency_key: str | None = None,
) -> TableOut:
    """Create a table (dealt now, started when full); the creator sits unless ``join`` is false.

    With ``idempotency_key`` a retry (the same agent, key and body, within
    ``IDEMPOTENCY_TTL_S``) makes no second table: it is answered with the table the first
    request created, as it is now; the same key with another body is
    ``idempotency/conflict``. A public table is listed before it is written, so a table
    never exists unlisted whatever reply is lost (an entry whose table never came is
    dropped by :func:`list_tables`).
    """
    game = game_or_problem(request.game)
    require_scope(principal, request.game)
    _check_seed_choice(principal, request)
    _check_rated(principal, request)
    config = table_config(game, request.options, mode=request.mode, seats=request.seats,
                          variants=request.variants)
    seated: list[SeatRecord | None] = [None] * request.seats
    for house_bot in request.house_bots:
        if house_bot.seat >= request.seats or seated[house_bot.seat] is not None:
            raise problem(
                "table/invalid_config",
                f"House bot seat {house_bot.seat} is out of range or given twice.",
            )
        # Unnamed: greedy where the game has it, else random (as ``agents-club play`` does).
        wanted = house_bot.bot or (
            "greedy" if "greedy" in available_bots(request.game) else "random")
        try:
            bot = get_bot(request.game, wanted)
        except UnknownBot:
            raise problem(
                "table/unknown_bot", f"No house bot {wanted!r} for {request.game}."
            ) from None
        seated[house_bot.seat] = seat_record(f"bot:{bot.name}", house_bot.seat, f"{bot.name} bot")
    # Unknowable before the end unless chosen as _check_seed_choice allows.
    seed = request.seed if request.seed is not None else secrets.randbits(63)
    try:
        state = game.new_table(config, seed)
    except InvalidConfig as error:
        raise problem("table/invalid_config", error.message) from None
    now = ctx.now()
    table_id = secrets.token_hex(8)
    scope = f"{principal.agent_id}:{idempotency_key}" if idempotency_key is not None else None
    # What makes two creates with one key the same request ("|None" ends the material as
    # in the claims already stored, so their retries still match).
    fingerprint = hashlib.sha256((request.model_dump_json() + "|None").encode()).hexdigest()
    earlier: TableOut | str | None = None
    if scope is not None:
        earlier = await _earlier_create(ctx, principal, await ctx.store.create_claim(scope),
                                        fingerprint)
        if isinstance(earlier, TableOut):
            return earlier
        table_id = earlier or table_id
    # Reserved before the write (atomically against the cap), so concurrent creates
    # on any worker cannot all pass it. When the write fails the reservation stays:
    # the table may or may not exist, and the cap's pruning drops it if it never does.
    # The idempotency claim comes after: a create refused at the cap stores nothing.
    reserved = await quotas.reserve(ctx, principal, table_id, now)
    if scope is not None and earlier is None:
        claimed = await ctx.store.claim_create(scope, table_id, fingerprint)
        if claimed is not None:  # a retry racing this request claimed first: its table wins
            await quotas.unreserve(ctx, principal, table_id)
            earlier = await _earlier_create(ctx, principal, claimed, fingerprint)
            if isinstance(earlier, TableOut):
                return earlier
            table_id = earlier or table_id
            reserved = await quotas.reserve(ctx, principal, table_id, now)
    events: Events = [(None, {
        "kind": "table.created",
        "text": f"{principal.name} opened a {game.info.title} table for {request.seats}.",
        "data": {"game": request.game, "mode": request.mode, "seats": request.seats},
    })]
    for seat, occupant in enumerate(seated):
        if occupant is not None:
            events.append((None, seat_event("seat.joined", seat, occupant, "took")))
    if request.join:
        free = next((seat for seat, occupant in enumerate(seated) if occupant is None), None)
        if free is None:
            raise problem("table/full", "Every seat is taken by house bots; there is none for you.")
        seated[free] = SeatRecord(agent_id=principal.agent_id, name=principal.name)
        events.append((None, seat_event("seat.joined", free, seated[free], "took")))  # type: ignore[arg-type]
    record = TableRecord(
        id=table_id,
        game=request.game,
        mode=request.mode,
        seats=request.seats,
        variants=list(request.variants),
        config=config.model_dump(mode="json"),
        private=request.private,
        turn_timeout_s=(request.turn_timeout_s if request.turn_timeout_s is not None
                        else ctx.settings.default_turn_timeout_s),
        created_by=principal.agent_id,
        created_at=now,
        seated=seated,
        seed=seed,
        rated=request.rated,
    )
    record = start_if_full(record, now, events)
    if not record.private:  # listed first: a lost reply to the write leaves no orphan
        await ctx.store.index_public(table_id, now, open_=record.status == "open")
    if record.rated:  # before the write: the ladder's sweep must know every rated table
        await ctx.tournaments.note_rated_table(table_id, record.game)
    result = await commit_record(ctx, record, game, state, events, now)
    if not result.applied:
        # Written already: by this very request (the client library resent the write after
        # a lost reply), by a retry with the same key, or (vanishingly rare) another
        # table drew the same 64-bit id, which is never overwritten.
        written = await _created_by(ctx, table_id, principal,
                                    created_at=None if idempotency_key else now)
        if written is not None:
            return written
        if reserved:
            await quotas.release(ctx, record)
        raise problem("server/error", "Could not allocate a table id; try again.")
    return table_out(record, result.version, principal)


async def _earlier_create(
    ctx: TableContext, principal: Principal, claimed: tuple[str, str] | None, fingerprint: str
) -> TableOut | str | None:
    """What an earlier create with the same idempotency key left: its table (answered
    again), its table id when it stopped before writing it (this request writes it), or
    ``None`` when there was none.

    :raises ProblemError: ``idempotency/conflict`` when the key came with another body.
    """
    if claimed is None:
        return None
    earlier_id, earlier_fingerprint = claimed
    if earlier_fingerprint != fingerprint:
        raise problem("idempotency/conflict",
                      "This Idempotency-Key was already used with another body.")
    written = await _created_by(ctx, earlier_id, principal)
    return written if written is not None else earlier_id


async def _created_by(
    ctx: TableContext, table_id: str, principal: Principal, *, created_at: float | None = None
) -> TableOut | None:
    """The table ``table_id`` when it exists and ``principal`` created it (at ``created_at``
    when given), re-listed if it is public (idempotent); ``None`` otherwise."""
    snapshot = await ctx.store.load(table_id)
    if snapshot is None:
        return None
    loaded = parse_table(table_id, snapshot)
    record = loaded.record
    if record.created_by != principal.agent_id:
        return None
    if created_at is not None and record.created_at != created_at:
        return None
    if not record.private:
        await ctx.store.index_public(table_id, record.created_at, open_=record.status == "open")
    return table_out(record, loaded.version, principal)


async def get_table(ctx: TableContext, table_id: str, principal: Principal | None) -> TableOut:
    """The public facts of one table (a private one only for its people)."""
    loaded = await load_table(ctx, table_id)
    require_visible(loaded.record, principal)
    return table_out(loaded.record, loaded.version, principal)


async def list_tables(
    ctx: TableContext,
    principal: Principal | None,
    *,
    game: str | None,
    mode: str | None,
    status: TableStatus | None,
    offset: int,
    limit: int,
) -> TableList:
    """Listed tables, newest first, filtered within the requested page of the index.

    ``status="open"`` reads the open index, so every page is full of joinable tables.
    """
    ids = await ctx.store.public_table_ids(
        offset=offset, limit=limit + 1, open_only=status == "open"
    )
    more = len(ids) > limit
    records = await ctx.store.load_records(ids[:limit])
    unwritten = set(ids[:limit]) - {raw["id"] for raw in records}
    if unwritten:  # listed by a create that never wrote its table (it lists first)
        await ctx.store.prune_unwritten(sorted(unwritten), ctx.now() - quotas.UNWRITTEN_AFTER_S)
    tables = []
    for raw in records:
        version = raw.pop("version")
        record = TableRecord.model_validate(raw)
        if record.private:  # only an id collision could list one; never show it
            continue
        if game is not None and record.game != game:
            continue
        if mode is not None and record.mode != mode:
            continue
        if status is not None and record.status != status:
            continue
        tables.append(table_out(record, version, principal))
    return TableList(tables=tables, next_offset=offset + limit if more else None)


_JOIN_FINGERPRINT = "join"
"""A join has no body: one key names one join of one table."""


async def join_table(
    ctx: TableContext, table_id: str, principal: Principal, *, idempotency_key: str | None = None
) -> TableOut:
    """Sit ``principal`` in the first free seat; the table starts when this fills it.

    A private table's id is its invitation: anyone holding it may join while
    the table is open; once it has started it is hidden from everyone else.

    With ``idempotency_key`` a retry is answered as joined, with the table as it is
    then (the key is recorded with the join, atomically), not ``table/already_seated``.
    Within one request, a write the client library resent after a lost reply is
    recognised the same way.
    """
    scope = f"{principal.agent_id}:{idempotency_key}" if idempotency_key else None
    wrote = False
    for _attempt in range(CAS_ATTEMPTS):  # after a lost race (to a retry too), read again
        snapshot, stored, _revoked = await ctx.store.load_for_action(table_id, scope)
        loaded = parse_table(table_id, snapshot)
        record = loaded.record
        if record.status != "open":
            require_visible(record, principal)
        require_scope(principal, record.game)
        if stored is not None:  # a retry: answered with the table as it is now
            if stored.fingerprint != _JOIN_FINGERPRINT:  # the key named an action here
                raise problem("idempotency/conflict",
                              "This Idempotency-Key was already used with another body.")
            return table_out(record, loaded.version, principal)
        if record.seat_of(principal.agent_id) is not None:
            if wrote:  # seated since this request's write was sent: by that write
                return table_out(record, loaded.version, principal)
            raise problem("table/already_seated", "You already sit at this table.")
        if record.full:
            raise problem("table/full", "Every seat at this table is taken.")
        if record.status == "finished":  # closed before the start
            raise problem("table/finished", "The table is over; it cannot be joined.")
        seat = next(seat for seat, occupant in enumerate(record.seated) if occupant is None)
        occupant = SeatRecord(agent_id=principal.agent_id, name=principal.name)
        seated = list(record.seated)
        seated[seat] = occupant
        events: Events = [(None, seat_event("seat.joined", seat, occupant, "took"))]
        now = ctx.now()
        record = start_if_full(record.model_copy(update={"seated": seated}), now, events)
        idempotency = (IdempotencyRecord(_JOIN_FINGERPRINT, loaded.version + 1)
                       if scope is not None else None)
        wrote = True
        result = await commit_record(ctx, record, loaded.game, loaded.state, events, now,
                                     version=loaded.version, idempotency_scope=scope,
                                     idempotency=idempotency)
        if result.applied:
            return table_out(record, loaded.version + 1, principal)
    raise problem("table/stale_version", "The table kept changing; try again.",
                  current_version=loaded.version)


async def leave_table(ctx: TableContext, table_id: str, principal: Principal) -> TableOut:
    """Give up a seat before the table starts, or forfeit a started rated table.

    The last agent to leave closes the table (``finished``, outcome reason
    ``abandoned``): an open table of house bots alone would otherwise wait for
    ever, and its creator could rejoin it later without it counting against the
    table cap. Leaving a started rated table ends it as a forfeit: the leaver places
    last and the ladder rates it at once (leaving a losing table must not erase the
    loss). Any other started table keeps its seats.
    """
    for _attempt in range(CAS_ATTEMPTS):
        loaded = await load_table(ctx, table_id)
        record = loaded.record
        require_visible(record, principal)
        seat = record.seat_of(principal.agent_id)
        if seat is None:
            raise problem("table/not_seated", "You do not sit at this table.")
        if record.status == "finished":
            raise problem("table/finished", "The table is over; there is nothing to leave.")
        if record.status != "open" and not record.rated:
            raise problem("table/started", "The table has started; seats are fixed.")
        events: Events = []
        now = ctx.now()
        if record.status != "open":
            record = _forfeited(record, seat, now, events,
                                f"{principal.name} left the table during play and forfeits it.")
        else:
            occupant = record.seated[seat]
            assert occupant is not None
            seated = list(record.seated)
            seated[seat] = None
            events.append((None, seat_event("seat.left", seat, occupant, "left")))
            record = _close_if_abandoned(record.model_copy(update={"seated": seated}), now, events)
        if (await commit_record(ctx, record, loaded.game, loaded.state, events, now,
                                version=loaded.version)).applied:
            return table_out(record, loaded.version + 1, principal)
    raise problem("table/stale_version", "The table kept changing; try again.",
                  current_version=loaded.version)


ABANDONED = "abandoned"
"""The outcome ``reason`` of a table closed because its last agent left before the start."""

CLOSED = "closed"
"""The outcome ``reason`` of a table its creator (or the organiser) closed before the start."""

FORFEIT = "forfeit"
"""The outcome ``reason`` of a started table given up by a seat: a rated table a seated
agent left, or closed as its creator, or a tournament table one of its entrants closed.
The leaver places last (every other seat places ahead of it)."""


def _forfeited(record: TableRecord, seat: Seat, now: float, events: Events, text: str) -> TableRecord:
    """The record of a rated table given up by ``seat``: it places last, the others share
    first place, and the ladder rates it like any finished table."""
    outcome = {"winners": [], "reason": FORFEIT, "scores": [], "eliminated": [seat], "text": text}
    return finish(record, now, events, outcome, text)


def closed(record: TableRecord, now: float, events: Events, reason: str, text: str) -> TableRecord:
    """The record of a table that ends before its game does, nobody winning."""
    return finish(record, now, events, {"winners": [], "reason": reason, "scores": [], "text": text},
                  text)


def _close_if_abandoned(record: TableRecord, now: float, events: Events) -> TableRecord:
    """An open table that no agent sits at any more (after a leave) is over."""
    if record.status != "open" or any(
        occupant is not None and occupant.kind == "agent" for occupant in record.seated
    ):
        return record
    return closed(record, now, events, ABANDONED,
                   "Every agent left before the start; the table is closed.")


async def close_table(ctx: TableContext, table_id: str, principal: Principal) -> TableOut:
    """End a table before its end: for its creator (or the organiser) only; nobody wins it.

    An open table may always be closed (how a creator frees its place under the cap); a
    started one only when no other agent plays there, so a developer who stops its bot
    need not wait for the turn clocks; the organiser may close any. A started rated table
    closed by its seated creator is forfeited instead (closing a losing table must not
    erase the loss), and so is a tournament table closed by one of its entrants, whoever
    else plays there: how an entrant that cannot play on gives up its tables at once.
    """
    for _attempt in range(CAS_ATTEMPTS):
        loaded = await load_table(ctx, table_id)
        record = loaded.record
        require_visible(record, principal)
        seat = record.seat_of(principal.agent_id)
        entrant = record.tournament is not None and seat is not None
        if principal.agent_id != record.created_by and principal.kind != "organiser" and not entrant:
            raise problem("table/not_creator", "Only the agent that created this table may close it.")
        if record.status == "finished":
            raise problem("table/finished", "The table is over already.")
        was_open = record.status == "open"
        other_agents = any(
            occupant is not None and occupant.kind == "agent"
            and occupant.agent_id != principal.agent_id for occupant in record.seated)
        if not was_open and principal.kind != "organiser" and not entrant and other_agents:
            raise problem("table/started",
                          "The table has started with other agents; it ends by play only.")
        events: Events = []
        now = ctx.now()
        when = "before the start" if was_open else "during play"
        if (record.rated or entrant) and not was_open and seat is not None:
            record = _forfeited(record, seat, now, events,
                                f"{principal.name} closed the table during play and forfeits it.")
        else:
            record = closed(record, now, events, CLOSED, f"{principal.name} closed the table {when}.")
        if (await commit_record(ctx, record, loaded.game, loaded.state, events, now,
                                version=loaded.version)).applied:
            return table_out(record, loaded.version + 1, principal)
    raise problem("table/stale_version", "The table kept changing; try again.",
                  current_version=loaded.version)


class Position(NamedTuple):
    """A caller's place at a table as of one read (or write) of it."""

    table: LoadedTable
    seat: int | None
    """``None``: a spectator."""
    principal: Principal | None


def _worth_answering(loaded: LoadedTable, seat: int | None, after_version: int) -> bool:
    """Whether a held observation should answer now (see :func:`hold`)."""
    record = loaded.record
    if record.status == "finished":
        return True
    if loaded.version <= after_version:
        return False
    return seat is None or (record.status == "playing" and seat in loaded.game.to_act(loaded.state))


def _still_not_to_act(turn: TurnEntry, read: TableSnapshot, seat: int) -> bool:
    """Whether the last turn entry shows, without parsing the table, that ``seat`` is
    still not to act: only when the entry is the table as read and names seats to act
    without ``seat``; nobody to act (the end) or not known (a join, a start) makes the
    waiter parse the table."""
    if (turn.seq, turn.version) != (read.seq, read.version) or not turn.to_act:
        return False
    return seat not in turn.to_act


async def observe(
    ctx: TableContext, table_id: str, caller: PendingRevocation | None, *, wait: float = 0.0
) -> ObservationOut:
    """What the caller's seat (or a spectator) sees, and the caller's legal actions.

    With ``wait`` the answer is held (:func:`hold`) until it is worth sending: a
    seated caller until it must act or the table ends, anyone else until the
    table changes. The caller's token revocation is asked with the first read.
    """
    loaded, principal = await read_visible(ctx, table_id, caller)
    seat = loaded.record.seat_for(principal)
    start = Position(loaded, seat, principal)
    after = loaded.version if seat is None else -1
    position, recent = await hold(ctx, table_id, caller, start, wait=wait, after_version=after)
    return await observation_of(ctx, table_id, caller, position, recent)


async def with_first_decision(
    ctx: TableContext, table: TableOut, caller: PendingRevocation, *, wait: float
) -> TableOut:
    """A create's or join's answer with, when ``wait`` is given and the caller sits
    there, the seat's observation held (:func:`observe`) until its first decision point,
    so an agent goes from its seat to its first action with no request between."""
    if wait <= 0 or table.your_seat is None:
        return table
    seen = await observe(ctx, table.id, caller, wait=wait)
    return table.model_copy(update={"observation": seen})


async def hold(
    ctx: TableContext, table_id: str, caller: PendingRevocation | None, start: Position, *,
    wait: float, after_version: int, watch: Watch | None = None,
) -> tuple[Position, RecentHistory | None]:
    """Wait from ``start`` (a read, or the table as a commit just wrote it) up to ``wait``
    seconds (capped by ``long_poll_max_wait_s`` and the token's life) until the table is
    worth answering: finished, or past ``after_version`` with the seat to act (any
    change, for a spectator). Returns the caller's position as of the last read, and
    the recent history read with it (when it was). ``watch``: the caller's own watch of
    the table's turn stream, held since before it read ``start`` (a socket's
    subscription), so the wait starts by waiting, not by reading.

    It reads, waits for a change, reads, holding no Redis connection while it waits
    (:mod:`gateway.services.waiters`). A spectator watches the event stream; a seat the
    turn stream, which has an entry only when who acts may have changed, so it wakes
    about once per turn, and an entry showing it still not to act needs no parse of the
    table; a wake from a commit of this worker brings the table it wrote, so it needs no
    read. Every read asks whether the token was revoked meanwhile (its mark is watched
    too) before anything it read is told, and the wait ends when the token expires.
    """
    loaded, seat, principal = start
    held_s = min(wait, ctx.settings.long_poll_max_wait_s)
    if caller is not None:  # no longer than the token verifies, and not at all once it expired
        caller.confirm_still_valid()
        held_s = caller.held_s(held_s)
    if held_s < 0.001 or _worth_answering(loaded, seat, after_version):
        return start, None
    give_up = time.monotonic() + held_s
    latest = loaded.snapshot  # the newest read of the table, parsed or not
    recent: tuple[TableSnapshot, RecentHistory] | None = None  # a read and its history
    asked = caller.revoked_key if caller is not None else None
    stream = ctx.store.events_key(table_id) if seat is None else ctx.store.turns_key(table_id)
    async with (ctx.waiters.watch(stream, asked) if watch is None
                else contextlib.nullcontext(watch)) as watching:
        after_wake = watch is not None  # a read after a wake usually answers: with history
        while True:  # (a new watch first reads what came before it began) wait, read
            if after_wake:
                remaining = give_up - time.monotonic()
                if remaining < 0.001:
                    break
                # The history of a read not worth answering is not held while it waits
                # (at thousands of waiting sockets, that is what the collector walks):
                # a wait that runs out has its answer read it again.
                recent = None
                if not await watching.changed(remaining, known=latest.version):
                    break
            changed = False
            written = watching.written if after_wake and seat is not None else None
            if written is not None and written.table.version > latest.version:
                # Woken by a commit of this worker, with the table it wrote: no read.
                latest, changed = written.table.snapshot, True
                recent = (latest, written.history)
            elif seat is None:  # a spectator: any change is worth answering
                revoked, woken, read = await ctx.store.events_then_table(
                    table_id, latest.seq, asked)
                if caller is not None:
                    caller.confirm(revoked)
                if read is None:
                    break
                if woken:
                    latest, changed = read, True
            else:  # a seat: only a change of who acts may be
                revoked, turns, read, history = await ctx.store.turns_then_table(
                    table_id, latest, asked,
                    history=(LOG_TAIL, FIRST_READ_EVENTS) if after_wake else None)
                if caller is not None:
                    caller.confirm(revoked)
                if read is None:
                    break
                if turns:
                    latest = read
                    recent = None if history is None else (read, history)
                    changed = not _still_not_to_act(turns[-1], read, seat)
            if changed:
                loaded = _visible(table_id, written.table if written is not None
                                  and latest is written.table.snapshot else latest, principal)
                if loaded.record.seat_for(principal) != seat:
                    break  # it left (or took) a seat of the open table: tell it now
                if _worth_answering(loaded, seat, after_version):
                    break
            after_wake = True
    if latest is not loaded.snapshot:  # the wait ran out after changes not parsed yet
        loaded = _visible(table_id, latest, principal)
    if caller is not None:
        caller.confirm_still_valid()  # the token may have expired while it waited
    # The seat as of the read told, not as of the first: seats change until the start.
    position = Position(loaded, loaded.record.seat_for(principal), principal)
    return position, recent[1] if recent is not None and recent[0] is loaded.snapshot else None


async def observation_of(
    ctx: TableContext, table_id: str, caller: PendingRevocation | None, position: Position,
    recent: RecentHistory | None = None,
) -> ObservationOut:
    """The observation of ``position``, with what happened since the seat's last move
    (``recent``: the history read with the table, else read now)."""
    loaded, seat, _principal = position
    since = await _since_last_move(ctx, table_id, loaded, seat, recent)
    reason: SpectatorReason | None = None
    if seat is None:
        reason = "no_token" if caller is None else "not_seated"
    return observation(loaded, seat, since=since, spectator_reason=reason)


def observation_after(applied: Applied) -> ObservationOut:
    """The seat's observation of the table its action just wrote: built from the state
    the commit wrote, with no read; nothing happened since its move."""
    table = applied.table
    return observation(table, applied.seat, since=SinceLastMove(after=table.snapshot.seq, events=[]),
                       spectator_reason=None)


async def play(
    ctx: TableContext,
    table_id: str,
    caller: PendingRevocation,
    body: ActionRequest,
    idempotency_key: str | None,
    *,
    wait: float = 0.0,
) -> ActionResult:
    """One exchange per decision: apply the seat's action (:func:`submit`) and answer with
    its observation; with ``wait``, held (:func:`hold`) from the table as the action wrote
    it until the seat must decide again, the table ends or the wait runs out. ``version``
    and ``events`` stay the action's own (what came after is the observation's
    ``since_your_last_move``); a retry is answered from the table as it is then."""
    if wait <= 0:
        applied = await submit(ctx, table_id, caller, body, idempotency_key)
        position, recent = Position(applied.table, applied.seat, applied.principal), None
    else:  # watched from before the action, so its wait starts by waiting, not reading
        async with ctx.waiters.watch(ctx.store.turns_key(table_id), caller.revoked_key) as watch:
            applied = await submit(ctx, table_id, caller, body, idempotency_key, watch=watch)
            start = Position(applied.table, applied.seat, applied.principal)
            position, recent = await hold(ctx, table_id, caller, start, wait=wait,
                                          after_version=-1, watch=watch)
    if position.table is applied.table and not applied.retried:
        return applied.result(observation_after(applied))
    return applied.result(await observation_of(ctx, table_id, caller, position, recent))


async def _since_last_move(
    ctx: TableContext, table_id: str, loaded: LoadedTable, seat: int | None,
    recent: RecentHistory | None = None,
) -> SinceLastMove | None:
    """The events ``seat`` may see since its last move, read after the table: the log's
    last entries and the newest events in one lean round trip (usually enough; ``recent``:
    already read with the table), else the log further back and the events after the
    move; ``None`` for a spectator and before the start. Events newer than the observed
    table are left out. More than :data:`RECENT_EVENTS` since the move, or a move older
    than the log read, tell the newest events only."""
    if seat is None or loaded.record.status == "open":
        return None
    last = loaded.snapshot.seq
    log, events = recent if recent is not None else await ctx.store.recent_history(
        table_id, log_entries=LOG_TAIL, events=FIRST_READ_EVENTS)
    after = last_move(log, seat, whole_log=len(log) < LOG_TAIL)
    if after is not None and reaches(events, after):
        return since_last_move(events, seat, after=after, last_event_id=last)
    if after is None and len(log) == LOG_TAIL:
        log = await ctx.store.action_log(table_id, RECENT_LOG_ENTRIES)
        after = last_move(log, seat, whole_log=len(log) < RECENT_LOG_ENTRIES)
    if after is not None:
        # Just the events since the move: usually a handful, parsed and nothing more.
        events = await ctx.store.events_after(table_id, after, count=RECENT_EVENTS)
        if len(events) < RECENT_EVENTS or events[-1].seq >= last:
            return since_last_move(events, seat, after=after, last_event_id=last)
    events = (await ctx.store.recent_history(table_id, log_entries=1, events=RECENT_EVENTS)).events
    return since_last_move(events, seat, after=None, last_event_id=last)


def _visible(
    table_id: str, read: TableSnapshot | LoadedTable, principal: Principal | None
) -> LoadedTable:
    """A read of a table the caller was allowed to see (parsed, unless a commit of this
    worker parsed it already); 404 once it may no longer (it left a private table
    meanwhile)."""
    loaded = read if isinstance(read, LoadedTable) else parse_table(table_id, read)
    require_visible(loaded.record, principal)
    return loaded


async def limit_anonymous_replays(
    ctx: TableContext, principal: Principal | None, address: str, *, replays: int = 1
) -> None:
    """Count ``replays`` read without a token against their address's allowance
    (``anonymous_replays_per_address`` per ``anonymous_replay_window_s``): building a long
    replay, or its positions, costs tens of milliseconds to a second of CPU. A bundle
    (a tournament's ``replays.jsonl``) counts as many as it holds.

    :raises ProblemError: 429 ``rate/limited`` with ``Retry-After`` beyond it.
    """
    if principal is not None:
        return
    settings = ctx.settings
    decision = await AdmissionStore(ctx.store.redis, ctx.store.keys, ctx.clock).hit(
        "replay", address, limit=settings.anonymous_replays_per_address,
        window_s=settings.anonymous_replay_window_s, units=replays)
    if not decision.allowed:
        raise rate_limited("replays read without a token from your address (send a token to "
                           "lift the limit)", decision.retry_after)


async def replay_json(
    ctx: TableContext, table_id: str, principal: Principal | None, *, address: str
) -> bytes:
    """The replay (seed, configuration, full log, every event and the final state) as JSON
    once :func:`require_replay_open`, built once per table and then read from Redis: only
    a finished table has one, and it never changes (the gates run on every read). A
    reader without a token counts against :func:`limit_anonymous_replays`."""
    await limit_anonymous_replays(ctx, principal, address)
    loaded = await load_table(ctx, table_id)
    await require_replay_open(ctx, loaded, principal)
    cached = await ctx.store.cached_replay(table_id)
    if cached is not None:
        return await asyncio.to_thread(zlib.decompress, cached)
    replay = await build_replay(ctx, loaded)
    built, compressed = await asyncio.to_thread(_replay_bytes, replay)
    await ctx.store.cache_replay(table_id, compressed, ctx.settings.finished_table_ttl_s)
    return built


def _replay_bytes(replay: ReplayOut) -> tuple[bytes, bytes]:
    """The replay's JSON, and compressed (kept as long as the table: JSON of repeated
    event shapes shrinks ~8x). Tens of milliseconds for a long game: run in a thread."""
    built = replay.model_dump_json().encode()
    return built, zlib.compress(built, 6)


async def require_replay_open(
    ctx: TableContext, loaded: LoadedTable, principal: Principal | None
) -> None:
    """The gates of a table's replay: visible to ``principal`` (a private table only to its
    people), finished, and for a tournament table its board published."""
    record = loaded.record
    require_visible(record, principal)
    if record.status != "finished":
        raise problem("table/not_finished", "The replay opens when the table ends.")
    if record.tournament is not None:  # its board's other tables may still be played
        await ctx.tournaments.require_published(record, principal)


async def build_replay(ctx: TableContext, loaded: LoadedTable) -> ReplayOut:
    """The replay of ``loaded``, with none of :func:`require_replay_open`'s gates on who
    reads it: for a caller that checked them (or another way: a tournament's published
    boards).

    :raises ProblemError: ``table/not_finished``: a replay tells the seed and every hand.
    """
    record = loaded.record
    if record.status != "finished":
        raise problem("table/not_finished", "The replay opens when the table ends.")
    log = await ctx.store.action_log(record.id)
    events = await ctx.store.events_after(record.id, 0, count=max(loaded.snapshot.seq, 1))
    # Validating every entry and event of a long game is CPU work: off the event loop.
    return await asyncio.to_thread(_replay_out, loaded, log, events)


def _replay_out(
    loaded: LoadedTable, log: list[dict[str, Any]], events: list[StoredEvent]
) -> ReplayOut:
    record = loaded.record
    return ReplayOut(
        table_id=record.id,
        game=record.game,
        config=record.config,
        seed=record.seed,
        log=[LogEntryOut.model_validate(entry) for entry in log],
        events=[event_out(e.seq, e.audience, e.body) for e in events],
        final_state=loaded.state.model_dump(mode="json"),
        outcome=outcome_out(record),
    )
