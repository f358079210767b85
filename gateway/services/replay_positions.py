"""Every position of a finished table, rebuilt from its seed and action log, for the replay page.

What a finished table makes public (docs/watch.md, "After the end"): everything.
The replay (``GET /v1/tables/{id}/replay``) already publishes the seed, the whole
log, every event and the final state once the table is over, so any reader can
rebuild every hand of every step. These positions are that same knowledge in
the shape the page draws: per step the spectator's view and, per seat, what
that seat saw beyond it (its hand, its Strategies, its shares...). Nothing is
computed that the replay does not already give away.

The positions pass the replay's own gates (:func:`gateway.services.replays.require_replay_open`),
with one reader more: anyone, for a table of a public tournament whose board is
published, since that tournament already lists the table and serves its replay to
anyone (``GET /v1/tournaments/{id}`` and its ``replays.jsonl``).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

from agents.wire.tables import ReplayOut
from engine.core import Game
from engine.registry import get_game
from gateway.principal import Principal
from gateway.schemas.watch import ReplayEventOut, ReplayPositions, ReplayStepOut
from gateway.services import replays as replays_service
from gateway.services import tables as tables_service
from gateway.services import tournaments as tournaments_service
from gateway.services.access import may_see
from gateway.services.actions import load_table
from gateway.services.context import TableContext
from gateway.services.records import TableRecord

__all__ = ["opened_by_its_tournament", "replay_positions", "seat_extras"]


def seat_extras(game: Game[Any, Any, Any], state: Any, spectator: dict[str, Any], seats: int) -> list[dict[str, Any]]:
    """Per seat, the fields of its own view that differ from the spectator's (``seat`` left out).

    Game-agnostic on purpose: whatever a game hides from spectators is exactly
    what differs, so a new game needs nothing here.
    """
    extras = []
    for seat in range(seats):
        own = game.view(state, seat).model_dump(mode="json")
        extras.append({key: value for key, value in own.items()
                       if key != "seat" and spectator.get(key) != value})
    return extras


async def opened_by_its_tournament(ctx: TableContext, table_id: str,
                                   principal: Principal | None) -> bool:
    """True when ``principal`` may not see the table, yet a public tournament shows it to
    anyone (its board is published): then its replay is anyone's too."""
    return await _opened(ctx, (await load_table(ctx, table_id)).record, principal)


async def _opened(ctx: TableContext, record: TableRecord, principal: Principal | None) -> bool:
    return not may_see(record, principal) and await tournaments_service.shown_to_anyone(ctx, record)


_MEMO: OrderedDict[tuple[str, str, int, int], ReplayPositions] = OrderedDict()
_MEMO_SIZE = 4
"""The last few positions made, by (namespace, table id, seed, log length). A finished
table never changes, so a remembered answer is the one it would make again; the
gates are checked on every request before the memo is read."""


def _positions(replay: ReplayOut, record: TableRecord) -> ReplayPositions:
    """Play the replay's log through the engine: CPU work (about a second for a long
    four-seat game), run in a worker thread."""
    game = get_game(replay.game)
    seats = int(replay.config["seats"])
    state = game.new_table(game.config_model.model_validate(replay.config), replay.seed)

    def step(index: int, events: list[ReplayEventOut], **move: Any) -> ReplayStepOut:
        spectator = game.view(state, None).model_dump(mode="json")
        return ReplayStepOut(step=index, events=events, view=spectator,
                             seat_views=seat_extras(game, state, spectator, seats), **move)

    steps = [step(0, [])]
    for index, entry in enumerate(replay.log, 1):
        state, events = game.apply(state, entry.seat, game.parse_action(entry.action))
        steps.append(step(
            index,
            [ReplayEventOut(kind=e.kind, text=e.text, audience=list(e.audience) if e.audience is not None else None)
             for e in events],
            version=entry.version, seat=entry.seat, action=entry.action, by=entry.by, at=entry.at,
        ))
    seated = tables_service.table_out(record, 0, None).seated
    return ReplayPositions(table_id=replay.table_id, game=replay.game, mode=record.mode, seats=seats,
                           seated=seated, steps=steps, outcome=replay.outcome)


async def replay_positions(ctx: TableContext, table_id: str, principal: Principal | None) -> ReplayPositions:
    """Step 0 is the deal; step ``k`` the position after the ``k``-th logged action."""
    loaded = await load_table(ctx, table_id)
    if not await _opened(ctx, loaded.record, principal):
        await replays_service.require_replay_open(ctx, loaded, principal)
    replay = await replays_service.build_replay(ctx, loaded)
    key = (ctx.settings.redis_namespace, table_id, replay.seed, len(replay.log))
    made = _MEMO.get(key)
    if made is None:
        made = await asyncio.to_thread(_positions, replay, loaded.record)
        _MEMO[key] = made
        while len(_MEMO) > _MEMO_SIZE:
            _MEMO.popitem(last=False)
    return made
