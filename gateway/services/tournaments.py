"""Tournaments: create, show, cancel, results and exports, the scheduler, assignments, the ladder.

The plan, standings, ratings and report come from the pure :mod:`tournament`
package; this module keeps them in Redis and plays them on ordinary tables.

Secrets. Each tournament has a random secret kept only in its private record.
A board's seed is HMAC-SHA256(secret, "board:<n>") cut to 63 bits, and a
table's id is HMAC-SHA256(secret, "table:<index>") cut to 16 hex digits, like
any table id: neither tells an entrant which of its tables share a deal. A
board's seed and its tables' replays are published once every table of that
board is over (before that, ``replay/embargoed``).

Scheduler. Every worker runs :func:`run_tournaments`: it claims due
tournaments from the ``tournaments:active`` index for a lease (as the house
bots do) and :func:`advance_tournament` each. Every step is idempotent, so a
worker killed anywhere, or two workers on the same tournament after a lease
ran out, change nothing twice: a table is created by a compare-and-set on
version -1 of its derived id; its seats are announced before it is marked
created (an announcement may repeat after a crash, never go missing); a
result is stored with HSETNX by plan index in the same script that appends
it to the finish order; a swiss round is planned once (HSETNX on the round);
the end is set once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import math
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from pydantic import ValidationError

from engine.bots import UnknownBot, get_bot
from engine.core import InvalidConfig
from gateway.errors import ProblemError
from gateway.openapi_docs import register_problem
from gateway.principal import Principal
from gateway.schemas.tournaments import (
    AssignmentOut,
    AssignmentsPage,
    CreateTournamentRequest,
    LeaderboardOut,
    ProgressOut,
    RatingOut,
    StandingOut,
    TableResultOut,
    TournamentList,
    TournamentOut,
    TournamentResults,
    TournamentTableOut,
)
from gateway.services import tables as tables_service
from gateway.services.actions import load_table
from gateway.services.context import TableContext
from gateway.services.records import TableRecord, game_or_problem, problem
from gateway.services.tournament_tables import (
    CANCELLED,
    bot_name,
    close_tournament_table,
    create_tournament_table,
    seat_record,
)
from gateway.store.auth import AuthStore
from gateway.store.tournaments import TournamentMeta, TournamentStore
from tournament.plan import PlanError, TablePlan, field_of, plan_swiss_round, plan_tournament
from tournament.ratings import LiveRating, live_ratings
from tournament.report import DecisionStats, report_json, results_csv
from tournament.results import TableResult, placements
from tournament.standings import standings

__all__ = [
    "LEASE_S",
    "advance_tournament",
    "assignments",
    "board_seed",
    "cancel_tournament",
    "create_tournament",
    "drive_tournaments",
    "get_tournament",
    "leaderboard",
    "list_tournaments",
    "note_finished",
    "note_rated_finish",
    "note_rated_table",
    "note_refused",
    "replays_jsonl",
    "report",
    "require_published",
    "results",
    "results_csv_text",
    "run_tournaments",
    "stream_assignments",
    "sweep_ladder",
    "table_id_for",
]

register_problem("tournament/not_found", 404, "Tournament not found", "No tournament has that id.")
register_problem(
    "tournament/invalid", 422, "Invalid tournament",
    "A duplicate tournament of 4 seats needs at least 4 entrants and baselines.",
)
register_problem("tournament/unknown_entrant", 422, "Unknown entrant",
                 "No agent has the id agt_0123456789abcdef0123.")
register_problem("tournament/finished", 409, "Tournament over",
                 "The tournament is over already.")
register_problem("tournament/not_finished", 409, "Tournament not finished",
                 "The report opens when every table is over.")
register_problem(
    "replay/embargoed", 409, "Replay embargoed",
    "This table's board is still being played at other tables; its replay opens when "
    "every table of the board is over.",
)

LEASE_S = 3.0
"""How long a claimed tournament is left to its worker before another may take it over.

A pass is a handful of round trips, far shorter; should one outlast its lease,
a second worker's pass over the same tournament changes nothing twice (every
step is idempotent), so the lease is kept short for a quick take-over after a
worker dies."""

POLL_S = 1.0
"""How soon a running tournament is looked at again when none of its tables finishes
meanwhile (a finishing table makes it due at once: :func:`note_finished`); the clocks
and house bots play on in between."""

ASSIGNMENT_KEEPALIVE_S = 15.0
"""Seconds between SSE keep-alive comments on the assignment stream."""

log = logging.getLogger(__name__)


# -- derived secrets ----------------------------------------------------------


def _mac(secret: bytes, label: str) -> bytes:
    return hmac.new(secret, label.encode(), hashlib.sha256).digest()


def board_seed(secret: bytes, board: int) -> int:
    """The seed of ``board``: HMAC-SHA256 of the tournament's secret, cut to 63 bits."""
    return int.from_bytes(_mac(secret, f"board:{board}")[:8], "big") >> 1


