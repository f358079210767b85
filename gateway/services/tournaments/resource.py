"""The tournament resource: create (validated and planned), show, list, cancel."""

from __future__ import annotations

import contextlib
import math
import secrets
from typing import Any, NamedTuple

from agents.wire.tournaments import (
    CreateTournamentRequest,
    ProgressOut,
    StandingOut,
    TournamentList,
    TournamentOut,
    TournamentTableOut,
)
from engine.bots import UnknownBot, get_bot
from engine.core import InvalidConfig
from gateway.errors import ProblemError
from gateway.principal import Principal
from gateway.services import tables as tables_service
from gateway.services.agents import meta_out
from gateway.services.context import TableContext
from gateway.services.records import game_or_problem, problem
from gateway.services.tournaments.state import (
    TournamentSnapshot,
    check_plans,
    close_running,
    end_tournament,
    is_organiser,
    plan_json,
    plan_seed,
    rated_out,
    store_of,
    table_id_for,
    visible_snapshot,
)
from gateway.store.auth import AgentRecord, AuthStore
from tournament.house import house_bot_name
from tournament.plan import PlanError, duplicate_form, plan_tournament
from tournament.standings import standings

__all__ = [
    "cancel_tournament",
    "create_tournament",
    "get_tournament",
    "list_tournaments",
]


def _config(request: CreateTournamentRequest) -> dict[str, Any]:
    """The game's configuration for the request, validated as ``POST /v1/tables`` does."""
    game = game_or_problem(request.game)
    try:
        config = tables_service.table_config(game, request.options, mode=request.mode,
                                             seats=request.seats, variants=request.variants)
        game.new_table(config, 0)
    except ProblemError as error:
        raise problem("tournament/invalid", error.detail) from None
    except InvalidConfig as error:
        raise problem("tournament/invalid", error.message) from None
    dumped: dict[str, Any] = config.model_dump(mode="json")
    return dumped


class _Entrants(NamedTuple):
    """A request's entrants and baselines as ids, with display names and agents' metadata."""

    entrants: list[str]
    baselines: list[str]
    names: dict[str, str]
    agents: dict[str, dict[str, Any]]


async def _agent(agents: AuthStore, entrant: str) -> AgentRecord:
    """The one agent ``entrant`` names, by id or by name.

    :raises ProblemError: ``tournament/unknown_entrant`` when none does, or when it is one
        agent's id and another's name.
    """
    by_id = await agents.get_agent(entrant) if entrant.startswith("agt_") else None
    by_name = await agents.find_agent_by_name(entrant)
    if by_id is not None and by_name is not None and by_id.agent_id != by_name.agent_id:
        raise problem("tournament/unknown_entrant",
                      f"{entrant!r} is one agent's id and another's name: give the id of "
                      "the one you mean.")
    found = by_id or by_name
    if found is None:
        raise problem("tournament/unknown_entrant", f"No agent has the id or name {entrant!r}.")
    return found


async def _entrants(ctx: TableContext, request: CreateTournamentRequest) -> _Entrants:
    """Every entrant as an id, its display name and (agents) its public metadata; 422 for
    an unknown or ambiguous agent, an unknown bot, or one entrant named twice."""
    names: dict[str, str] = {}
    metadata: dict[str, dict[str, Any]] = {}
    agents = ctx.agents
    resolved: list[str] = []
    for entrant in (*request.entrants, *request.baselines):
        if entrant.startswith("bot:"):
            try:
                bot = get_bot(request.game, house_bot_name(entrant))
            except UnknownBot:
                raise problem("table/unknown_bot",
                              f"No house bot {entrant!r} for {request.game}.") from None
            copy = entrant.partition("#")[2]
            name = f"{bot.name} bot" + (f" #{copy}" if copy else "")
        else:
            agent = await _agent(agents, entrant)
            entrant, name = agent.agent_id, agent.name
            metadata[entrant] = (await meta_out(agents, agent)).model_dump(exclude_none=True)
        if entrant in names:
            raise problem("tournament/invalid", f"{name} ({entrant}) is named twice.")
        names[entrant] = name
        resolved.append(entrant)
    count = len(request.entrants)
    return _Entrants(resolved[:count], resolved[count:], names, metadata)


