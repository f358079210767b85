"""What the tournament modules share: problem codes, derived secrets, one read of a
tournament (:class:`TournamentSnapshot`), visibility, live ratings, table results.
The derived secrets are described in the package's docstring."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from agents.wire.tournaments import (
    RatingOut,
)
from gateway.errors import ProblemError
from gateway.openapi_docs import register_problem
from gateway.principal import Principal
from gateway.services.context import TableContext
from gateway.services.records import TableRecord, problem
from gateway.services.tables import FORFEIT
from gateway.services.tournament_tables import (
    CANCELLED,
    close_tournament_table,
)
from gateway.store.tournaments import TournamentMeta, TournamentStore
from tournament.pacing import is_agent
from tournament.plan import TablePlan, field_of
from tournament.ratings import LiveRating, live_ratings
from tournament.results import TableResult, never_moved, placements

__all__ = [
    "TournamentSnapshot",
    "board_seed",
    "check_plans",
    "close_running",
    "end_tournament",
    "is_organiser",
    "load_snapshot",
    "not_found",
    "plan_json",
    "plan_of",
    "plan_seed",
    "rated_out",
    "result_of",
    "store_of",
    "table_id_for",
    "visible_snapshot",
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


def _mac(secret: bytes, label: str) -> bytes:
    return hmac.new(secret, label.encode(), hashlib.sha256).digest()


def board_seed(secret: bytes, board: int) -> int:
    """The seed of ``board``: HMAC-SHA256 of the tournament's secret, cut to 63 bits."""
    return int.from_bytes(_mac(secret, f"board:{board}")[:8], "big") >> 1


def table_id_for(secret: bytes, index: int) -> str:
    """The id of plan ``index``'s table: 16 hex digits, like every table id."""
    return _mac(secret, f"table:{index}").hex()[:16]


def plan_seed(secret: bytes) -> int:
    """The seed the plan breaks its ties with (derived from the tournament's secret)."""
    return int.from_bytes(_mac(secret, "plan")[:8], "big") >> 1


def plan_json(plan: TablePlan) -> str:
    return json.dumps(asdict(plan))


def plan_of(raw: str) -> TablePlan:
    fields = json.loads(raw)
    fields["seating"] = tuple(fields["seating"])
    return TablePlan(**fields)


def not_found(tournament_id: str) -> ProblemError:
    """The ``tournament/not_found`` problem (the same for a private tournament)."""
    shown = tournament_id if len(tournament_id) <= 64 else tournament_id[:64] + "…"
    return problem("tournament/not_found", f"No tournament has the id {shown!r}.")


def store_of(ctx: TableContext) -> TournamentStore:
    """The tournament store on the context's Redis and namespace (cheap to build)."""
    return TournamentStore(ctx.store.redis, ctx.store.keys)


def is_organiser(principal: Principal | None) -> bool:
    return principal is not None and principal.kind == "organiser"


def check_plans(plans: Sequence[TablePlan], seats: int) -> None:
    """Refuse (``tournament/invalid``) a plan that seats an agent twice at one table."""
    for plan in plans:
        agents = [entrant for entrant in plan.seating if not entrant.startswith("bot:")]
        if len(plan.seating) != seats or len(agents) != len(set(agents)):
            raise problem("tournament/invalid",
                          "The plan seats an agent twice at one table; add entrants or baselines.")


class TournamentSnapshot:
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
    def running(self) -> list[int]:
        """The plan indexes of tables created and not over yet, in plan order."""
        return sorted(set(self.created) - self.done)

    @property
    def planned_rounds(self) -> int:
        return 1 + max((plan.round for plan in self.plans.values()), default=0)

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


async def load_snapshot(ctx: TableContext, tournament_id: str) -> TournamentSnapshot:
    """Read a tournament (``tournament/not_found`` when there is none)."""
    store = store_of(ctx)
    meta = await store.meta(tournament_id)
    if meta is None:
        raise not_found(tournament_id)
    plans = {index: plan_of(raw) for index, raw in (await store.plans(tournament_id)).items()}
    created = await store.created(tournament_id)
    results = [TableResult.from_json(json.loads(raw)) for raw in await store.results(tournament_id)]
    return TournamentSnapshot(tournament_id, meta, plans, created, results)