def table_id_for(secret: bytes, index: int) -> str:
    """The id of plan ``index``'s table: 16 hex digits, like every table id."""
    return _mac(secret, f"table:{index}").hex()[:16]


def _plan_seed(secret: bytes) -> int:
    return int.from_bytes(_mac(secret, "plan")[:8], "big") >> 1


# -- (de)serialisation of the pure package's values ----------------------------


def _plan_json(plan: TablePlan) -> str:
    return json.dumps(asdict(plan))


def _plan_of(raw: str) -> TablePlan:
    fields = json.loads(raw)
    fields["seating"] = tuple(fields["seating"])
    return TablePlan(**fields)


def _not_found(tournament_id: str) -> ProblemError:
    shown = tournament_id if len(tournament_id) <= 64 else tournament_id[:64] + "…"
    return problem("tournament/not_found", f"No tournament has the id {shown!r}.")


def _store(ctx: TableContext) -> TournamentStore:
    return TournamentStore(ctx.store.redis, ctx.store.keys)


def _is_organiser(principal: Principal | None) -> bool:
    return principal is not None and principal.kind == "organiser"


# -- create ---------------------------------------------------------------------


def _config(request: CreateTournamentRequest) -> dict[str, Any]:
    """The game's configuration for the request, validated as ``POST /v1/tables`` does."""
    game = game_or_problem(request.game)
    named_twice = sorted(set(request.options) & {"mode", "seats", "variants"})
    if named_twice:
        raise problem("tournament/invalid",
                      f"Send {', '.join(named_twice)} as request field(s), not in options.")
    fields = {**request.options, "mode": request.mode, "seats": request.seats,
              "variants": tuple(request.variants)}
    try:
        config = game.config_model.model_validate(fields, strict=True)
        game.new_table(config, 0)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])[:60] or "options"
        raise problem("tournament/invalid",
                      f"The table configuration does not fit this game ({where}: {first['msg']})."
                      ) from None
    except InvalidConfig as error:
        raise problem("tournament/invalid", error.message) from None
    try:
        tables_service._keep_caps(game, config, request.options)
    except ProblemError as error:
        raise problem("tournament/invalid", error.detail) from None
    dumped: dict[str, Any] = config.model_dump(mode="json")
    return dumped


async def _names(ctx: TableContext, request: CreateTournamentRequest) -> dict[str, str]:
    """Every entrant's display name; 422 for an agent that is not registered or an unknown bot."""
    names: dict[str, str] = {}
    agents = AuthStore(ctx.store.redis, ctx.store.keys)
    for entrant in (*request.entrants, *request.baselines):
        if entrant in names:
            raise problem("tournament/invalid", f"{entrant} is named twice.")
        if entrant.startswith("bot:"):
            try:
                bot = get_bot(request.game, bot_name(entrant))
            except UnknownBot:
                raise problem("table/unknown_bot",
                              f"No house bot {entrant!r} for {request.game}.") from None
            copy = entrant.partition("#")[2]
            names[entrant] = f"{bot.name} bot" + (f" #{copy}" if copy else "")
            continue
        agent = await agents.get_agent(entrant)
        if agent is None:
            raise problem("tournament/unknown_entrant", f"No agent has the id {entrant!r}.")
        names[entrant] = agent.name
    return names


def _check_plans(plans: Sequence[TablePlan], seats: int) -> None:
    for plan in plans:
        agents = [entrant for entrant in plan.seating if not entrant.startswith("bot:")]
        if len(plan.seating) != seats or len(agents) != len(set(agents)):
            raise problem("tournament/invalid",
                          "The plan seats an agent twice at one table; add entrants or baselines.")


