"""Play many seeded games between house bots and print what happened.

    agents-club simulate --game market-fortune --mode fortune --seats 4 \\
        --bots greedy,random,random,random --games 1000 --seed 1

Game ``i`` (0-based) uses the table seed ``seed + i``, so any single game can be
replayed. With ``--rotate`` the line-up moves one seat clockwise each game, so
every bot plays every position and the seat order's advantage cancels out. The
report gives win rates per seat and per bot (a shared win counts as a fraction
for each winner), mean turns and steps, why games ended, and how often each
card was played. Works for every game in the registry.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from tqdm import tqdm

from engine.bots import Bot, UnknownBot, get_bot
from engine.core import EngineError, Game, TableConfig
from engine.registry import UnknownGame, all_games, get_game
from engine.simulation import Playout, play_table

__all__ = ["STANDARD_MODES", "SimulationSummary", "add_arguments", "format_summary", "run", "summarise"]

STANDARD_MODES: dict[str, str] = {"market-fortune": "fortune"}
"""The mode played when ``--mode`` is not given; other games use their first mode."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter  # keep the example readable
    parser.add_argument("--game", default="market-fortune", help="game name (default: market-fortune)")
    parser.add_argument(
        "--mode", help="game mode (default: fortune for market-fortune, else the game's first mode)"
    )
    parser.add_argument("--seats", type=int, default=4, help="number of seats (default: 4)")
    parser.add_argument(
        "--bots",
        default="random",
        help="bot per seat, comma separated; a single name fills every seat (default: random)",
    )
    parser.add_argument("--variants", default="", help="rule variants to switch on, comma separated")
    parser.add_argument("--games", type=int, default=100, help="games to play (default: 100)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game (default: 1)")
    parser.add_argument(
        "--rotate", action="store_true", help="move the line-up one seat clockwise each game"
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


@dataclass
class SimulationSummary:
    """Figures over a set of playouts of one configuration."""

    game: str
    mode: str
    seats: int
    bots: tuple[str, ...]
    """The line-up of the first game, seat by seat."""
    first_seed: int
    rotate: bool = False
    """Whether the line-up moved one seat clockwise each game."""
    games: int = 0
    seat_wins: list[float] = field(default_factory=list)
    """Wins per seat; a win shared by ``n`` seats counts ``1/n`` for each."""
    total_turns: int = 0
    total_steps: int = 0
    end_reasons: Counter[str] = field(default_factory=Counter)
    cards_played: Counter[str] = field(default_factory=Counter)
    bot_wins: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    """Wins per bot name, shared wins counted as fractions."""
    bot_seats: Counter[str] = field(default_factory=Counter)
    """Seats played per bot name, over all games."""

    def add(self, playout: Playout) -> None:
        """Count one finished playout."""
        if not self.seat_wins:
            self.seat_wins = [0.0] * self.seats
        self.games += 1
        for seat in playout.outcome.winners:
            self.seat_wins[seat] += 1 / len(playout.outcome.winners)
            self.bot_wins[playout.bots[seat]] += 1 / len(playout.outcome.winners)
        self.bot_seats.update(playout.bots)
        self.total_turns += playout.turns
        self.total_steps += playout.steps
        self.end_reasons[playout.end_reason] += 1
        self.cards_played.update(playout.cards_played)

    def seat_win_rate(self, seat: int) -> float:
        """Share of games seat ``seat`` won (0..1)."""
        return self.seat_wins[seat] / self.games if self.games else 0.0

    def bot_win_rates(self) -> dict[str, float]:
        """Per bot name: the share of its seats that won (0..1), over all games."""
        return {
            name: self.bot_wins[name] / self.bot_seats[name] if self.bot_seats[name] else 0.0
            for name in dict.fromkeys(self.bots)
        }

    @property
    def mean_turns(self) -> float:
        """Turns per game, on average."""
        return self.total_turns / self.games if self.games else 0.0

    @property
    def mean_steps(self) -> float:
        """Actions per game (all seats, defences and choices included), on average."""
        return self.total_steps / self.games if self.games else 0.0

    def as_json(self) -> dict[str, Any]:
        """The summary as plain JSON data."""
        return {
            "game": self.game,
            "mode": self.mode,
            "seats": self.seats,
            "bots": list(self.bots),
            "rotate": self.rotate,
            "games": self.games,
            "seeds": [self.first_seed, self.first_seed + self.games - 1],
            "win_rate_by_seat": [round(self.seat_win_rate(s), 6) for s in range(self.seats)],
            "win_rate_by_bot": {k: round(v, 6) for k, v in self.bot_win_rates().items()},
            "mean_turns": round(self.mean_turns, 3),
            "mean_steps": round(self.mean_steps, 3),
            "end_reasons": dict(sorted(self.end_reasons.items())),
            "cards_played": dict(sorted(self.cards_played.items())),
        }


def summarise(
    game: Game[Any, Any, Any],
    config: TableConfig,
    bots: Sequence[Bot],
    first_seed: int,
    games: int,
    *,
    rotate: bool = False,
    progress: bool = False,
) -> SimulationSummary:
    """Play ``games`` tables with seeds ``first_seed`` upwards and sum them up.

    With ``rotate``, game ``i`` seats ``bots[(seat - i) % seats]`` at each seat.
    """
    summary = SimulationSummary(
        game=game.info.name,
        mode=config.mode,
        seats=config.seats,
        bots=tuple(bot.name for bot in bots),
        first_seed=first_seed,
        rotate=rotate,
        seat_wins=[0.0] * config.seats,
    )
    seats = config.seats
    for index in tqdm(range(games), file=sys.stderr, disable=not progress, unit="game", leave=False):
        shift = index if rotate else 0
        line_up = [bots[(seat - shift) % seats] for seat in range(seats)]
        summary.add(play_table(game, config, first_seed + index, line_up))
    return summary


def _percent(rate: float) -> str:
    return f"{100 * rate:5.1f}%"


def format_summary(summary: SimulationSummary) -> str:
    """The plain-text report printed by the CLI."""
    last_seed = summary.first_seed + summary.games - 1
    lines = [
        f"{summary.game} · {summary.mode} · {summary.seats} seats · {summary.games} games"
        f" · seeds {summary.first_seed}..{last_seed}",
        "",
        "win rate by seat",
    ]
    width = max(len(name) for name in (*summary.bots, "rotating" if summary.rotate else ""))
    for seat, name in enumerate(summary.bots):
        name = "rotating" if summary.rotate else name
        lines.append(
            f"  seat {seat}  {name:<{width}}  {_percent(summary.seat_win_rate(seat))}"
            f"  ({summary.seat_wins[seat]:g} win{'' if summary.seat_wins[seat] == 1 else 's'})"
        )
    lines += ["", "win rate by bot (share of its seats that won)"]
    for name, rate in summary.bot_win_rates().items():
        seats = summary.bots.count(name)
        lines.append(f"  {name:<{width}}  {_percent(rate)}  ({seats} seat{'s' if seats > 1 else ''})")
    lines += [
        "",
        f"mean turns {summary.mean_turns:.1f} · mean steps {summary.mean_steps:.1f}",
        "",
        "game-end reasons",
    ]
    for reason, count in sorted(summary.end_reasons.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"  {reason:<12} {_percent(count / summary.games)}  ({count})")
    lines += ["", "cards played (total, per game)"]
    if not summary.cards_played:
        lines.append("  none")
    card_width = max((len(name) for name in summary.cards_played), default=0)
    for card, count in sorted(summary.cards_played.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"  {card:<{card_width}}  {count:6d}  {count / summary.games:6.2f}")
    return "\n".join(lines)


def _config(game: Game[Any, Any, Any], args: argparse.Namespace) -> TableConfig:
    mode = args.mode or STANDARD_MODES.get(game.info.name, game.info.modes[0].name)
    variants = tuple(name for name in args.variants.split(",") if name)
    config: TableConfig = game.config_model(mode=mode, seats=args.seats, variants=variants)
    # new_table validates what the model can't (mode names, seat ranges, variants).
    game.new_table(config, args.seed)
    return config


def run(args: argparse.Namespace) -> int:
    """Run the simulation described by ``args``; returns the exit code."""
    try:
        game = get_game(args.game)
    except UnknownGame:
        known = ", ".join(all_games()) or "none"
        print(f"unknown game {args.game!r} (installed: {known})", file=sys.stderr)
        return 2
    names = [name.strip() for name in args.bots.split(",") if name.strip()]
    if len(names) == 1:
        names *= args.seats
    if len(names) != args.seats:
        print(f"--bots names {len(names)} bots for {args.seats} seats", file=sys.stderr)
        return 2
    if args.games < 1:
        print("--games must be at least 1", file=sys.stderr)
        return 2
    try:
        bots = [get_bot(game.info.name, name) for name in names]
        config = _config(game, args)
    except UnknownBot as error:
        print(error.args[0], file=sys.stderr)
        return 2
    except (EngineError, ValidationError) as error:
        print(f"invalid table: {error}", file=sys.stderr)
        return 2
    summary = summarise(
        game, config, bots, args.seed, args.games, rotate=args.rotate, progress=not args.quiet
    )
    if args.json:
        print(json.dumps(summary.as_json(), indent=2))
    else:
        print(format_summary(summary))
    return 0
