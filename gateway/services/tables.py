"""Table lifecycle: create, list, show, join, leave, close.

Observing and acting at a table are :mod:`gateway.services.play`; a finished
table's replay is :mod:`gateway.services.replays`.

Joining and leaving are compare-and-set changes like actions: on a version
conflict the table is read again and the request checked again, so two agents
racing for the last seat never both get it.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from pydantic import ValidationError

from agents.wire.tables import CreateTableRequest, SeatOut, TableList, TableOut, TableStatus
from engine.bots import UnknownBot, available_bots, get_bot
from engine.core import Game, InvalidConfig, Seat
from gateway.principal import Principal
from gateway.services import quotas
from gateway.services.access import require_visible
from gateway.services.actions import (
    Events,
    commit_record,
    finish,
    load_table,
    parse_table,
    require_scope,
)
from gateway.services.context import TableContext
from gateway.services.observations import TABLE_FIELDS, outcome_out, table_settings
from gateway.services.records import SeatRecord, TableRecord, game_or_problem, problem
from gateway.store.tables import IdempotencyRecord
from tournament.house import house_bot_name

__all__ = [
    "CAS_ATTEMPTS",
    "close_table",
    "closed",
    "create_table",
    "get_table",
    "join_table",
    "leave_table",
    "list_tables",
    "seat_event",
    "seat_record",
    "start_if_full",
    "table_config",
    "table_out",
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
