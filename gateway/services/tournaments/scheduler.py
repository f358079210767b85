"""The scheduler: a leased loop in every worker that plays each tournament's plan.

Every worker runs :func:`drive_tournaments` in a loop
(:mod:`gateway.services.runtime`): it claims due tournaments from the
``tournaments:active`` index for a lease (as the house bots do) and
:func:`advance_tournament` each. Every step is idempotent, so a worker killed
anywhere, or two workers on the same tournament after a lease ran out, change nothing
twice: a table is created by a compare-and-set on version -1 of its derived id; its
seats are announced before it is marked created (an announcement may repeat after a
crash, never go missing); a result is stored with HSETNX by plan index in the same
script that appends it to the finish order; a swiss round is planned once (HSETNX on
the round); the end is set once.
"""

from __future__ import annotations

import json

from gateway.services.context import TableContext
from gateway.services.due import drive_due
from gateway.services.records import TableRecord
from gateway.services.tables import seat_record
from gateway.services.tournament_tables import create_tournament_table
from gateway.services.tournaments.ladder import sweep_ladder
from gateway.services.tournaments.state import (
    TournamentSnapshot,
    board_seed,
    check_plans,
    close_running,
    end_tournament,
    load_snapshot,
    plan_json,
    plan_seed,
    result_of,
    store_of,
    table_id_for,
)
from gateway.store.tournaments import TournamentStore
from tournament.pacing import due_tables, is_agent
from tournament.plan import plan_swiss_round
from tournament.results import TableResult

__all__ = [
    "LEASE_S",
    "POLL_S",
    "advance_tournament",
    "drive_tournaments",
]


LEASE_S = 3.0
"""How long a claimed tournament is left to its worker before another may take it over:
short, for a quick take-over after a worker dies, since a pass (a handful of round trips)
that outlasts it is harmless: every step is idempotent."""


POLL_S = 1.0
"""How soon a running tournament is looked at again when none of its tables finishes
meanwhile (a finishing table makes it due at once:
:meth:`.hooks.TournamentHooks.note_finished`); the clocks and house bots play on in between."""


async def _collect(ctx: TableContext, store: TournamentStore, snapshot: TournamentSnapshot) -> None:
    """Store the result of every created table that finished since the last look.

    Reads only the running tables' records, in one pipeline: a pass must stay
    cheap, as it runs every sweeper interval while the tournament is played.
    """
    running = {table_id_for(snapshot.meta.secret, index): index for index in snapshot.running}
    for raw in await ctx.store.load_records(list(running)):
        raw.pop("version", None)
        record = TableRecord.model_validate(raw)
        index = running[record.id]
        if record.status != "finished":
            continue
        result = await result_of(ctx, snapshot.plans[index], record)
        if result is None:
            continue
        result_json = json.dumps(result.to_json())
        # A private tournament's ratings stay its own: the public ladder would name its
        # entrants and their strength. First: a crash before the next line redoes both, once.
        if snapshot.record["rated"] and not snapshot.record["private"]:
            await _rate_board_if_over(store, snapshot, index, result)
        if await store.record_result(snapshot.id, index, result_json):
            snapshot.results.append(result)
            snapshot.done.add(index)


async def _rate_board_if_over(store: TournamentStore, snapshot: TournamentSnapshot, index: int,
                              result: TableResult) -> None:
    """Put a board's results on the public ladder once ``result`` (of plan ``index``, not
    yet stored) is the last of its board: a rotation's placements on the ladder while its
    board is still played would tell its deal to those about to play it."""
    board = result.board
    if any(other not in snapshot.done for other, plan in snapshot.plans.items()
           if plan.board == board and other != index):
        return
    for finished in [*(earlier for earlier in snapshot.results if earlier.board == board), result]:
        await store.record_ladder(snapshot.record["game"], finished.table_id,
                                  json.dumps(finished.to_json()))


async def _plan_or_finish(ctx: TableContext, store: TournamentStore,
                          snapshot: TournamentSnapshot) -> bool:
    """Once every planned table is over: plan the next round of a swiss (one board per
    round) that has rounds to go, or else end the tournament and tell its agents (True)."""
    if any(index not in snapshot.done for index in snapshot.plans):
        return False
    record = snapshot.record
    rounds = snapshot.planned_rounds
    if record["format"] != "swiss" or rounds >= record["boards"]:
        await end_tournament(ctx, snapshot, "finished")
        return True
    plans = plan_swiss_round(
        entrants=record["entrants"], seats=record["seats"], round=rounds, board=rounds,
        first_index=1 + max(snapshot.plans), results=snapshot.results,
        seed=plan_seed(snapshot.meta.secret), baselines=record["baselines"])
    check_plans(plans, record["seats"])
    secret = snapshot.meta.secret
    await store.add_round(snapshot.id, rounds, [
        (plan.index, plan_json(plan), table_id_for(secret, plan.index)) for plan in plans])
    for plan in plans:
        snapshot.plans[plan.index] = plan
    return False


async def _create_due(ctx: TableContext, store: TournamentStore, snapshot: TournamentSnapshot) -> None:
    """Create the tables :func:`tournament.pacing.due_tables` names: in plan order, up to
    the tournament's concurrency, none while one of its agents plays another table of
    its board (the boards interleave meanwhile)."""
    record = snapshot.record
    secret = snapshot.meta.secret
    for index in due_tables(snapshot.plans, snapshot.created, snapshot.done,
                            record["max_concurrent_tables"]):
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
            if is_agent(entrant):
                await store.announce(entrant, {
                    "kind": "table.assigned", "tournament_id": snapshot.id,
                    "table_id": table_id, "seat": seat, "game": record["game"], "at": now})
        await store.note_created(snapshot.id, index, now)
        snapshot.created[index] = now


async def advance_tournament(ctx: TableContext, tournament_id: str) -> float | None:
    """Move one tournament on: collect results, plan a swiss round, create due tables,
    end it when everything is played. Returns when to look again (``None``: never)."""
    store = store_of(ctx)
    snapshot = await load_snapshot(ctx, tournament_id)
    if snapshot.meta.status == "cancelled":
        await close_running(ctx, snapshot)
        return None
    if snapshot.meta.status != "running":
        return None
    await _collect(ctx, store, snapshot)
    if await _plan_or_finish(ctx, store, snapshot):
        return None
    await _create_due(ctx, store, snapshot)
    return ctx.now() + POLL_S


async def drive_tournaments(ctx: TableContext) -> int:
    """Claim every due tournament and advance them concurrently, then sweep the ladder's
    pending tables; returns the number of tournaments."""
    store = store_of(ctx)
    claimed = await drive_due(ctx, "tournament", advance_tournament, store.claim_active,
                              store.release_active, lease_s=LEASE_S)
    await sweep_ladder(ctx)
    return claimed