async def create_tournament(
    ctx: TableContext, principal: Principal, request: CreateTournamentRequest
) -> TournamentOut:
    """Validate, plan round 0 (the whole plan but for swiss) and hand it to the scheduler."""
    if request.format == "gauntlet" and not request.baselines:
        raise problem("tournament/invalid", "A gauntlet needs `baselines` (house bots).")
    config = _config(request)
    names = await _names(ctx, request)
    secret = secrets.token_bytes(32)
    try:
        plans = plan_tournament(
            format=request.format, entrants=request.entrants, baselines=request.baselines,
            seats=request.seats, boards=request.boards, rounds=request.rounds,
            seed=_plan_seed(secret))
    except PlanError as error:
        raise problem("tournament/invalid", str(error)) from None
    if not plans:
        raise problem("tournament/invalid", "The plan has no table.")
    _check_plans(plans, request.seats)
    tournament_id = f"tn_{secrets.token_hex(8)}"
    now = ctx.now()
    record = {
        **request.model_dump(mode="json"), "id": tournament_id, "config": config,
        "names": names, "created_by": principal.agent_id, "created_at": now,
    }
    await _store(ctx).create(
        tournament_id, record, secret, now, listed=not request.private,
        plans=[(plan.index, _plan_json(plan), table_id_for(secret, plan.index)) for plan in plans])
    return await get_tournament(ctx, tournament_id, principal)


# -- read -------------------------------------------------------------------------


class _Snapshot:
    """One read of everything the views of a tournament need."""

    def __init__(self, tournament_id: str, meta: TournamentMeta, plans: dict[int, TablePlan],
                 created: dict[int, float], results: list[TableResult]) -> None:
        self.id = tournament_id
        self.meta = meta
        self.record = meta.record
        self.plans = plans
        self.created = created
        self.results = results
        self.done = {result.index for result in results}

    @property
    def entrants(self) -> list[str]:
        """Who is ranked: the entrants, and the baselines but in a gauntlet."""
        return field_of(self.record["format"], self.record["entrants"], self.record["baselines"])

    def board_complete(self, board: int) -> bool:
        """Every planned table of ``board`` is over (or the tournament ended)."""
        if self.meta.status != "running":
            return True
        return all(index in self.done for index, plan in self.plans.items() if plan.board == board)

    def published(self) -> list[TableResult]:
        """The results of boards every table of which is over, in finish order."""
        return [result for result in self.results if self.board_complete(result.board)]

    def name(self, entrant: str) -> str:
        """The entrant's display name (an agent's registered name, ``greedy bot``)."""
        return str(self.record["names"].get(entrant, entrant))


async def _snapshot(ctx: TableContext, tournament_id: str) -> _Snapshot:
    store = _store(ctx)
    meta = await store.meta(tournament_id)
    if meta is None:
        raise _not_found(tournament_id)
    plans = {index: _plan_of(raw) for index, raw in (await store.plans(tournament_id)).items()}
    created = await store.created(tournament_id)
    results = [TableResult.from_json(json.loads(raw)) for raw in await store.results(tournament_id)]
    return _Snapshot(tournament_id, meta, plans, created, results)


def _visible(snapshot: _Snapshot, principal: Principal | None) -> None:
    if snapshot.record["private"] and not _is_organiser(principal):
        raise _not_found(snapshot.id)


def _rating_out(rating: LiveRating, name: str) -> RatingOut:
    return RatingOut(entrant=rating.entrant, name=name, mu=rating.mu, sigma=rating.sigma,
                     ordinal=rating.ordinal, games=rating.games, provisional=rating.provisional)


_RATINGS_MEMO: dict[tuple[str, str, int, str], list[LiveRating]] = {}
"""Live ratings by (namespace, tournament id or ``ladder:<game>``, number of results, last
result's table id), newest last.

Results are only ever appended, in finish order, so the first ``n`` results of
one key never change and neither do their ratings: the memo cannot answer
wrong. It spares a public read the OpenSkill pass over every result (about
0.14 s per thousand tables)."""

_RATINGS_MEMO_SIZE = 256


def _ratings(
    ctx: TableContext, key: str, results: Sequence[TableResult], name: Any
) -> list[RatingOut]:
    last = results[-1].table_id if results else ""
    memo_key = (ctx.store.keys.namespace, key, len(results), last)
    rated = _RATINGS_MEMO.get(memo_key)
    if rated is None:
        rated = sorted(live_ratings(results).values(), key=lambda rating: -rating.ordinal)
        _RATINGS_MEMO[memo_key] = rated
        while len(_RATINGS_MEMO) > _RATINGS_MEMO_SIZE:
            del _RATINGS_MEMO[next(iter(_RATINGS_MEMO))]
    return [_rating_out(rating, name(rating.entrant)) for rating in rated]


