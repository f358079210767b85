"""The public rated queue: the only way an agent gets a rated table outside a tournament.

A rating must measure play, so an agent never arranges who it plays. It joins a game's
queue for a mode and a number of seats; once the pool's oldest agent has waited
``rated_queue_gather_s``, a draw seats the waiting agents at random (a keyed hash under
a fresh secret salt orders the pool), never two agents that joined from one address at
one table: an owner running several agents from one host never meets itself. Agents
left over wait for the next draw; one that waits ``rated_queue_wait_s`` with none
expires. Every seat is an agent's: house bots never fill a rated queue table, since a
deterministic bot is a fixed target an agent could be tuned to farm.

A drawn table is dealt from a secret seed with the server's default turn clock, seen by
its seats and the organiser only, and rated like any rated table: leaving it during play
forfeits it, and a seat that never moves loses on time. Each worker draws when a waiting
agent asks (a join or a read of its ticket), so no background loop is needed.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from typing import Any, Literal

from agents.wire.tournaments import RatedQueueRequest, RatedQueueTicket
from gateway.principal import Principal
from gateway.security import PendingRevocation
from gateway.services.context import TableContext
from gateway.services.records import game_or_problem, problem
from gateway.services.tables import seat_record, table_config
from gateway.services.tournament_tables import create_tournament_table
from gateway.services.tournaments.state import store_of
from gateway.store.rated_queue import RatedQueueStore

__all__ = ["QUEUE_CREATOR", "join_queue", "leave_queue", "queue_ticket"]

QUEUE_CREATOR = "rated-queue"
"""The ``created_by`` of a table the queue drew: no agent created it, so none may close it."""

_TABLES_PER_DRAW = 8
"""The most tables one draw seats (a larger pool is drawn on at the next ask)."""


def _store(ctx: TableContext) -> RatedQueueStore:
    return RatedQueueStore(ctx.store.redis, ctx.store.keys)


def _check(principal: Principal, game: str, request: RatedQueueRequest) -> None:
    """A queue joined must name a table the game can deal, and the caller must be an agent
    admitted to the game.

    :raises ProblemError: ``game/not_found``, ``auth/wrong_scope``, ``table/invalid_config``.
    """
    definition = game_or_problem(game)
    if principal.kind != "agent" or not principal.may_play(game):
        raise problem("auth/wrong_scope", f"Only an agent admitted to {game} may queue for it.")
    table_config(definition, {}, mode=request.mode, seats=request.seats, variants=[])


async def join_queue(
    ctx: TableContext, principal: Principal, game: str, request: RatedQueueRequest, *, address: str
) -> RatedQueueTicket:
    """Wait in ``game``'s rated queue for ``request``'s table (moving out of another pool
    of the game); joining the same pool again keeps the place. A draw may seat the caller
    at once."""
    _check(principal, game, request)
    ticket = {"agent": principal.agent_id, "name": principal.name, "address": address,
              "mode": request.mode, "seats": request.seats, "joined_at": ctx.now(),
              "status": "waiting", "table_id": None, "seat": None}
    return await _ticket(ctx, game, principal.agent_id, "join", ticket)


async def queue_ticket(
    ctx: TableContext, caller: PendingRevocation, game: str, *, wait_s: float = 0.0
) -> RatedQueueTicket:
    """The caller's ticket; with ``wait_s``, held (at most ``long_poll_max_wait_s``, and no
    longer than the token verifies) while it waits, until a draw seats it. Each look runs
    the draw, so waiting agents draw themselves; a draw on another worker wakes the wait
    at once, and so does the token's revocation.

    :raises ProblemError: 404 ``queue/not_queued`` when the caller never joined.
    """
    game_or_problem(game)
    give_up = time.monotonic() + caller.held_s(
        min(max(wait_s, 0.0), ctx.settings.long_poll_max_wait_s))
    watching = (ctx.waiters.watch(_store(ctx).seated_key(game, caller.agent_id),
                                  caller.revoked_key)
                if wait_s >= 0.001 else contextlib.nullcontext(None))
    async with watching as watch:
        while True:
            ticket = await _ticket(ctx, game, caller.agent_id, "look")
            remaining = give_up - time.monotonic()
            if ticket.status != "waiting" or watch is None or remaining < 0.001:
                return ticket
            # A draw may come due without any write: look again by then at the latest.
            if await watch.changed(min(remaining, max(ctx.settings.rated_queue_gather_s, 0.05))):
                caller.confirm(await store_of(ctx).key_exists(caller.revoked_key))


async def leave_queue(ctx: TableContext, principal: Principal, game: str) -> RatedQueueTicket:
    """Stop waiting (a ticket already seated, expired or left is answered as it is).

    :raises ProblemError: 404 ``queue/not_queued`` when the caller never joined.
    """
    game_or_problem(game)
    return await _ticket(ctx, game, principal.agent_id, "leave")


async def _ticket(
    ctx: TableContext, game: str, agent_id: str, op: Literal["join", "leave", "look"],
    joined: dict[str, Any] | None = None,
) -> RatedQueueTicket:
    """Do ``op`` and, while the agent waits, a draw of its pool (one script), write the
    tables drawn, and answer the agent's ticket as it is then."""
    now, settings = ctx.now(), ctx.settings
    answer = await _store(ctx).ticket(
        game, agent_id, op, joined=joined, now=now,
        gathered_before=now - settings.rated_queue_gather_s,
        expire_before=now - settings.rated_queue_wait_s, salt=secrets.token_hex(16),
        tables=[(secrets.token_hex(8), secrets.randbits(63)) for _ in range(_TABLES_PER_DRAW)])
    if answer is None:
        raise problem("queue/not_queued", f"You are not in the {game} rated queue; join it first.")
    ticket, waiting, drawn = answer
    for table_id in drawn:
        await _write_drawn(ctx, game, table_id)
    if ticket["status"] == "seated" and ticket["table_id"] not in drawn:
        await _write_drawn(ctx, game, ticket["table_id"])  # unless its drawing worker did
    return RatedQueueTicket(
        game=game, mode=ticket["mode"], seats=ticket["seats"], status=ticket["status"],
        joined_at=ticket["joined_at"], expires_at=ticket["joined_at"] + settings.rated_queue_wait_s,
        waiting=waiting, table_id=ticket.get("table_id"), seat=ticket.get("seat"))


async def _write_drawn(ctx: TableContext, game: str, table_id: str) -> None:
    """Deal and start a drawn table (once, whoever calls) and forget the draw."""
    store = _store(ctx)
    drawn = await store.drawn_table(game, table_id)
    if drawn is None:
        return  # written already
    seating: list[list[str]] = drawn["seating"]
    config = table_config(game_or_problem(game), {}, mode=drawn["mode"], seats=len(seating),
                          variants=[])
    await ctx.tournaments.note_rated_table(table_id, game)  # before the write, as any rated table
    await create_tournament_table(
        ctx, table_id=table_id, tournament_id=None, created_by=QUEUE_CREATOR, game_name=game,
        mode=drawn["mode"], variants=[], config=config.model_dump(mode="json"),
        seated=[seat_record(agent, seat, name) for seat, (agent, name) in enumerate(seating)],
        seed=int(drawn["seed"]), turn_timeout_s=ctx.settings.default_turn_timeout_s, rated=True)
    await store.written(game, table_id, [agent for agent, _name in seating])
