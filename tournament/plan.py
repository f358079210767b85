"""Tournament plans: which entrants sit where, at which table, on which board.

A plan is a list of :class:`TablePlan`, one per table to play. It is pure and
deterministic in its arguments (the ``seed`` only breaks ties), so the gateway
can recompute it at any time; a table's ``index`` is its idempotency key.

Words used here:

* The **field** is every player scheduled: the entrants, plus the baselines
  (house bots such as ``bot:greedy``) in every format except ``gauntlet``,
  where baselines are the fixed opponents instead. Baselines in the field are
  scheduled, ranked and rated like any entrant: they anchor the scale.
* A **board** is one deal (one table seed). In every format round ``r`` is
  played on board ``r``: all the tables of a round share their deal, which
  makes even a round robin partly duplicate.
* A **group** is the set of players at one table (in gauntlet: the entrants of
  one table, to which baselines are added).

Formats:

* ``duplicate``: every board is played in several **rotations**, the same
  deal with the players in other seats, so a seat's luck is compared among
  those who held it. Two forms (:data:`DuplicateForm`, chosen by
  :func:`duplicate_form`):

  - ``disjoint`` (the default when the field holds at least two groups): on
    every board the field is split into groups of ``seats`` and each group
    plays the board once, its table being one of the board's rotations, as
    pairs do in duplicate bridge. No player ever plays a board twice, so
    nothing it remembers of one table tells it a deal it still has to play.
    A player's seat is where it has sat least, so seat positions even out
    over the boards (chosen board by board: a player's tables per seat
    position differ by up to 2 in the cases the tests pin). ``rotation`` is then the table's place among the board's
    tables (``0..groups-1``).
  - ``rotated``: each group plays the board once per rotation
    ``0..seats-1``, so every player holds every seat of every board it plays
    on the same deal (see :func:`rotated_seat`: at 2, 4 or 8 seats the
    rotations are chosen so that any two players of the table also trade
    seats with each other). It needs only one group, but a player sees the
    same deal ``seats`` times: a player that remembers earlier tables plays
    the later rotations knowing every hand.

* ``gauntlet``: like duplicate (in either form, groups being the entrants
  of one table), but every table seats ``min(len(baselines), seats - 1)``
  baselines (house bots) and the rest of its seats are entrants (one entrant
  per table when there are baselines enough). When there are more baselines
  than a table holds, each table takes those its entrants have met least.
* ``round_robin``: one table per group per round, no rotations; each group's
  seating is chosen so that every player's seat positions stay as even as
  possible over the rounds.
* ``swiss``: round 0 like a round robin; every later round is planned from the
  results so far by :func:`plan_swiss_round`, grouping players of similar
  standing while keeping repeat meetings to a minimum.

Groups rotate from board to board so that every pair of players meets as
evenly as the numbers allow: each board's grouping is chosen (seeded restarts,
then swaps until no swap helps) to minimise how often its pairs have already
met, and the whole schedule is then evened out by a seeded annealing that
lowers the sum over pairs of (boards met)², swapping players between groups
of a board and trading byes between boards. It is a search, not a proof: the
spread between the most and the least frequent pair is 0 to 2 boards in most
small cases (the tests pin several), but up to 5 in a few awkward ones (10
players at 5 seats over 9 boards); :func:`schedule_balance` measures it and
the report prints it.

**Byes.** When the field (in gauntlet: the entrants) is not a multiple of the
group size, the surplus players sit the board (round) out. Byes go to those
with the fewest byes so far, so over the tournament they differ by at most one
between any two players. This was chosen over filling seats with extra house
bots: a filler would either sit twice at a table under one name or be a new
player with few games, and both blur the ratings. Standings therefore rank by
points per game (see :mod:`tournament.standings`).

Within one ``(board, rotation)`` slice of the plan each player sits at most one
table, and indices run board by board (in the rotated form rotation by rotation);
:mod:`tournament.pacing` decides which tables may start, so that no player ever
holds two live tables of one board.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from tournament.results import TableResult

__all__ = [
    "DUPLICATE_FORMS",
    "FORMATS",
    "MAX_PLAN_TABLES",
    "Balance",
    "DuplicateForm",
    "Format",
    "PlanError",
    "TablePlan",
    "duplicate_form",
    "field_of",
    "plan_swiss_round",
    "plan_tournament",
    "rotated_seat",
    "schedule_balance",
]

Format = Literal["duplicate", "round_robin", "swiss", "gauntlet"]
FORMATS: tuple[str, ...] = get_args(Format)
"""The format names, in the order of :data:`Format`."""

DuplicateForm = Literal["disjoint", "rotated"]
DUPLICATE_FORMS: tuple[str, ...] = get_args(DuplicateForm)
"""How a board's rotations are shared out (see the module docstring)."""