def _tournament_out(
    ctx: TableContext, snapshot: _Snapshot, principal: Principal | None
) -> TournamentOut:
    record = snapshot.record
    running = [index for index in snapshot.created if index not in snapshot.done]
    total = len(snapshot.plans)
    if record["format"] == "swiss" and snapshot.meta.status == "running":
        # Rounds not planned yet will hold as many tables as the first (same field).
        planned_rounds = {plan.round for plan in snapshot.plans.values()}
        first_round = sum(1 for plan in snapshot.plans.values() if plan.round == 0)
        total += max(0, record["boards"] - len(planned_rounds)) * first_round
    progress = ProgressOut(
        total=total, done=len(snapshot.done), running=len(running),
        waiting=max(0, total - len(snapshot.done) - len(running)))
    table_standings = [
        StandingOut(
            entrant=standing.entrant, name=snapshot.name(standing.entrant),
            points=standing.points, games=standing.games, wins=standing.wins,
            mean_placement=None if math.isnan(standing.mean_placement) else standing.mean_placement,
            by_seat=[None if math.isnan(value) else value for value in standing.by_seat])
        for standing in standings(snapshot.results, snapshot.entrants)
    ]
    by_index = {result.index: result for result in snapshot.results}
    organiser = _is_organiser(principal)
    secret = snapshot.meta.secret
    tables = []
    for index in sorted(snapshot.plans):
        plan = snapshot.plans[index]
        if not organiser and (index not in by_index or not snapshot.board_complete(plan.board)):
            continue
        table_id = table_id_for(secret, index)
        result = by_index.get(index)
        status = "finished" if result else ("running" if index in snapshot.created else "waiting")
        tables.append(TournamentTableOut(
            index=index, table_id=table_id, url=f"/v1/tables/{table_id}", round=plan.round,
            board=plan.board, status=status, seating=list(plan.seating),
            placements=list(result.placements) if result else None))
    return TournamentOut(
        id=snapshot.id, name=record["name"], game=record["game"], mode=record["mode"],
        seats=record["seats"], variants=record["variants"], format=record["format"],
        boards=record["boards"], rounds=record["rounds"], entrants=record["entrants"],
        baselines=record["baselines"], turn_timeout_s=record["turn_timeout_s"],
        max_concurrent_tables=record["max_concurrent_tables"], rated=record["rated"],
        private=record["private"], status=snapshot.meta.status,
        created_by=record["created_by"], created_at=record["created_at"],
        finished_at=snapshot.meta.finished_at, progress=progress, standings=table_standings,
        ratings=_ratings(ctx, snapshot.id, snapshot.results, snapshot.name), tables=tables)


async def get_tournament(
    ctx: TableContext, tournament_id: str, principal: Principal | None
) -> TournamentOut:
    """Progress, standings, live ratings and the tables of published boards."""
    snapshot = await _snapshot(ctx, tournament_id)
    _visible(snapshot, principal)
    return _tournament_out(ctx, snapshot, principal)


async def list_tournaments(
    ctx: TableContext, principal: Principal | None, *, offset: int, limit: int
) -> TournamentList:
    """Public tournaments newest first; the organiser sees private ones too."""
    ids = await _store(ctx).list_ids(listed_only=not _is_organiser(principal),
                                      offset=offset, limit=limit + 1)
    tournaments = []
    for tournament_id in ids[:limit]:
        with contextlib.suppress(ProblemError):
            tournaments.append(await get_tournament(ctx, tournament_id, principal))
    return TournamentList(tournaments=tournaments,
                          next_offset=offset + limit if len(ids) > limit else None)


async def cancel_tournament(
    ctx: TableContext, tournament_id: str, principal: Principal
) -> TournamentOut:
    """Stop creating tables and close the running ones (nobody wins them)."""
    snapshot = await _snapshot(ctx, tournament_id)
    _visible(snapshot, principal)
    store = _store(ctx)
    if not await store.end(tournament_id, "cancelled", ctx.now()):
        raise problem("tournament/finished", "The tournament is over already.")
    await _close_running(ctx, snapshot)
    await store.poke(tournament_id, ctx.now())  # the scheduler closes what a race created
    return await get_tournament(ctx, tournament_id, principal)


async def _close_running(ctx: TableContext, snapshot: _Snapshot) -> None:
    for index in sorted(set(snapshot.created) - snapshot.done):
        await close_tournament_table(ctx, table_id_for(snapshot.meta.secret, index),
                                     "The tournament was cancelled; nobody wins this table.")


