"""``verify_bundle`` against a bundle whose tables were lost on time.

A rated tournament seat whose every move was the turn clock's loses on time,
however the clock's default actions scored. The replay records those moves with
``by: "timeout"``, so the seed and the action log still reach the stored result:
the verifier applies the same rule to the same log.
"""

from __future__ import annotations

from typing import Any

from engine.bots import RANDOM, bot_seed, decide
from engine.registry import get_game
from tournament.bundle import BUNDLE_FORMAT, replayed_placements, verify_bundle
from tournament.plan import TablePlan
from tournament.report import report_json
from tournament.results import TableResult, placements

GAME = "market-fortune"
CONFIG = {"mode": "family", "seats": 2, "variants": [], "turn_limit_per_seat": 2}
IDLER, BOT = "agt_0123456789abcdef0123", "bot:random"


def _played(seed: int, idle_seat: int) -> dict[str, Any]:
    """A replay whose ``idle_seat`` had every move made by its clock, the other by a bot."""
    game = get_game(GAME)
    state = game.new_table(game.config_model.model_validate(CONFIG), seed)
    log: list[dict[str, Any]] = []
    while game.outcome(state) is None:
        seat = game.to_act(state)[0]
        if seat == idle_seat:
            action, by = game.default_action(state, seat), "timeout"
        else:
            action, by = decide(RANDOM, game, state, seat, bot_seed(seed, len(log), seat)), "bot"
        state, _events = game.apply(state, seat, action)
        log.append({"version": len(log) + 1, "seat": seat, "action": action.id, "by": by})
    return {"table_id": f"t{seed}-{idle_seat}", "game": GAME, "config": CONFIG, "seed": seed,
            "log": log}


def _bundle(seed: int) -> dict[str, Any]:
    replays = [_played(seed, idle_seat) for idle_seat in (0, 1)]
    plans, results = [], []
    for index, replay in enumerate(replays):
        seating = (IDLER, BOT) if index == 0 else (BOT, IDLER)
        plans.append(TablePlan(index=index, round=0, board=0, rotation=index, seating=seating))
        idle = [seating.index(IDLER)]
        winners = [seat for seat in (0, 1) if seat not in idle]
        results.append(TableResult(index=index, board=0, round=0, table_id=replay["table_id"],
                                   seating=seating, placements=placements(winners, [], 2, idle),
                                   scores=(), reason="", finished_at=float(index)))
    tournament = {"entrants": [IDLER, BOT], "baselines": [], "rated": True, "format": "duplicate"}
    report = report_json(tournament=tournament, results=results, entrants=[IDLER, BOT],
                         plans=plans, seats=2, decisions={}, samples=20, seed=0)
    return {"format": BUNDLE_FORMAT, "tournament": tournament,
            "results": [result.to_json() for result in results], "board_seeds": {"0": seed},
            "replays": replays, "report": report}


def _seed_where_the_clock_wins() -> int:
    """A board on which the idle seat's default actions win a rotation outright."""
    for seed in range(200):
        for idle_seat in (0, 1):
            if replayed_placements(_played(seed, idle_seat))[idle_seat] == 1:
                return seed
    raise AssertionError("the clock never won a table")


def test_a_table_lost_on_time_replays_to_its_result() -> None:
    bundle = _bundle(_seed_where_the_clock_wins())
    for result in bundle["results"]:
        assert result["placements"][result["seating"].index(IDLER)] == 2
    assert verify_bundle(bundle) == []


def test_an_unrated_tournament_keeps_the_clocks_moves() -> None:
    bundle = _bundle(_seed_where_the_clock_wins())
    bundle["tournament"]["rated"] = False
    assert any("the replay ends" in problem for problem in verify_bundle(bundle))