async def visible_snapshot(
    ctx: TableContext, tournament_id: str, principal: Principal | None
) -> TournamentSnapshot:
    """:func:`load_snapshot`; ``tournament/not_found`` for a private tournament too, unless
    ``principal`` is the organiser."""
    snapshot = await load_snapshot(ctx, tournament_id)
    if snapshot.record["private"] and not is_organiser(principal):
        raise not_found(tournament_id)
    return snapshot


_RATINGS_MEMO: dict[tuple[str, str, int, str], list[LiveRating]] = {}
"""Live ratings by (namespace, tournament id or ``ladder:<game>``, number of results, last
result's table id), newest last.

Results are only ever appended, in finish order, so the first ``n`` results of one key
never change and neither do their ratings: the memo cannot answer wrong. It spares a
public read the OpenSkill pass over every result."""


_RATINGS_MEMO_SIZE = 256


async def rated_out(
    ctx: TableContext, key: str, results: Sequence[TableResult], name: Any
) -> list[RatingOut]:
    """The live ratings of ``results`` (memoised, see :data:`_RATINGS_MEMO`), best first.
    The OpenSkill pass runs in a thread: a public read must not hold the event loop."""
    last = results[-1].table_id if results else ""
    memo_key = (ctx.store.keys.namespace, key, len(results), last)
    rated = _RATINGS_MEMO.get(memo_key)
    if rated is None:
        rated = await asyncio.to_thread(_ranked, results)
        _RATINGS_MEMO[memo_key] = rated
        while len(_RATINGS_MEMO) > _RATINGS_MEMO_SIZE:
            del _RATINGS_MEMO[next(iter(_RATINGS_MEMO))]
    return [RatingOut(**asdict(rating), name=name(rating.entrant)) for rating in rated]


def _ranked(results: Sequence[TableResult]) -> list[LiveRating]:
    return sorted(live_ratings(results).values(), key=lambda rating: -rating.ordinal)


async def result_of(ctx: TableContext, plan: TablePlan, record: TableRecord) -> TableResult | None:
    """The result of a finished table; None while it is played, or when it was cancelled.

    The agent seats of a rated table that never moved lose on time
    (:func:`tournament.results.never_moved`); unrated tables have none, nor does a
    forfeited one: its leaver alone loses, though it may leave before the others moved.
    """
    if record.status != "finished" or record.outcome is None:
        return None
    reason = str(record.outcome.get("reason", ""))
    if reason == CANCELLED:
        return None
    idle: tuple[int, ...] = ()
    if record.rated and reason != FORFEIT:
        agents = [seat for seat, occupant in enumerate(record.seated)
                  if occupant is not None and occupant.kind == "agent"]
        idle = never_moved(await ctx.store.action_log(record.id), agents)
    winners = [int(seat) for seat in record.outcome.get("winners", [])]
    scores = [float(score) for score in record.outcome.get("scores", [])]
    eliminated = [int(seat) for seat in record.outcome.get("eliminated", [])]
    return TableResult(
        index=plan.index, board=plan.board, round=plan.round, table_id=record.id,
        seating=plan.seating,
        placements=placements(winners, scores, record.seats, eliminated, lost_on_time=idle),
        scores=tuple(scores), reason=reason, finished_at=record.finished_at or 0.0)


async def end_tournament(ctx: TableContext, snapshot: TournamentSnapshot, status: str) -> bool:
    """End the tournament as ``status`` (``finished``, ``cancelled``) and tell each agent
    entrant with a ``tournament.finished`` assignment, so its assignment loop ends either
    way; False when it had ended already (nobody is told twice)."""
    store, now = store_of(ctx), ctx.now()
    if not await store.end(snapshot.id, status, now):
        return False
    for entrant in snapshot.record["entrants"]:
        if is_agent(entrant):
            await store.announce(entrant, {
                "kind": "tournament.finished", "tournament_id": snapshot.id, "at": now})
    return True


async def close_running(ctx: TableContext, snapshot: TournamentSnapshot) -> None:
    for index in snapshot.running:
        await close_tournament_table(ctx, table_id_for(snapshot.meta.secret, index),
                                     "The tournament was cancelled; nobody wins this table.")