# -- results and exports -------------------------------------------------------------


def _result_out(result: TableResult) -> TableResultOut:
    return TableResultOut(
        index=result.index, round=result.round, board=result.board, table_id=result.table_id,
        seating=list(result.seating), placements=list(result.placements),
        scores=list(result.scores), reason=result.reason, finished_at=result.finished_at)


def _shown_results(snapshot: _Snapshot, principal: Principal | None) -> list[TableResult]:
    return snapshot.results if _is_organiser(principal) else snapshot.published()


async def results(
    ctx: TableContext, tournament_id: str, principal: Principal | None
) -> TournamentResults:
    """Results of published boards in finish order (all of them for the organiser), with
    the published boards' seeds."""
    snapshot = await _snapshot(ctx, tournament_id)
    _visible(snapshot, principal)
    shown = _shown_results(snapshot, principal)
    boards = sorted({plan.board for plan in snapshot.plans.values()
                     if snapshot.board_complete(plan.board)})
    return TournamentResults(
        tournament_id=tournament_id, status=snapshot.meta.status,
        results=[_result_out(result) for result in shown],
        board_seeds={str(board): board_seed(snapshot.meta.secret, board) for board in boards})


async def results_csv_text(
    ctx: TableContext, tournament_id: str, principal: Principal | None
) -> str:
    """The same results as CSV, one row per seat per table."""
    snapshot = await _snapshot(ctx, tournament_id)
    _visible(snapshot, principal)
    return results_csv(_shown_results(snapshot, principal))


async def replays_jsonl(
    ctx: TableContext, tournament_id: str, principal: Principal | None
) -> AsyncIterator[str]:
    """Every published table's result and replay, one JSON object per line, in finish order."""
    snapshot = await _snapshot(ctx, tournament_id)
    _visible(snapshot, principal)
    shown = snapshot.published()

    async def lines() -> AsyncIterator[str]:
        reader = Principal(agent_id="organiser", name="organiser", kind="organiser")
        for result in shown:
            replay = await tables_service.replay(ctx, result.table_id, reader)
            line = {"tournament_id": tournament_id, "result": result.to_json(),
                    "replay": replay.model_dump(mode="json")}
            yield json.dumps(line) + "\n"

    return lines()


async def _decisions(
    ctx: TableContext, snapshot: _Snapshot, refused: Mapping[str, int]
) -> dict[str, DecisionStats]:
    """Per entrant: decisions, refused actions, clock timeouts, mean and p95 decision time.

    A decision's time runs from the previous commit of its table (the start for
    the first) to its own, as the action log stamps them.
    """
    times: dict[str, list[float]] = {entrant: [] for entrant in snapshot.entrants}
    timeouts: Counter[str] = Counter()
    for result in snapshot.results:
        loaded = await load_table(ctx, result.table_id)
        previous = loaded.record.started_at or loaded.record.created_at
        for entry in await ctx.store.action_log(result.table_id):
            entrant = result.seating[int(entry["seat"])]
            at = float(entry["at"])
            times.setdefault(entrant, []).append(max(0.0, at - previous))
            previous = at
            if entry["by"] == "timeout":
                timeouts[entrant] += 1
    stats = {}
    for entrant, spent in times.items():
        ordered = sorted(spent)
        p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)] if ordered else 0.0
        stats[entrant] = DecisionStats(
            decisions=len(ordered), refused=refused.get(entrant, 0), timeouts=timeouts[entrant],
            mean_s=sum(ordered) / len(ordered) if ordered else 0.0, p95_s=p95)
    return stats


async def report(
    ctx: TableContext, tournament_id: str, principal: Principal | None
) -> dict[str, Any]:
    """The final report (a Plackett-Luce fit with bootstrap intervals over boards), made once
    the tournament is over and kept from then on."""
    snapshot = await _snapshot(ctx, tournament_id)
    _visible(snapshot, principal)
    if snapshot.meta.status == "running":
        raise problem("tournament/not_finished", "The report opens when every table is over.")
    if snapshot.meta.report is not None:
        cached: dict[str, Any] = json.loads(snapshot.meta.report)
        return cached
    store = _store(ctx)
    decisions = await _decisions(ctx, snapshot, await store.refused(tournament_id))
    public = {key: value for key, value in snapshot.record.items() if key != "config"}
    public.update(status=snapshot.meta.status, finished_at=snapshot.meta.finished_at)
    made = await asyncio.to_thread(
        report_json, tournament=public, results=snapshot.results, entrants=snapshot.entrants,
        plans=[snapshot.plans[index] for index in sorted(snapshot.plans)],
        seats=snapshot.record["seats"], decisions=decisions)
    await store.cache_report(tournament_id, json.dumps(made))
    return made