async def create_tournament(
    ctx: TableContext, principal: Principal, request: CreateTournamentRequest
) -> TournamentOut:
    """Validate, plan round 0 (the whole plan but for swiss) and hand it to the scheduler."""
    if request.format == "gauntlet" and not request.baselines:
        raise problem("tournament/invalid", "A gauntlet needs `baselines` (house bots).")
    config = _config(request)
    named = await _entrants(ctx, request)
    secret = secrets.token_bytes(32)
    try:
        form = duplicate_form(format=request.format, entrants=named.entrants,
                              baselines=named.baselines, seats=request.seats,
                              form=request.duplicate_form)
        plans = plan_tournament(
            format=request.format, entrants=named.entrants, baselines=named.baselines,
            seats=request.seats, boards=request.boards, rounds=request.rounds,
            seed=plan_seed(secret), form=form)
    except PlanError as error:
        raise problem("tournament/invalid", str(error)) from None
    if not plans:
        raise problem("tournament/invalid", "The plan has no table.")
    check_plans(plans, request.seats)
    tournament_id = f"tn_{secrets.token_hex(8)}"
    now = ctx.now()
    record = {
        **request.model_dump(mode="json"), "duplicate_form": form, "id": tournament_id,
        "config": config, "entrants": named.entrants, "baselines": named.baselines,
        "names": named.names, "agents": named.agents, "created_by": principal.agent_id,
        "created_at": now,
    }
    await store_of(ctx).create(
        tournament_id, record, secret, now, listed=not request.private,
        plans=[(plan.index, plan_json(plan), table_id_for(secret, plan.index)) for plan in plans])
    return await get_tournament(ctx, tournament_id, principal)


async def _tournament_out(
    ctx: TableContext, snapshot: TournamentSnapshot, principal: Principal | None
) -> TournamentOut:
    record = snapshot.record
    running = len(snapshot.running)
    total = len(snapshot.plans)
    if record["format"] == "swiss" and snapshot.meta.status == "running":
        # Rounds not planned yet will hold as many tables as the first (same field).
        first_round = sum(1 for plan in snapshot.plans.values() if plan.round == 0)
        total += max(0, record["boards"] - snapshot.planned_rounds) * first_round
    progress = ProgressOut(total=total, done=len(snapshot.done), running=running,
                           waiting=max(0, total - len(snapshot.done) - running))
    counted = snapshot.published()  # a board counts once it is over, for everyone
    table_standings = [
        StandingOut(
            entrant=standing.entrant, name=snapshot.name(standing.entrant),
            points=standing.points, games=standing.games, wins=standing.wins,
            mean_placement=None if math.isnan(standing.mean_placement) else standing.mean_placement,
            by_seat=[None if math.isnan(value) else value for value in standing.by_seat])
        for standing in standings(counted, snapshot.entrants)
    ]
    by_index = {result.index: result for result in snapshot.results}
    organiser = is_organiser(principal)
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
        duplicate_form=record.get("duplicate_form"),
        boards=record["boards"], rounds=record["rounds"], entrants=record["entrants"],
        baselines=record["baselines"], turn_timeout_s=record["turn_timeout_s"],
        max_concurrent_tables=record["max_concurrent_tables"], rated=record["rated"],
        private=record["private"], agents=record.get("agents", {}), status=snapshot.meta.status,
        created_by=record["created_by"], created_at=record["created_at"],
        finished_at=snapshot.meta.finished_at, progress=progress, standings=table_standings,
        ratings=await rated_out(ctx, snapshot.id, counted, snapshot.name), tables=tables)


async def get_tournament(
    ctx: TableContext, tournament_id: str, principal: Principal | None
) -> TournamentOut:
    """Progress, standings, live ratings and the tables of published boards."""
    snapshot = await visible_snapshot(ctx, tournament_id, principal)
    return await _tournament_out(ctx, snapshot, principal)


async def list_tournaments(
    ctx: TableContext, principal: Principal | None, *, offset: int, limit: int
) -> TournamentList:
    """Public tournaments newest first; the organiser sees private ones too."""
    ids = await store_of(ctx).list_ids(listed_only=not is_organiser(principal),
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
    snapshot = await visible_snapshot(ctx, tournament_id, principal)
    if not await end_tournament(ctx, snapshot, "cancelled"):
        raise problem("tournament/finished", "The tournament is over already.")
    await close_running(ctx, snapshot)
    await store_of(ctx).poke(tournament_id, ctx.now())  # the scheduler closes what a race created
    return await get_tournament(ctx, tournament_id, principal)