MAX_PLAN_TABLES = 20_000
"""The most tables one plan may hold; more is refused as a likely mistake."""

_RESTARTS = 8
"""Seeded random groupings tried per round before the swap search keeps the best."""
_BALANCE_PASSES = 20
"""The most passes of the whole-schedule swap descent (it usually settles in a few)."""
_ANNEAL_STEPS = 20_000
"""The most proposals of the whole-schedule annealing (2000 per pair of groups or round with byes)."""


class PlanError(ValueError):
    """The tournament cannot be planned as asked; ``message`` says why, for the caller."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class TablePlan:
    """One table to play.

    ``index`` is 0-based, unique and stable within the tournament (the
    scheduler's idempotency key); ``round`` is 0-based (for swiss a round may
    start only when the one before is complete; otherwise a pacing hint);
    ``board`` names the deal (the table seed is the board's seed);
    ``rotation`` is ``0..seats-1`` in the rotated form of duplicate and
    gauntlet, the table's place among its board's tables in the disjoint
    form, else 0;
    ``seating`` is the player id per seat.
    """

    index: int
    round: int
    board: int
    rotation: int
    seating: tuple[str, ...]


@dataclass(frozen=True)
class Balance:
    """How even a schedule is, for the report.

    ``pair_meetings_min``/``max`` count the boards on which a pair shares a
    table, over the pairs of players that appear in the plan (see
    :func:`schedule_balance`); ``seat_counts`` gives per player the
    tables played in each seat position; ``games`` the tables played per
    player (byes show as fewer games).
    """

    pair_meetings_min: int
    pair_meetings_max: int
    seat_counts: dict[str, tuple[int, ...]]
    games: dict[str, int] = field(default_factory=dict)

    def text(self) -> str:
        """One paragraph for people: pair meetings, seat positions, games per player."""
        if not self.seat_counts:
            return "No tables planned."
        pair = (f"every pair of players meets on {self.pair_meetings_min} boards"
                if self.pair_meetings_min == self.pair_meetings_max else
                f"pairs of players meet on between {self.pair_meetings_min} and "
                f"{self.pair_meetings_max} boards")
        spreads = [max(counts) - min(counts) for counts in self.seat_counts.values()]
        seats = ("every player holds every seat position equally often" if max(spreads) == 0 else
                 f"a player's tables per seat position differ by at most {max(spreads)}")
        games = sorted(self.games.values()) if self.games else []
        played = ("" if not games else
                  f"; each player plays {games[0]} tables" if games[0] == games[-1] else
                  f"; players play between {games[0]} and {games[-1]} tables (byes)")
        return f"{pair.capitalize()}; {seats}{played}."


def field_of(format: Format, entrants: Sequence[str], baselines: Sequence[str]) -> list[str]:
    """The players scheduled and ranked: entrants plus baselines, except in gauntlet."""
    return list(entrants) if format == "gauntlet" else [*entrants, *baselines]


def plan_tournament(
    *,
    format: Format,
    entrants: Sequence[str],
    baselines: Sequence[str],
    seats: int,
    boards: int,
    rounds: int | None,
    seed: int,
    form: DuplicateForm | None = None,
) -> list[TablePlan]:
    """The whole plan for duplicate, round robin and gauntlet; round 0 for swiss.

    ``boards`` is the number of rounds (one board per round in every format);
    ``rounds``, when given, must equal it (it exists for callers that speak of
    rounds). ``form`` is the duplicate form of ``duplicate`` and ``gauntlet``
    (``None``: the default, see :func:`duplicate_form`). Deterministic in its
    arguments.

    :raises PlanError: on input that cannot be planned: an unknown format,
        ``seats`` < 2, ``boards`` < 1, ``rounds`` differing from ``boards``, a
        player named twice, fewer players than a table needs, a gauntlet
        without baselines or with a baseline that is no house bot, a form for
        a format without rotations or a ``disjoint`` form on a field of one
        group, or more than :data:`MAX_PLAN_TABLES` tables.
    """
    chosen = duplicate_form(format=format, entrants=entrants, baselines=baselines, seats=seats,
                            form=form)
    _check(format=format, entrants=entrants, baselines=baselines, seats=seats, boards=boards,
           form=chosen)
    if rounds is not None and rounds != boards:
        raise PlanError(f"one board is played per round: rounds ({rounds}) must equal "
                        f"boards ({boards}) or be left out")
    rng = random.Random(f"plan:{format}:{seed}")
    if format == "swiss":
        return plan_swiss_round(entrants=entrants, baselines=baselines, seats=seats, round=0,
                                board=0, first_index=0, results=(), seed=seed)
    if format == "round_robin":
        return _plan_round_robin(field_of(format, entrants, baselines), seats, boards, rng)
    players, bots = (([*entrants, *baselines], []) if format == "duplicate"
                     else (list(entrants), list(baselines)))
    if chosen == "disjoint":
        return _plan_disjoint(players, bots, seats, boards, rng)
    return _plan_rotated(players, bots, seats, boards, rng)


def _group_size(format: str, baselines: Sequence[str], seats: int) -> int:
    """Players of the field per table: all seats but a gauntlet's baselines."""
    return seats - min(len(baselines), seats - 1) if format == "gauntlet" else seats


def duplicate_form(*, format: str, entrants: Sequence[str], baselines: Sequence[str],
                   seats: int, form: DuplicateForm | None) -> DuplicateForm | None:
    """The duplicate form a plan uses: ``None`` for a format without rotations.

    Left out (``form`` is ``None``), it is ``disjoint`` when the field (in
    gauntlet: the entrants) fills at least two tables, else ``rotated``.

    :raises PlanError: if ``form`` is given for round robin or swiss, or is
        ``disjoint`` on a field too small for two tables.
    """
    if format not in ("duplicate", "gauntlet"):
        if form is not None:
            raise PlanError(f"duplicate_form applies to duplicate and gauntlet, not {format}")
        return None
    if seats < 2:
        return form or "rotated"  # refused by _check
    size = _group_size(format, baselines, seats)
    players = len(entrants) + (len(baselines) if format == "duplicate" else 0)
    groups = players // size
    if form == "disjoint" and groups < 2:
        raise PlanError(
            f"the disjoint form needs the field to fill two tables at once (at least "
            f"{2 * size} {'entrants' if format == 'gauntlet' else 'entrants and baselines'} at "
            f"{seats} seats), got {players}; add players or choose the rotated form")
    return form or ("disjoint" if groups >= 2 else "rotated")


def _check(*, format: str, entrants: Sequence[str], baselines: Sequence[str], seats: int,
           boards: int, form: DuplicateForm | None = None) -> None:
    """Raise :class:`PlanError` for input no format can plan (see :func:`plan_tournament`)."""
    if format not in FORMATS:
        raise PlanError(f"unknown format {format!r} (known: {', '.join(FORMATS)})")
    if seats < 2:
        raise PlanError(f"a tournament table needs at least 2 seats, got {seats}")
    if boards < 1:
        raise PlanError(f"a tournament needs at least one board, got {boards}")
    everyone = [*entrants, *baselines]
    repeated = sorted(name for name, count in Counter(everyone).items() if count > 1)
    if repeated:
        raise PlanError(f"a player may be named only once: {', '.join(repeated)}")
    if not entrants:
        raise PlanError("a tournament needs at least one entrant")
    if format == "gauntlet":
        if not baselines:
            raise PlanError("a gauntlet needs at least one baseline to play against")
        agents = [name for name in baselines if not name.startswith("bot:")]
        if agents:  # a baseline sits at every table of a board: only a bot may
            raise PlanError(f"a gauntlet's baselines are house bots (bot:...), not "
                            f"{', '.join(agents)}")
        per_table = _group_size(format, baselines, seats)
        if len(entrants) < per_table:
            raise PlanError(f"{seats}-seat gauntlet tables with {len(baselines)} baselines need "
                            f"{per_table} entrants, got {len(entrants)}")
        groups = len(entrants) // per_table
    else:
        if len(everyone) < seats:
            raise PlanError(f"{seats}-seat tables need at least {seats} players (entrants and "
                            f"baselines), got {len(everyone)}")
        groups = len(everyone) // seats
    tables = boards * groups * (seats if form == "rotated" else 1)
    if tables > MAX_PLAN_TABLES:
        raise PlanError(f"the plan would hold {tables} tables, more than {MAX_PLAN_TABLES}")


def _pair(a: str, b: str) -> tuple[str, str]:
    """The key of an unordered pair of players."""
    return (a, b) if a < b else (b, a)


PairWeight = Callable[[str, str], float]
"""What it costs to seat two players at one table this round."""


def _improve(groups: list[list[str]], weight: PairWeight) -> None:
    """Swap players between groups while a swap lowers the summed pair weights (in place)."""
    improved = True
    while improved:
        improved = False
        for first, second in itertools.combinations(range(len(groups)), 2):
            a, b = groups[first], groups[second]
            for i, j in itertools.product(range(len(a)), range(len(b))):
                x, y = a[i], b[j]
                delta = (sum(weight(y, z) - weight(x, z) for z in a if z != x)
                         + sum(weight(x, w) - weight(y, w) for w in b if w != y))
                if delta < 0:
                    a[i], b[j] = y, x
                    improved = True


def _cost(groups: Sequence[Sequence[str]], weight: PairWeight) -> float:
    """The summed pair weights of a grouping."""
    return sum(weight(a, b) for group in groups for a, b in itertools.combinations(group, 2))


def _balance_rounds(rounds: list[list[list[str]]], resting: list[list[str]],
                    met: Counter[tuple[str, str]], rng: random.Random) -> None:
    """Even out a whole schedule: move players between groups to lower the sum over
    pairs of (boards met)² (in place; ``met`` is kept up to date).

    Grouping round by round is myopic (a pair can be kept apart board after
    board). Two moves: swap two players of different groups of one round, or
    trade byes (``x`` plays round ``r`` and rests in ``s``, ``y`` the other way
    round; after the move ``x`` rests in ``r`` and takes ``y``'s place in ``s``,
    so bye counts stay as they were). This runs a swap descent, then a seeded
    simulated annealing over both moves (:data:`_ANNEAL_STEPS` proposals at
    most, keeping the best schedule seen), then the descent again.
    """
    slots = [(number, first, second) for number, groups in enumerate(rounds)
             for first, second in itertools.combinations(range(len(groups)), 2)]
    with_byes = [number for number, rested in enumerate(resting) if rested]
    if not slots and len(with_byes) < 2:
        return

    def moved_cost(x: str, y: str, group: Sequence[str]) -> int:
        # Change of the squared counts when ``x`` leaves ``group`` and ``y`` takes its place.
        total = 0
        for z in group:
            if z != x:
                gone, came = met[_pair(x, z)], met[_pair(y, z)]
                total += 2 * (came - gone) + 2
        return total

    def swap(a: list[str], i: int, b: list[str], j: int) -> None:
        x, y = a[i], b[j]
        for z in a:
            if z != x:
                met[_pair(x, z)] -= 1
                met[_pair(y, z)] += 1
        for w in b:
            if w != y:
                met[_pair(y, w)] -= 1
                met[_pair(x, w)] += 1
        a[i], b[j] = y, x

    def replace(group: list[str], x: str, y: str) -> None:
        # ``y`` (from outside the round's groups) takes ``x``'s place in ``group``.
        for z in group:
            if z != x:
                met[_pair(x, z)] -= 1
                met[_pair(y, z)] += 1
        group[group.index(x)] = y

    def descend() -> None:
        for _ in range(_BALANCE_PASSES):
            improved = False
            for number, first, second in slots:
                a, b = rounds[number][first], rounds[number][second]
                for i, j in itertools.product(range(len(a)), range(len(b))):
                    if moved_cost(a[i], b[j], a) + moved_cost(b[j], a[i], b) < 0:
                        swap(a, i, b, j)
                        improved = True
            if not improved:
                return

    descend()
    steps = min(_ANNEAL_STEPS, 2000 * (len(slots) + len(with_byes)))
    cost = best = 0
    best_rounds = [[list(group) for group in groups] for groups in rounds]
    best_resting = [list(rested) for rested in resting]
    for step in range(steps):
        temperature = 2.0 * (0.02 ** (step / steps))
        if slots and (len(with_byes) < 2 or rng.random() < 0.5):
            number, first, second = slots[rng.randrange(len(slots))]
            a, b = rounds[number][first], rounds[number][second]
            i, j = rng.randrange(len(a)), rng.randrange(len(b))
            change = moved_cost(a[i], b[j], a) + moved_cost(b[j], a[i], b)
            if change > 0 and rng.random() >= math.exp(-change / temperature):
                continue
            swap(a, i, b, j)
        else:
            r, t = rng.sample(with_byes, 2)
            groups_r = {player: group for group in rounds[r] for player in group}
            groups_t = {player: group for group in rounds[t] for player in group}
            xs = [x for x in resting[t] if x in groups_r]
            ys = [y for y in resting[r] if y in groups_t]
            if not xs or not ys:
                continue
            x, y = rng.choice(xs), rng.choice(ys)
            change = moved_cost(x, y, groups_r[x])
            replace(groups_r[x], x, y)
            change += moved_cost(y, x, groups_t[y])
            replace(groups_t[y], y, x)
            if change > 0 and rng.random() >= math.exp(-change / temperature):
                replace(groups_t[y], x, y)
                replace(groups_r[x], y, x)
                continue
            resting[r][resting[r].index(y)] = x
            resting[t][resting[t].index(x)] = y
        cost += change
        if cost < best:
            best = cost
            best_rounds = [[list(group) for group in groups] for groups in rounds]
            best_resting = [list(rested) for rested in resting]
    if steps:
        for groups, kept in zip(rounds, best_rounds, strict=True):
            for group, members in zip(groups, kept, strict=True):
                group[:] = members
        for rested, kept_resting in zip(resting, best_resting, strict=True):
            rested[:] = kept_resting
        met.clear()
        for groups in rounds:
            for group in groups:
                for x, y in itertools.combinations(group, 2):
                    met[_pair(x, y)] += 1
    descend()


def _resting(players: Sequence[str], size: int, byes: Counter[str], rng: random.Random,
             *, order: dict[str, float] | None = None) -> list[str]:
    """Who sits this round out: the surplus over whole groups, fewest byes first.

    ``order`` breaks ties among equal bye counts (lower rests first); by
    default it is a fresh seeded random order.
    """
    surplus = len(players) % size
    if surplus == 0:
        return []
    keys = order or {player: rng.random() for player in players}
    return sorted(players, key=lambda player: (byes[player], keys[player]))[:surplus]


def _grouping(players: Sequence[str], size: int, met: Counter[tuple[str, str]],
              byes: Counter[str], rng: random.Random) -> list[list[str]]:
    """Groups of ``size`` whose pairs have met least; the players left over rest.

    Each seeded restart draws who rests (among those with the fewest byes, see
    :func:`_resting`) and a starting grouping, then swaps players until no
    swap helps; the cheapest result wins and its resting players' byes count.
    """
    def weight(a: str, b: str) -> float:
        return met[_pair(a, b)] ** 2

    best: list[list[str]] | None = None
    best_resting: list[str] = []
    best_cost = 0.0
    for _ in range(_RESTARTS):
        resting = _resting(players, size, byes, rng)
        shuffled = [player for player in players if player not in resting]
        rng.shuffle(shuffled)
        groups = [shuffled[start:start + size] for start in range(0, len(shuffled), size)]
        _improve(groups, weight)
        total = _cost(groups, weight)
        if best is None or total < best_cost:
            best, best_resting, best_cost = groups, resting, total
        if best_cost == 0:
            break
    assert best is not None
    byes.update(best_resting)
    return best


def _schedule_groups(players: list[str], baselines: list[str], size: int, at_table: int,
                     boards: int, rng: random.Random) -> list[list[list[str]]]:
    """Per board, the groups of ``size`` players, each with ``at_table`` baselines added.

    With more baselines than ``at_table``, a group takes those its players
    have met least. Groups are built board by board, then evened out over the
    whole schedule by :func:`_balance_rounds`.
    """
    met: Counter[tuple[str, str]] = Counter()
    byes: Counter[str] = Counter()
    rounds: list[list[list[str]]] = []
    resting: list[list[str]] = []
    for _ in range(boards):
        groups = _grouping(players, size, met, byes, rng)
        for group in groups:
            for a, b in itertools.combinations(group, 2):
                met[_pair(a, b)] += 1
        rounds.append(groups)
        seated = {player for group in groups for player in group}
        resting.append([player for player in players if player not in seated])
    _balance_rounds(rounds, resting, met, rng)
    if at_table:
        for groups in rounds:
            for group in groups:
                chosen = sorted(baselines, key=lambda bot: (
                    sum(met[_pair(bot, player)] for player in group), rng.random()))[:at_table]
                for bot in chosen:
                    for player in group:
                        met[_pair(bot, player)] += 1
                group.extend(chosen)
    return rounds


def rotated_seat(position: int, rotation: int, seats: int) -> int:
    """The seat of the player at ``position`` of its table's base order in ``rotation``.

    At a power-of-two number of seats this is ``position XOR rotation``: the
    rotations then form a group in which every rotation is its own inverse,
    so for any two players ``a`` and ``b`` there are two rotations where they
    hold each other's seats on the same deal (and the same holds for the
    other pairs of the table at once). That is duplicate's comparison, same
    cards and same seat, for every pair; it also changes who acts after whom
    from rotation to rotation, which cyclic shifts keep fixed over a board.
    Elsewhere no such set of rotations exists, and rotation ``k`` moves every
    player ``k`` seats on (cyclic).
    Either way each player holds each seat exactly once over the rotations.
    """
    if seats & (seats - 1) == 0:
        return position ^ rotation
    return (position + rotation) % seats


def _plan_rotated(players: list[str], baselines: list[str], seats: int, boards: int,
                  rng: random.Random) -> list[TablePlan]:
    """Duplicate (no ``baselines``) and gauntlet: every group plays its board in every rotation."""
    at_table = min(len(baselines), seats - 1)
    rounds = _schedule_groups(players, baselines, seats - at_table, at_table, boards, rng)
    plans: list[TablePlan] = []
    for board, groups in enumerate(rounds):
        tables = []
        for group in groups:
            table = list(group)
            rng.shuffle(table)
            tables.append(table)
        for rotation in range(seats):
            for table in tables:
                seating = [""] * seats
                for position, player in enumerate(table):
                    seating[rotated_seat(position, rotation, seats)] = player
                plans.append(TablePlan(index=len(plans), round=board, board=board,
                                       rotation=rotation, seating=tuple(seating)))
    return plans


def _plan_disjoint(players: list[str], baselines: list[str], seats: int, boards: int,
                   rng: random.Random) -> list[TablePlan]:
    """Duplicate's and gauntlet's disjoint form: each group of a board plays it once.

    The board's tables are its rotations, each held by other players: a seat
    of the deal is compared among the players of different groups who held
    it. Seats are given where each player has sat least (baselines too).
    """
    at_table = min(len(baselines), seats - 1)
    rounds = _schedule_groups(players, baselines, seats - at_table, at_table, boards, rng)
    seat_counts = {player: [0] * seats for player in [*players, *baselines]}
    plans: list[TablePlan] = []
    for board, groups in enumerate(rounds):
        for rotation, group in enumerate(groups):
            plans.append(TablePlan(index=len(plans), round=board, board=board, rotation=rotation,
                                   seating=_balanced_seating(group, seat_counts)))
    return plans


def _balanced_seating(group: Sequence[str], seat_counts: dict[str, list[int]]) -> tuple[str, ...]:
    """The order of ``group`` that puts each player where it has sat least.

    Every permutation is tried up to 6 seats; beyond that, the cyclic shifts.
    """
    seats = len(group)
    orders: Sequence[Sequence[str]] = (
        list(itertools.permutations(group)) if seats <= 6 else
        [[group[(seat + shift) % seats] for seat in range(seats)] for shift in range(seats)])

    def load(order: Sequence[str]) -> tuple[int, int]:
        counts = [seat_counts[player][seat] for seat, player in enumerate(order)]
        return max(counts), sum(counts)

    best = min(orders, key=load)
    for seat, player in enumerate(best):
        seat_counts[player][seat] += 1
    return tuple(best)


def _plan_round_robin(players: list[str], seats: int, boards: int,
                      rng: random.Random) -> list[TablePlan]:
    """Round robin: one table per group per round, seat positions balanced over rounds."""
    seat_counts = {player: [0] * seats for player in players}
    plans: list[TablePlan] = []
    for board, groups in enumerate(_schedule_groups(players, [], seats, 0, boards, rng)):
        for group in groups:
            plans.append(TablePlan(index=len(plans), round=board, board=board, rotation=0,
                                   seating=_balanced_seating(group, seat_counts)))
    return plans


def plan_swiss_round(
    *,
    entrants: Sequence[str],
    seats: int,
    round: int,
    board: int,
    first_index: int,
    results: Sequence[TableResult],
    seed: int,
    baselines: Sequence[str] = (),
) -> list[TablePlan]:
    """The next swiss round, from the results of the rounds before.

    Players are ordered by standing (points per game, see
    :func:`tournament.standings.standings`; seeded order on ties) and grouped
    so that repeat meetings come first to be avoided: one repeated pair costs
    more than any mix of standings, so among groupings with the fewest repeats
    (as far as the swap search finds) the one keeping similar standings
    together wins. Byes go to those with the fewest byes so far, lowest
    standing first. Seats are assigned where each player has sat least.

    ``baselines`` (an addition to the spec's signature, default empty) are
    house bots playing as part of the field, as in :func:`plan_tournament`.
    Tables are numbered from ``first_index``. Deterministic.

    :raises PlanError: on input that cannot be planned (see :func:`plan_tournament`).
    """
    from tournament.standings import standings  # standings imports nothing from here

    _check(format="swiss", entrants=entrants, baselines=baselines, seats=seats, boards=1)
    players = [*entrants, *baselines]
    rng = random.Random(f"swiss:{seed}:{round}")
    tiebreak = {player: rng.random() for player in players}
    rows = {row.entrant: row for row in standings(results, players)}
    order = sorted(players, key=lambda player: (
        -rows[player].points_per_game, -rows[player].points, tiebreak[player]))
    standing = {player: position for position, player in enumerate(order)}
    met: Counter[tuple[str, str]] = Counter()
    seat_counts = {player: [0] * seats for player in players}
    played: Counter[str] = Counter()
    for result in results:
        for a, b in itertools.combinations(result.seating, 2):
            met[_pair(a, b)] += 1
        for seat, player in enumerate(result.seating):
            played[player] += 1
            if player in seat_counts and seat < seats:
                seat_counts[player][seat] += 1
    rounds_before = len({result.round for result in results})
    byes = Counter({player: rounds_before - played[player] for player in players})
    lowest_first = {player: -float(standing[player]) for player in players}
    resting = set(_resting(players, seats, byes, rng, order=lowest_first))
    playing = [player for player in order if player not in resting]
    repeat = len(players) * seats * seats  # more than any swap can change the standings term

    def weight(a: str, b: str) -> float:
        return repeat * met[_pair(a, b)] ** 2 + abs(standing[a] - standing[b])

    groups: list[list[str]] = []
    best_cost = 0.0
    for attempt in range(_RESTARTS):
        start = list(playing)
        if attempt:
            rng.shuffle(start)
        candidate = [start[first:first + seats] for first in range(0, len(start), seats)]
        _improve(candidate, weight)
        total = _cost(candidate, weight)
        if not groups or total < best_cost:
            groups, best_cost = candidate, total
        if not any(met[_pair(a, b)] for group in groups for a, b in itertools.combinations(group, 2)):
            break  # no repeats left: nothing a restart could improve enough to matter
    groups.sort(key=lambda group: min(standing[player] for player in group))
    return [TablePlan(index=first_index + number, round=round, board=board, rotation=0,
                      seating=_balanced_seating(group, seat_counts))
            for number, group in enumerate(groups)]


def schedule_balance(plans: Sequence[TablePlan], seats: int, *,
                     baselines: Sequence[str] = ()) -> Balance:
    """Measure a plan: pair meetings, tables per seat position and tables per player.

    A pair *meets* once per board on which it shares a table (the rotations of
    one board are one meeting). Every pair of players in the plan counts,
    except for a gauntlet: pass its ``baselines`` (an addition to the spec's
    signature, default empty) and only entrant-baseline pairs count, and
    ``games`` lists entrants only. In the other formats baselines are ordinary
    players of the field: pass nothing.
    """
    bots = set(baselines)
    players = sorted({player for plan in plans for player in plan.seating})
    boards_shared: dict[tuple[str, str], set[int]] = {}
    seat_counts = {player: [0] * seats for player in players}
    games: Counter[str] = Counter()
    for plan in plans:
        for a, b in itertools.combinations(plan.seating, 2):
            boards_shared.setdefault(_pair(a, b), set()).add(plan.board)
        for seat, player in enumerate(plan.seating):
            seat_counts[player][seat] += 1
            games[player] += 1
    meetings = [len(boards_shared.get((a, b), ()))
                for a, b in itertools.combinations(players, 2)
                if not bots or (a in bots) != (b in bots)] or [0]
    return Balance(
        pair_meetings_min=min(meetings),
        pair_meetings_max=max(meetings),
        seat_counts={player: tuple(counts) for player, counts in seat_counts.items()},
        games={player: games[player] for player in players if player not in bots},
    )