async def require_published(ctx: TableContext, record: TableRecord, principal: Principal | None) -> None:
    """Refuse a tournament table's replay (``replay/embargoed``) while its board is still
    being played elsewhere; the organiser may always read it."""
    if record.tournament is None or _is_organiser(principal):
        return
    store = _store(ctx)
    index = await store.index_of_table(record.tournament, record.id)
    if index is None:
        return
    snapshot = await _snapshot(ctx, record.tournament)
    if not snapshot.board_complete(snapshot.plans[index].board):
        raise problem("replay/embargoed",
                      "This table's board is still being played at other tables; its replay "
                      "opens when every table of the board is over.")


async def note_refused(ctx: TableContext, record: TableRecord, agent_id: str) -> None:
    """Count a refused action by a seat of a tournament table (for the report)."""
    if record.tournament is not None:
        await _store(ctx).count_refused(record.tournament, agent_id)


# -- the scheduler ----------------------------------------------------------------------


def _result_of(plan: TablePlan, record: TableRecord) -> TableResult | None:
    """The result of a finished table; None while it is played, or when it was cancelled."""
    if record.status != "finished" or record.outcome is None:
        return None
    if record.outcome.get("reason") == CANCELLED:
        return None
    winners = [int(seat) for seat in record.outcome.get("winners", [])]
    scores = [float(score) for score in record.outcome.get("scores", [])]
    return TableResult(
        index=plan.index, board=plan.board, round=plan.round, table_id=record.id,
        seating=plan.seating, placements=placements(winners, scores, record.seats),
        scores=tuple(scores),
        reason=str(record.outcome.get("reason", "")), finished_at=record.finished_at or 0.0)


async def _collect(ctx: TableContext, store: TournamentStore, snapshot: _Snapshot) -> None:
    """Store the result of every created table that finished since the last look.

    Reads only the running tables' records, in one pipeline: a pass must stay
    cheap, as it runs every sweeper interval while the tournament is played.
    """
    running = {table_id_for(snapshot.meta.secret, index): index
               for index in sorted(set(snapshot.created) - snapshot.done)}
    for raw in await ctx.store.load_records(list(running)):
        raw.pop("version", None)
        record = TableRecord.model_validate(raw)
        table_id, index = record.id, running[record.id]
        result = _result_of(snapshot.plans[index], record)
        if result is None:
            continue
        result_json = json.dumps(result.to_json())
        if snapshot.record["rated"]:  # first: a crash before the next line redoes both, once
            await store.record_ladder(snapshot.record["game"], table_id, result_json)
        if await store.record_result(snapshot.id, index, result_json):
            snapshot.results.append(result)
            snapshot.done.add(index)


async def _plan_next_round(store: TournamentStore, snapshot: _Snapshot) -> None:
    """Swiss: plan the next round once every table of the planned ones is over."""
    record = snapshot.record
    rounds = 1 + max((plan.round for plan in snapshot.plans.values()), default=0)
    if record["format"] != "swiss" or rounds >= record["boards"]:  # one board per round
        return
    if any(index not in snapshot.done for index in snapshot.plans):
        return
    plans = plan_swiss_round(
        entrants=record["entrants"], seats=record["seats"], round=rounds, board=rounds,
        first_index=1 + max(snapshot.plans), results=snapshot.results,
        seed=_plan_seed(snapshot.meta.secret), baselines=record["baselines"])
    _check_plans(plans, record["seats"])
    secret = snapshot.meta.secret
    await store.add_round(snapshot.id, rounds, [
        (plan.index, _plan_json(plan), table_id_for(secret, plan.index)) for plan in plans])
    for plan in plans:
        snapshot.plans[plan.index] = plan


