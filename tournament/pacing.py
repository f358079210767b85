"""Which planned tables may start now: never one agent at two live tables of one board.

Every table of a board deals the same cards. An agent seated at two live tables of
one board would see the hands of two seats of one deal at once (in the rotated
duplicate form, every seat in turn within a second or so), so a table waits while
one of its agents still plays another table of its board, in every format, whatever
the concurrency. Tables of other boards start meanwhile, so the boards interleave
and the concurrency is used. House bots (``bot:...``) are exempt: they read nothing
but their own seat's view.

:func:`due_tables` is the scheduler's whole decision, pure so that it can be
checked on every format and concurrency (``tests/tournament/test_pacing.py``).
It stays safe when two workers decide from snapshots of different ages (a lease
ran out): in every plan two tables of one board that share an agent have the same
agents (the rotations of one group; baselines are house bots), so a group's tables
start one at a time in plan order, and a stale snapshot can only pick a table
that exists already (its creation is then a no-op) or the very next one of the
group once the one before is over.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from tournament.plan import TablePlan

__all__ = ["due_tables", "is_agent", "live_boards"]


def is_agent(entrant: str) -> bool:
    """Whether ``entrant`` is an agent (which sees what it is shown), not a house bot."""
    return not entrant.startswith("bot:")


def live_boards(plans: Mapping[int, TablePlan], created: Collection[int],
                done: Collection[int]) -> set[tuple[str, int]]:
    """``(agent, board)`` for every agent seated at a created table of ``board`` not yet over."""
    return {(entrant, plans[index].board)
            for index in created if index not in done
            for entrant in plans[index].seating if is_agent(entrant)}


def due_tables(plans: Mapping[int, TablePlan], created: Collection[int],
               done: Collection[int], max_concurrent: int) -> list[int]:
    """The plan indices to create now, in plan order, at most ``max_concurrent`` live in all.

    A table is skipped while one of its agents is at a live table of the same
    board (one already live, or one picked earlier in this call); later tables
    of other boards are taken instead.
    """
    room = max_concurrent - sum(1 for index in created if index not in done)
    live = live_boards(plans, created, done)
    due: list[int] = []
    for index in sorted(plans):
        if room <= 0:
            break
        if index in created:
            continue
        plan = plans[index]
        agents = [entrant for entrant in plan.seating if is_agent(entrant)]
        if any((agent, plan.board) in live for agent in agents):
            continue
        live.update((agent, plan.board) for agent in agents)
        due.append(index)
        room -= 1
    return due
