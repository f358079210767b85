"""``agents-club simulate``, run in-process through the real dispatcher.

The figures the CLI prints are recomputed here straight from the playout
harness with the same seeds and bots, so the test checks the arithmetic and
the wiring, not just that something was printed.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from agents_club_cli.main import main
from engine.bots import get_bot
from engine.market_fortune import GAME
from engine.market_fortune.state import MarketFortuneConfig
from engine.simulation import play_table

GAMES = 12
SEED = 3
BOTS = ["greedy", "random", "random", "random"]


def expected_figures() -> dict[str, object]:
    config = MarketFortuneConfig(mode="fortune", seats=4)
    bots = [get_bot("market-fortune", name) for name in BOTS]
    wins = [0.0] * 4
    reasons: Counter[str] = Counter()
    played: Counter[str] = Counter()
    turns = steps = 0
    for seed in range(SEED, SEED + GAMES):
        playout = play_table(GAME, config, seed, bots)
        for seat in playout.outcome.winners:
            wins[seat] += 1 / len(playout.outcome.winners)
        reasons[playout.end_reason] += 1
        played.update(playout.cards_played)
        turns += playout.turns
        steps += playout.steps
    return {
        "wins": wins,
        "reasons": dict(reasons),
        "played": dict(played),
        "mean_turns": turns / GAMES,
        "mean_steps": steps / GAMES,
    }


def run_cli(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    code = main(
        [
            "simulate",
            "--game", "market-fortune",
            "--mode", "fortune",
            "--seats", "4",
            "--bots", ",".join(BOTS),
            "--games", str(GAMES),
            "--seed", str(SEED),
            *extra,
        ]
    )  # fmt: skip
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_json_report_matches_the_playouts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--json", "--quiet")
    assert code == 0
    report = json.loads(out)
    expected = expected_figures()
    wins = expected["wins"]
    assert isinstance(wins, list)
    assert report["games"] == GAMES
    assert report["seeds"] == [SEED, SEED + GAMES - 1]
    assert report["win_rate_by_seat"] == [round(w / GAMES, 6) for w in wins]
    assert report["win_rate_by_bot"] == {
        "greedy": round(wins[0] / GAMES, 6),
        "random": round(sum(wins[1:]) / 3 / GAMES, 6),
    }
    assert report["end_reasons"] == expected["reasons"]
    assert report["cards_played"] == expected["played"]
    mean_turns, mean_steps = expected["mean_turns"], expected["mean_steps"]
    assert isinstance(mean_turns, float) and isinstance(mean_steps, float)
    assert report["mean_turns"] == round(mean_turns, 3)
    assert report["mean_steps"] == round(mean_steps, 3)


def test_the_text_report_prints_the_same_figures(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys)
    assert code == 0
    expected = expected_figures()
    wins = expected["wins"]
    assert isinstance(wins, list)
    assert f"market-fortune · fortune · 4 seats · {GAMES} games" in out
    seat_zero = re.search(r"seat 0\s+greedy\s+([\d.]+)%", out)
    assert seat_zero and float(seat_zero.group(1)) == round(100 * wins[0] / GAMES, 1)
    mean_turns = expected["mean_turns"]
    assert isinstance(mean_turns, float)
    assert f"mean turns {mean_turns:.1f}" in out
    reasons = expected["reasons"]
    assert isinstance(reasons, dict)
    for reason, count in reasons.items():
        assert re.search(rf"{reason}\s+[\d.]+%\s+\({count}\)", out)
    played = expected["played"]
    assert isinstance(played, dict) and played
    for card, count in played.items():
        assert re.search(rf"{re.escape(card)}\s+{count}\s", out)
    assert "game" in err  # the tqdm progress bar goes to stderr, never to stdout


def test_one_bot_name_fills_every_seat_and_other_games_work(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--game", "hab-und-gut", "--games", "3", "--quiet", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["bots"] == ["random"] * 4
    assert sum(report["win_rate_by_seat"]) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--game", "chess"], "unknown game"),
        (["--bots", "greedy,random"], "2 bots for 4 seats"),
        (["--bots", "clever"], "no bot 'clever'"),
        (["--seats", "9"], "invalid table"),
        (["--variants", "no_such_variant"], "invalid table"),
        (["--games", "0"], "at least 1"),
    ],
)
def test_bad_arguments_exit_with_status_2(
    capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    assert main(["simulate", "--quiet", *arguments]) == 2
    assert message in capsys.readouterr().err


def test_rotate_moves_the_line_up_one_seat_each_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--rotate", "--json", "--quiet")
    assert code == 0
    report = json.loads(out)
    config = MarketFortuneConfig(mode="fortune", seats=4)
    bots = [get_bot("market-fortune", name) for name in BOTS]
    greedy_wins = seat_wins = 0.0
    for index in range(GAMES):
        line_up = [bots[(seat - index) % 4] for seat in range(4)]
        assert line_up[index % 4].name == "greedy"  # greedy sits one seat further each game
        outcome = play_table(GAME, config, SEED + index, line_up).outcome
        for seat in outcome.winners:
            greedy_wins += (line_up[seat].name == "greedy") / len(outcome.winners)
            seat_wins += (seat == 0) / len(outcome.winners)
    assert report["rotate"] is True
    assert report["win_rate_by_bot"]["greedy"] == round(greedy_wins / GAMES, 6)
    assert report["win_rate_by_bot"]["random"] == round((GAMES - greedy_wins) / (3 * GAMES), 6)
    assert report["win_rate_by_seat"][0] == round(seat_wins / GAMES, 6)