async def _create_due(ctx: TableContext, store: TournamentStore, snapshot: _Snapshot) -> None:
    """Create the next waiting tables, in plan order, up to the tournament's concurrency."""
    record = snapshot.record
    running = len(set(snapshot.created) - snapshot.done)
    room = record["max_concurrent_tables"] - running
    secret = snapshot.meta.secret
    for index in sorted(snapshot.plans):
        if room <= 0:
            break
        if index in snapshot.created:
            continue
        plan = snapshot.plans[index]
        table_id = table_id_for(secret, index)
        seated = [seat_record(entrant, seat, snapshot.name(entrant))
                  for seat, entrant in enumerate(plan.seating)]
        # Applied or not (a worker that died after creating it), the table exists now.
        await create_tournament_table(
            ctx, table_id=table_id, tournament_id=snapshot.id, created_by=record["created_by"],
            game_name=record["game"], mode=record["mode"], variants=record["variants"],
            config=record["config"], seated=seated, seed=board_seed(secret, plan.board),
            turn_timeout_s=record["turn_timeout_s"], rated=record["rated"])
        now = ctx.now()
        for seat, entrant in enumerate(plan.seating):
            if not entrant.startswith("bot:"):
                await store.announce(entrant, {
                    "kind": "table.assigned", "tournament_id": snapshot.id,
                    "table_id": table_id, "seat": seat, "game": record["game"], "at": now})
        await store.note_created(snapshot.id, index, now)
        snapshot.created[index] = now
        room -= 1


async def _finish(ctx: TableContext, store: TournamentStore, snapshot: _Snapshot) -> bool:
    """End the tournament once every table is played; tell its agents. True when over."""
    record = snapshot.record
    if record["format"] == "swiss":
        planned_rounds = 1 + max(plan.round for plan in snapshot.plans.values())
        if planned_rounds < record["boards"]:
            return False
    if any(index not in snapshot.done for index in snapshot.plans):
        return False
    now = ctx.now()
    if await store.end(snapshot.id, "finished", now):
        for entrant in record["entrants"]:
            if not entrant.startswith("bot:"):
                await store.announce(entrant, {
                    "kind": "tournament.finished", "tournament_id": snapshot.id, "at": now})
    return True


async def advance_tournament(ctx: TableContext, tournament_id: str) -> float | None:
    """Move one tournament on: collect results, plan a swiss round, create due tables,
    end it when everything is played. Returns when to look again (``None``: never)."""
    store = _store(ctx)
    snapshot = await _snapshot(ctx, tournament_id)
    if snapshot.meta.status == "cancelled":
        await _close_running(ctx, snapshot)
        return None
    if snapshot.meta.status != "running":
        return None
    await _collect(ctx, store, snapshot)
    await _plan_next_round(store, snapshot)
    if await _finish(ctx, store, snapshot):
        return None
    await _create_due(ctx, store, snapshot)
    return ctx.now() + POLL_S


async def _advance_claimed(ctx: TableContext, store: TournamentStore, tournament_id: str,
                           lease_end: float) -> None:
    try:
        next_due = await advance_tournament(ctx, tournament_id)
    except Exception as error:
        # Type only: an engine message may name a hidden card.
        log.error("tournament %s failed to advance: %s", tournament_id, type(error).__name__)
        next_due = ctx.now() + 1.0
    await store.release_active(tournament_id, lease_end, next_due)


async def drive_tournaments(ctx: TableContext) -> int:
    """Claim every due tournament and advance them concurrently, then sweep the ladder's
    pending tables; returns the number of tournaments."""
    store = _store(ctx)
    now = ctx.now()
    lease_end = now + LEASE_S
    claimed = await store.claim_active(now, lease_end)
    await asyncio.gather(*(_advance_claimed(ctx, store, tournament_id, lease_end)
                           for tournament_id in claimed))
    await sweep_ladder(ctx)
    return len(claimed)


async def run_tournaments(ctx: TableContext) -> None:
    """Advance due tournaments every ``sweeper_interval_s`` until cancelled."""
    while True:
        try:
            await drive_tournaments(ctx)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.error("tournament drive failed: %s", type(error).__name__)
        await asyncio.sleep(ctx.settings.sweeper_interval_s)


# -- assignments ---------------------------------------------------------------------------


def _assignment_out(entry_id: str, body: Mapping[str, Any]) -> AssignmentOut:
    return AssignmentOut(id=entry_id, **body)


async def assignments(
    ctx: TableContext, principal: Principal, *, after: str, wait: float
) -> AssignmentsPage:
    """The caller's assignments after ``after``; with ``wait``, held until one comes
    (at most ``long_poll_max_wait_s``)."""
    wait = min(max(wait, 0.0), ctx.settings.long_poll_max_wait_s)
    block_ms = int(wait * 1000) if wait >= 0.001 else None
    entries = await _store(ctx).assignments_after(principal.agent_id, after, block_ms=block_ms)
    shown = [_assignment_out(entry.id, entry.body) for entry in entries]
    return AssignmentsPage(assignments=shown, last_id=shown[-1].id if shown else after)


