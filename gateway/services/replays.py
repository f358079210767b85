"""A finished table's replay: its gates, and the replay built once and kept.

A replay tells the seed and every hand, so it opens only when the table is over
(:func:`require_replay_open`), and for a tournament table once its board is
published. Readers without a token are limited per address
(:func:`limit_anonymous_replays`): building a long replay costs real CPU.
"""

from __future__ import annotations

import asyncio
import zlib
from typing import Any

from agents.wire.tables import LogEntryOut, ReplayOut
from gateway.errors import rate_limited
from gateway.principal import Principal
from gateway.services.access import require_visible
from gateway.services.actions import load_table
from gateway.services.context import TableContext
from gateway.services.loaded_table import LoadedTable
from gateway.services.observations import event_out, outcome_out
from gateway.services.records import problem
from gateway.store.admission import AdmissionStore
from gateway.store.tables import StoredEvent

__all__ = [
    "build_replay",
    "limit_anonymous_replays",
    "published_replay",
    "replay_json",
    "require_replay_open",
]


async def limit_anonymous_replays(
    ctx: TableContext, principal: Principal | None, address: str, *, replays: int = 1
) -> None:
    """Count ``replays`` read without a token against their address's allowance
    (``anonymous_replays_per_address`` per ``anonymous_replay_window_s``): building a long
    replay, or its positions, costs tens of milliseconds to a second of CPU. A bundle
    (a tournament's ``replays.jsonl``) counts as many as it holds, and at least one.

    :raises ProblemError: 429 ``rate/limited`` with ``Retry-After`` beyond it.
    """
    if principal is not None:
        return
    settings = ctx.settings
    decision = await AdmissionStore(ctx.store.redis, ctx.store.keys, ctx.clock).hit(
        "replay", address, limit=settings.anonymous_replays_per_address,
        window_s=settings.anonymous_replay_window_s, units=max(1, replays))
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


async def published_replay(ctx: TableContext, table_id: str) -> ReplayOut:
    """The replay of the finished table ``table_id``, read and built with none of the gates
    (:func:`build_replay`): for a tournament's boards its caller found published."""
    return await build_replay(ctx, await load_table(ctx, table_id))


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
