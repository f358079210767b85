"""Results (JSON, CSV), the replays bundle, the final report with decision statistics,
and the embargo of a board's replays until every table of it is over."""

from __future__ import annotations

import asyncio
import json
import math
from collections import Counter
from collections.abc import AsyncIterator, Mapping
from typing import Any

from agents.wire.tables import ReplayOut
from agents.wire.tournaments import (
    TableResultOut,
    TournamentResults,
)
from gateway.principal import Principal
from gateway.services import replays as replays_service
from gateway.services.context import TableContext
from gateway.services.records import TableRecord, problem
from gateway.services.tournaments.state import (
    TournamentSnapshot,
    board_seed,
    is_organiser,
    load_snapshot,
    store_of,
    visible_snapshot,
)
from tournament.report import DecisionStats, report_json, results_csv
from tournament.results import TableResult

__all__ = [
    "replays_jsonl",
    "report",
    "results",
    "results_csv_text",
    "shown_to_anyone",
    "tournament_of",
]


async def _shown_results(
    ctx: TableContext, tournament_id: str, principal: Principal | None
) -> tuple[TournamentSnapshot, list[TableResult]]:
    """The tournament and the results ``principal`` may see (the organiser all of them,
    others those of published boards), in plan order."""
    snapshot = await visible_snapshot(ctx, tournament_id, principal)
    shown = snapshot.results if is_organiser(principal) else snapshot.published()
    return snapshot, sorted(shown, key=lambda result: result.index)


async def results(
    ctx: TableContext, tournament_id: str, principal: Principal | None
) -> TournamentResults:
    """Results of published boards in plan order (all of them for the organiser), each with
    its rotation, and the published boards' seeds."""
    snapshot, shown = await _shown_results(ctx, tournament_id, principal)
    boards = sorted({plan.board for plan in snapshot.plans.values()
                     if snapshot.board_complete(plan.board)})
    return TournamentResults(
        tournament_id=tournament_id, status=snapshot.meta.status,
        results=[TableResultOut(**result.to_json(), rotation=snapshot.plans[result.index].rotation)
                 for result in shown],
        board_seeds={str(board): board_seed(snapshot.meta.secret, board) for board in boards})


async def results_csv_text(
    ctx: TableContext, tournament_id: str, principal: Principal | None
) -> str:
    """The same results as CSV, one row per seat per table, in plan order."""
    snapshot, shown = await _shown_results(ctx, tournament_id, principal)
    return results_csv(shown, {index: plan.rotation for index, plan in snapshot.plans.items()})


async def replays_jsonl(
    ctx: TableContext, tournament_id: str, principal: Principal | None, *, address: str
) -> AsyncIterator[str]:
    """Every published table's result and replay, one JSON object per line, in finish order.

    Read without a token, it counts against the address's anonymous replay allowance as
    many replays as it holds (429 ``rate/limited`` beyond).
    """
    snapshot = await visible_snapshot(ctx, tournament_id, principal)
    shown = snapshot.published()
    await replays_service.limit_anonymous_replays(ctx, principal, address, replays=len(shown))

    async def lines() -> AsyncIterator[str]:
        for result in shown:  # published boards of a tournament the caller may see
            replay = await replays_service.published_replay(ctx, result.table_id)
            yield await asyncio.to_thread(_replay_line, tournament_id, result, replay)

    return lines()


def _replay_line(tournament_id: str, result: TableResult, replay: ReplayOut) -> str:
    """One line of ``replays.jsonl`` (its JSON made in a thread: a long replay is tens of ms)."""
    return json.dumps({"tournament_id": tournament_id, "result": result.to_json(),
                       "replay": replay.model_dump(mode="json")}) + "\n"


async def _decisions(
    ctx: TableContext, snapshot: TournamentSnapshot, refused: Mapping[str, int]
) -> dict[str, DecisionStats]:
    """Per entrant: decisions, refused actions, clock timeouts, mean and p95 decision time.

    A decision's time runs from the previous commit of its table to its own, as the
    action log stamps them. A table's first action is left out: timed from the table's
    start, it holds the time its agent took to learn of the table, not to decide.
    """
    times: dict[str, list[float]] = {entrant: [] for entrant in snapshot.entrants}
    timeouts: Counter[str] = Counter()
    decided: Counter[str] = Counter()
    for result in snapshot.results:
        previous: float | None = None
        for entry in await ctx.store.action_log(result.table_id):
            entrant = result.seating[int(entry["seat"])]
            decided[entrant] += 1
            at = float(entry["at"])
            if previous is not None:
                times.setdefault(entrant, []).append(max(0.0, at - previous))
            previous = at
            if entry["by"] == "timeout":
                timeouts[entrant] += 1
    stats = {}
    for entrant, spent in times.items():
        ordered = sorted(spent)
        p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)] if ordered else 0.0
        stats[entrant] = DecisionStats(
            decisions=decided[entrant], refused=refused.get(entrant, 0), timeouts=timeouts[entrant],
            mean_s=sum(ordered) / len(ordered) if ordered else 0.0, p95_s=p95)
    return stats


async def report(
    ctx: TableContext, tournament_id: str, principal: Principal | None
) -> dict[str, Any]:
    """The final report (a Plackett-Luce fit with bootstrap intervals over boards), made once
    the tournament is over and kept from then on."""
    snapshot = await visible_snapshot(ctx, tournament_id, principal)
    if snapshot.meta.status == "running":
        raise problem("tournament/not_finished", "The report opens when every table is over.")
    if snapshot.meta.report is not None:
        cached: dict[str, Any] = json.loads(snapshot.meta.report)
        return cached
    store = store_of(ctx)
    decisions = await _decisions(ctx, snapshot, await store.refused(tournament_id))
    public = {key: value for key, value in snapshot.record.items() if key != "config"}
    public.update(status=snapshot.meta.status, finished_at=snapshot.meta.finished_at)
    made = await asyncio.to_thread(
        report_json, tournament=public, results=snapshot.results, entrants=snapshot.entrants,
        plans=[snapshot.plans[index] for index in sorted(snapshot.plans)],
        seats=snapshot.record["seats"], decisions=decisions)
    await store.cache_report(tournament_id, json.dumps(made))
    return made


async def tournament_of(
    ctx: TableContext, record: TableRecord
) -> tuple[TournamentSnapshot, int] | None:
    """``record``'s tournament and the table's index in its plan; None for a table that is
    no tournament's."""
    if record.tournament is None:
        return None
    index = await store_of(ctx).index_of_table(record.tournament, record.id)
    if index is None:
        return None
    return await load_snapshot(ctx, record.tournament), index


async def shown_to_anyone(ctx: TableContext, record: TableRecord) -> bool:
    """Whether a public tournament shows ``record``'s table to anyone, as
    ``GET /v1/tournaments/{id}`` lists it and ``replays.jsonl`` serves its replay: its
    result is in and its board published. (The table itself stays private: no one
    watches it live.)"""
    found = await tournament_of(ctx, record)
    if found is None:
        return False
    snapshot, index = found
    if snapshot.record["private"]:
        return False
    return (any(result.index == index for result in snapshot.results)
            and snapshot.board_complete(snapshot.plans[index].board))