async def stream_assignments(
    ctx: TableContext, principal: Principal, *, after: str, until: float
) -> AsyncIterator[str]:
    """The caller's assignments as SSE frames (``id`` is the stream id); keep-alive comments
    every :data:`ASSIGNMENT_KEEPALIVE_S` seconds; closed at ``until`` (when the caller's
    token stops verifying: nothing is told to an expired token)."""
    cursor = after
    store = _store(ctx)
    yield "retry: 1000\n\n"
    while True:
        remaining = until - time.time()
        if remaining <= 0:
            return
        block_s = min(ASSIGNMENT_KEEPALIVE_S, remaining)
        entries = await store.assignments_after(
            principal.agent_id, cursor, block_ms=max(1, int(block_s * 1000)))
        if time.time() >= until:
            return
        if not entries:
            yield ": keep-alive\n\n"
            continue
        for entry in entries:
            cursor = entry.id
            out = _assignment_out(entry.id, entry.body)
            yield f"id: {out.id}\nevent: {out.kind}\ndata: {out.model_dump_json()}\n\n"


# -- the ladder -----------------------------------------------------------------------------


async def note_finished(ctx: TableContext, record: TableRecord) -> None:
    """A table just finished: wake its tournament's scheduler (it collects the result and
    starts the next table now rather than at its next look), or put a rated ordinary
    table on the ladder."""
    if record.tournament is not None:
        await _store(ctx).poke(record.tournament, ctx.now())
    else:
        await note_rated_finish(ctx, record)


LADDER_RECHECK_S = 30.0
"""How soon the ladder's sweep looks again at a rated table that is still being played."""


async def note_rated_table(ctx: TableContext, table_id: str, game: str) -> None:
    """Remember a rated ordinary table (before it is written) so that the sweep puts it on
    its ladder even if the worker that finishes it dies before doing so itself."""
    await _store(ctx).add_ladder_pending(game, table_id, ctx.now() + LADDER_RECHECK_S)


async def sweep_ladder(ctx: TableContext) -> int:
    """Put every finished rated table still pending on its ladder (once: HSETNX by table
    id); tables still played are looked at again later, unknown ones forgotten."""
    store = _store(ctx)
    now = ctx.now()
    lease_end = now + LEASE_S
    claimed = await store.claim_ladder_pending(now, lease_end)
    for game, table_id in claimed:
        next_due: float | None = None
        try:
            loaded = await load_table(ctx, table_id)
        except ProblemError:
            loaded = None  # never written (its create failed): nothing to rate
        if loaded is not None:
            if loaded.record.status == "finished":
                await note_rated_finish(ctx, loaded.record)
            else:
                next_due = ctx.now() + LADDER_RECHECK_S
        await store.release_ladder_pending(game, table_id, lease_end, next_due)
    return len(claimed)


async def note_rated_finish(ctx: TableContext, record: TableRecord) -> None:
    """Put a rated ordinary table that just finished on its game's ladder (once).

    Tournament tables are put there by their tournament's scheduler, with the
    entrants' ids; a table closed before its game ended (nobody won it) is not rated.
    """
    if not record.rated or record.tournament is not None or record.outcome is None:
        return
    if record.outcome.get("reason") in (tables_service.ABANDONED, tables_service.CLOSED):
        return
    seating: list[str] = []
    for seat, occupant in enumerate(record.seated):
        entrant = "?" if occupant is None else (
            occupant.agent_id if occupant.kind == "agent" else f"bot:{occupant.bot}")
        seating.append(entrant if entrant not in seating else f"{entrant}:{seat}")
    plan = TablePlan(index=0, round=0, board=0, rotation=0, seating=tuple(seating))
    result = _result_of(plan, record)
    if result is not None:
        await _store(ctx).record_ladder(record.game, record.id, json.dumps(result.to_json()))


async def leaderboard(ctx: TableContext, game: str) -> LeaderboardOut:
    """Live ratings over every rated table of ``game`` in finish order, best first."""
    game_or_problem(game)
    stored = [TableResult.from_json(json.loads(raw)) for raw in await _store(ctx).ladder(game)]
    return LeaderboardOut(game=game, tables=len(stored),
                          ratings=_ratings(ctx, f"ladder:{game}", stored, lambda entrant: entrant))
