"""Market Fortune house bots: ``greedy``, and the playout probe for the simulator.

``greedy`` plays from its seat's view only (:mod:`engine.bots`). Its plan:

* **Hand value.** A hand is judged by its best disjoint Stock + Return pairs
  (as many as the seat still needs investments), plus a little for loose high
  cards and for cards that would upgrade an investment (5.2). Every discard,
  gift and draw keeps the hand whose value is highest.
* **Risk** the best pair when it is worth enough for the 25M goal: early on a
  pair near the average still needed; for the 4th investment only a pair whose
  count (8.1, with marks, greens and yellows) reaches 25M. In Family any pair
  will do (8.3).
* **Optimise** an investment when a hand card raises it by 2M or more, and in
  the victory window whenever it lifts a short count.
* **Build** from a discard pile when its top card improves the hand, else from
  the deck of the type the hand lacks; **Dominate** when a red in hand is worth
  playing now, or now and then to stock up on Strategies.
* **Reds** are scored by the situation (Market Crash and Correction against
  seats with investments, Regulatory Block against a seat about to win, ...)
  and the best one is played if it is worth it.
* **Blues** answer attacks that would hurt, keeping the reusable or punishing
  blues first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine.bots import Bot
from engine.chance import draw_below
from engine.core import Action, Event, Game, Seat, View
from engine.market_fortune import cards
from engine.market_fortune.actions import (
    Build,
    Declare,
    Decline,
    Defend,
    Discard,
    Dominate,
    Draw,
    EndTurn,
    Form,
    Give,
    Mark,
    Optimise,
    Play,
    ReturnInvestment,
    Risk,
    Take,
)
from engine.market_fortune.scoring import count
from engine.market_fortune.state import Investment, SeatState, evolve
from engine.market_fortune.view import FACE_DOWN, MarketFortuneView
from engine.simulation import PlayoutProbe

__all__ = ["BOTS", "GREEDY", "PROBE", "GreedyBot", "played_card", "starts_turn"]

# -- the playout probe (engine.simulation) -------------------------------------


def starts_turn(event: Event) -> bool:
    """A public ``turn`` event, or the opening of a Championship game (3.1, 9.3)."""
    return event.kind in ("turn", "game_start")


def played_card(event: Event) -> str | None:
    """The Strategy name a public ``play`` or ``defend`` event names (6.2, 7.2).

    Events name the kind (``strategy`` for a red, ``blue`` for a defence); a
    ``card`` id is read too, for logs recorded before ids left the events.
    """
    if event.kind not in ("play", "defend"):
        return None
    card = event.data.get("card")
    if isinstance(card, str):
        return cards.kind_of(card).name
    key = event.data.get("strategy", event.data.get("blue"))
    return cards.strategy(key).name if isinstance(key, str) else None


PROBE = PlayoutProbe(is_turn=starts_turn, card_played=played_card, opening_turns=1)
"""The deal starts the opener's first turn without an event, hence one opening turn."""

# -- hand evaluation ------------------------------------------------------------

LOOSE_CARD_WEIGHT = 0.3
"""How much a card that is in no pair still counts (it may find a partner)."""
SPARE_PAIR_WEIGHT = 0.5
"""How much a pair beyond the ones still needed counts (a spare or an upgrade)."""
UPGRADE_WEIGHT = 0.6
"""How much a hand card that would raise an investment by optimisation counts."""

BLUE_PREFERENCE: dict[str, int] = {
    "diamond_hands": 6,  # comes back to hand (12.18)
    "wrong_analyst": 5,  # turns the attack on the attacker (12.20)
    "contingency_plan": 4,  # the attacker loses a card (12.21)
    "stablecoin": 3,  # replaces itself (12.17)
    "experience": 2,
    "risk_control": 1,
}
"""Which blue to spend first when several may answer."""

STRATEGY_WORTH: dict[str, float] = {
    "market_crash": 9, "fortune": 8, "shrewd_move": 7, "wrong_analyst": 7, "diamond_hands": 7,
    "compound_interest": 6, "contingency_plan": 6, "stablecoin": 6, "correction": 5,
    "regulatory_block": 5, "systemic_risk": 5, "experience": 5, "risk_control": 5,
    "dividends": 5, "booming_industry": 4, "diversification_king": 4, "maximum_return": 4,
    "short_investment": 3, "innovation": 3, "buy_more": 3, "liquidity": 3, "lucky_investor": 3,
    "theft": 2, "federal_audit": 2, "inflation": 2, "bailout": 2, "negotiation": 1,
}  # fmt: skip
"""How much greedy wants each Strategy kind when it may take one (Federal Audit)."""


_VALUES: dict[str, int] = {
    card: cards.card_value(card) for card in cards.ALL_CARD_IDS if cards.is_building(card)
}
_INDUSTRIES: dict[str, str] = {
    card: cards.card_industry(card) for card in cards.ALL_CARD_IDS if cards.is_building(card)
}
# Greedy weighs hands many times per decision, so the card facts are looked up
# in tables built once rather than parsed from the id each time.


def _value(card: str) -> int:
    return _VALUES[card]


def _pairs(hand: Iterable[str]) -> tuple[list[int], list[str]]:
    """Best disjoint same-industry pair values (descending) and the cards left loose.

    Within an industry every Stock (and every Return) has its own value, so
    pairing them highest with highest is one well-defined matching.
    """
    stocks: dict[str, list[str]] = {}
    returns: dict[str, list[str]] = {}
    for card in hand:
        side = stocks if card[0] == "S" else returns
        industry = _INDUSTRIES[card]
        same = side.get(industry)
        if same is None:
            side[industry] = [card]
        else:
            same.append(card)
    values: list[int] = []
    loose: list[str] = []
    worth = _VALUES.__getitem__
    for industry, ss in stocks.items():
        rs = returns.pop(industry, None)
        if rs is None:
            loose += ss
            continue
        if len(ss) > 1:
            ss.sort(key=worth, reverse=True)
        if len(rs) > 1:
            rs.sort(key=worth, reverse=True)
        matched = min(len(ss), len(rs))
        values += [worth(s) + worth(r) for s, r in zip(ss, rs, strict=False)]
        loose += ss[matched:] + rs[matched:]
    for rs in returns.values():
        loose += rs
    values.sort(reverse=True)
    return values, loose


def hand_worth(hand: Sequence[str], investments: Sequence[Investment], needed: int) -> float:
    """How promising a building hand is for a seat that still needs ``needed`` investments."""
    values, loose = _pairs(hand)
    needed = max(needed, 1)
    worth = float(sum(values[:needed]))
    worth += SPARE_PAIR_WEIGHT * sum(values[needed:])
    worth += LOOSE_CARD_WEIGHT * sum(_value(card) for card in loose)
    worth += UPGRADE_WEIGHT * _best_upgrade(hand, investments)
    return worth


def _best_upgrade(hand: Sequence[str], investments: Sequence[Investment]) -> int:
    """The largest gain one optimisation (5.2) could make with these cards."""
    best = 0
    for inv in investments:
        if inv.face_up:
            continue
        for card in hand:
            out, partner = (inv.stock, inv.ret) if card[0] == "S" else (inv.ret, inv.stock)
            if inv.innovation is None and _INDUSTRIES[card] != _INDUSTRIES[partner]:
                continue
            best = max(best, _VALUES[card] - _VALUES[out])
    return best


# -- the seat as greedy sees it ---------------------------------------------------


class _Seat:
    """Greedy's working picture of its own seat, built from the view only."""

    def __init__(self, view: MarketFortuneView) -> None:
        self.view = view
        self.hand = view.hand
        self.investments = tuple(
            Investment(
                stock=inv.stock,
                ret=inv.ret,
                innovation=inv.innovation,
                marked=inv.marked,
                face_up=inv.face_up,
            )
            for inv in view.investments
            if inv.stock is not None and inv.ret is not None
        )
        self.me = SeatState(hand=view.hand, strategies=view.strategies, investments=self.investments)
        self.needed = cards.INVESTMENTS_TO_WIN - len(self.investments)
        self.family = view.mode == "family"

    def worth(self, hand: Sequence[str]) -> float:
        """:func:`hand_worth` of ``hand`` for this seat."""
        return hand_worth(hand, self.investments, self.needed)

    def count_with(self, stock: str, ret: str, innovation: str | None = None) -> int:
        """The count (8.1) if this pair became one more investment."""
        extra = Investment(stock=stock, ret=ret, innovation=innovation)
        strategies = tuple(c for c in self.view.strategies if c != innovation)
        seat = SeatState(strategies=strategies, investments=(*self.investments, extra))
        return count(seat).total

    def pair_worth_forming(self, stock: str, ret: str, innovation: str | None) -> bool:
        """Whether investing this pair now moves the seat toward a winning count."""
        if self.family:
            return True
        if self.needed <= 1:
            return self.count_with(stock, ret, innovation) >= cards.VICTORY_VALUE
        have = count(self.me).total
        average_needed = (cards.VICTORY_VALUE - have) / self.needed
        slack = 1.5 if self.needed >= 3 else 0.5
        return _value(stock) + _value(ret) >= min(average_needed - slack, 8)

    def opponents(self) -> list[tuple[int, int]]:
        """``(investments, seat)`` of every other seat."""
        return [(p.investment_count, p.seat) for p in self.view.players if p.seat != self.view.seat]


def _pair_key(action: Risk | Form) -> tuple[int, int, int]:
    """Prefer the highest pair, then one that spends no Innovation."""
    return (_value(action.stock) + _value(action.ret), action.innovation is None, _value(action.stock))


# -- decisions --------------------------------------------------------------------


def _choose_discard(seat: _Seat, options: Sequence[Discard | Give]) -> Action:
    """Give up the card whose loss hurts the hand least."""

    def after(option: Discard | Give) -> float:
        hand = list(seat.hand)
        hand.remove(option.card)
        return seat.worth(hand)

    return max(options, key=lambda option: (after(option), -_value(option.card)))


def _pile_top(view: MarketFortuneView, source: str) -> str | None:
    pile = view.stock_pile if source == "stock_pile" else view.return_pile
    return pile[-1] if pile and pile[-1] != FACE_DOWN else None


def _draw_gain(seat: _Seat, card: str, discard_after: bool) -> float:
    """How much taking ``card`` improves the hand (after the best discard, if any)."""
    hand = [*seat.hand, card]
    if discard_after:
        options = [c for c in seat.hand if c != card]  # the card just taken may not go back (3.2)
        best = max(seat.worth([c for c in hand if c != out]) for out in options) if options else seat.worth(hand)
    else:
        best = seat.worth(hand)
    return best - seat.worth(seat.hand)


def _wanted_deck(seat: _Seat) -> str:
    """The deck whose card the hand lacks: the type with fewer (or weaker) loose cards."""
    _, loose = _pairs(seat.hand)
    loose_stocks = sum(_value(c) for c in loose if c[0] == "S")
    loose_returns = sum(_value(c) for c in loose if c[0] == "R")
    # A loose Return waits for a Stock of its industry, and the other way round.
    return "stock_deck" if loose_returns >= loose_stocks else "return_deck"


def _best_pile(seat: _Seat, options: Sequence[Build | Draw], discard_after: bool) -> Build | Draw | None:
    """A pile top that improves the hand clearly more than an unknown deck card would."""
    best: Build | Draw | None = None
    best_gain = 1.0  # a pile card must beat an unknown deck card by this much
    for option in options:
        top = _pile_top(seat.view, option.source) if option.source.endswith("_pile") else None
        if top is None:
            continue
        gain = _draw_gain(seat, top, discard_after)
        if gain > best_gain:
            best, best_gain = option, gain
    return best


def _choose_source(
    seat: _Seat, options: Sequence[Build | Draw], discard_after: bool
) -> Build | Draw:
    """Take a pile top that clearly helps, else draw from the deck the hand lacks."""
    best = _best_pile(seat, options, discard_after)
    if best is not None:
        return best
    wanted = _wanted_deck(seat)
    decks = [o for o in options if o.source.endswith("_deck")]
    for option in decks:
        if option.source == wanted:
            return option
    return decks[0] if decks else options[0]


def _red_score(seat: _Seat, play: Play, rng_seed: int) -> float:
    """How much playing this red helps now (0 or less: keep it)."""
    key = cards.kind_of(play.card).key
    view = seat.view
    players = {p.seat: p for p in view.players}
    opponents = seat.opponents()
    most = max((n for n, _ in opponents), default=0)
    if key == "shrewd_move":
        return 7
    if key == "fortune":
        pairs = _formable(seat)
        return 9 if any(seat.pair_worth_forming(s, r, i) for s, r, i in pairs) else 0
    if key == "market_crash":
        total = sum(n for n, _ in opponents)
        return 3 * total if (total >= 3 or most >= 3) else 0
    if key == "systemic_risk":
        return 6 if most >= 3 else 3 if most >= 2 else 0
    if key == "correction":
        assert play.target is not None
        n = players[play.target].investment_count
        return 2.5 * n if n >= 2 and n == most else 0
    if key == "regulatory_block":
        assert play.target is not None
        n = players[play.target].investment_count
        return 5 if n >= 3 and n == most else 0
    if key == "compound_interest":
        return 5 if seat.investments else 0
    if key in ("buy_more", "liquidity"):
        return 3 if not _pairs(seat.hand)[0] else 1.5
    if key == "lucky_investor":
        return 2.5
    if key == "bailout":
        return 3
    if key == "federal_audit":
        assert play.target is not None
        return 1 + 0.5 * players[play.target].strategy_count if players[play.target].strategy_count else 0
    if key == "theft":
        assert play.target is not None
        return 2 + 0.1 * players[play.target].hand_count if players[play.target].hand_count else 0
    if key == "inflation":
        mine = len(seat.investments)
        return 1.5 * sum(1 for n, _ in opponents if n >= mine)
    if key == "negotiation":
        return 1
    return 0


def _formable(seat: _Seat) -> list[tuple[str, str, str | None]]:
    """Same-industry pairs in hand (Fortune's form step offers these and Innovation ones)."""
    stocks = [c for c in seat.hand if c[0] == "S"]
    returns = [c for c in seat.hand if c[0] == "R"]
    return [
        (s, r, None) for s in stocks for r in returns if cards.card_industry(s) == cards.card_industry(r)
    ]


def _choose_red(seat: _Seat, legal: Sequence[Action], rng_seed: int) -> Action:
    """Play the most useful red if it is worth it, else end the turn (3.4, 6.2)."""
    plays = [a for a in legal if isinstance(a, Play)]
    if plays:
        scored = [(_red_score(seat, play, rng_seed), play.id, play) for play in plays]
        score, _, best = max(scored, key=lambda item: (item[0], item[1]))
        if score >= 2:
            return best
    return next(a for a in legal if isinstance(a, EndTurn))


def _attack_hurts(seat: _Seat) -> bool:
    """Whether the attack in the window would cost this seat something worth a blue."""
    attack = seat.view.attack
    if attack is None:
        return True
    key = attack.strategy
    if key in ("market_crash", "systemic_risk", "correction"):
        return bool(seat.investments)
    if key == "federal_audit":
        return len(seat.view.strategies) > 1  # the blue itself would be shown
    if key in ("theft", "inflation", "negotiation"):
        return bool(seat.hand)
    return True  # Regulatory Block: a lost turn


def _choose_defence(seat: _Seat, legal: Sequence[Action]) -> Action:
    """Answer a hurtful attack with the best blue; otherwise keep the blues (7.2)."""
    blues = [a for a in legal if isinstance(a, Defend)]
    if blues and _attack_hurts(seat):
        return max(blues, key=lambda a: (BLUE_PREFERENCE[cards.kind_of(a.card).key], a.id))
    return next(a for a in legal if isinstance(a, Decline))


def _choose_main(seat: _Seat, legal: Sequence[Action], rng_seed: int) -> Action:
    """The turn's main action (3.1), or an optimisation before it (5.2)."""
    optimisations = [a for a in legal if isinstance(a, Optimise)]
    if optimisations:
        best = max(optimisations, key=lambda a: (_value(a.into) - _value(a.out), a.id))
        if _value(best.into) - _value(best.out) >= 2:
            return best
    risks = [a for a in legal if isinstance(a, Risk)]
    worthy = [a for a in risks if seat.pair_worth_forming(a.stock, a.ret, a.innovation)]
    if worthy:
        return max(worthy, key=_pair_key)
    builds = [a for a in legal if isinstance(a, Build)]
    dominate = next((a for a in legal if isinstance(a, Dominate)), None)
    below = seat.me.building_total() < cards.BUILDING_TOTAL
    pile = _best_pile(seat, builds, discard_after=not below)
    if pile is not None:
        assert isinstance(pile, Build)
        return pile
    if dominate is not None and not below:
        reds = [c for c in seat.view.strategies if cards.kind_of(c).colour == "red"]
        ready = any(_red_ready(seat, c) for c in reds)
        if ready or (len(seat.view.strategies) < 3 and draw_below(rng_seed, 1, 100) < 30):
            return dominate
    if builds:
        choice = _choose_source(seat, builds, discard_after=not below)
        assert isinstance(choice, Build)
        return choice
    return dominate if dominate is not None else legal[0]


def _red_ready(seat: _Seat, card: str) -> bool:
    """Whether a red in hand would be worth playing after a Dominate now."""
    key = cards.kind_of(card).key
    opponents = seat.opponents()
    most = max((n for n, _ in opponents), default=0)
    if key == "fortune":
        return any(seat.pair_worth_forming(s, r, i) for s, r, i in _formable(seat))
    if key == "market_crash":
        return sum(n for n, _ in opponents) >= 3 or most >= 3
    if key in ("correction", "systemic_risk"):
        return most >= 2 and most >= len(seat.investments)
    if key == "regulatory_block":
        return most >= 3
    if key == "compound_interest":
        return bool(seat.investments)
    return key == "shrewd_move"


def _choose_victory(seat: _Seat, legal: Sequence[Action]) -> Action:
    """In the victory window: declare a winning count, else optimise toward one,
    else hold back the weakest investment rather than show a short count (8.1)."""
    declare = next(a for a in legal if isinstance(a, Declare))
    momentum = seat.view.momentum
    now = count(seat.me, momentum).total
    if seat.family or now >= cards.VICTORY_VALUE:
        return declare
    best: tuple[int, Action] = (now, declare)
    for option in legal:
        if not isinstance(option, Optimise):
            continue
        investments = tuple(
            evolve(inv, {"stock" if inv.stock == option.out else "ret": option.into})
            if option.out in (inv.stock, inv.ret)
            else inv
            for inv in seat.investments
        )
        total = count(SeatState(strategies=seat.view.strategies, investments=investments), momentum).total
        if total > best[0]:
            best = (total, option)
    if best[1] is declare:
        holds = [a for a in legal if isinstance(a, ReturnInvestment)]
        if holds:
            return min(holds, key=lambda a: (_investment_value(seat, a.stock), a.id))
    return best[1]


def _investment_value(seat: _Seat, stock: str) -> tuple[int, int]:
    for position, inv in enumerate(seat.investments):
        if inv.stock == stock:
            marks = cards.COMPOUND_INTEREST_BONUS if inv.marked else 0
            return _value(inv.stock) + _value(inv.ret) + marks, position
    return 0, 0


def _choose_task(seat: _Seat, legal: Sequence[Action]) -> Action:
    """A decision inside a rule or an effect (14.1)."""
    first = legal[0]
    if isinstance(first, Discard | Give):
        return _choose_discard(seat, [a for a in legal if isinstance(a, Discard | Give)])
    if isinstance(first, Draw):
        draws = [a for a in legal if isinstance(a, Draw)]
        # Effect draws are followed by as many discards, so judge a pile top with one.
        choice = _choose_source(seat, draws, discard_after=True)
        assert isinstance(choice, Draw)
        return choice
    if isinstance(first, ReturnInvestment):
        returns = [a for a in legal if isinstance(a, ReturnInvestment)]
        return min(returns, key=lambda a: (_investment_value(seat, a.stock), a.id))
    if isinstance(first, Take):
        takes = [a for a in legal if isinstance(a, Take)]
        if cards.is_building(first.card):  # Bailout: the pile card that helps most
            return max(takes, key=lambda a: (_draw_gain(seat, a.card, True), a.id))
        return max(takes, key=lambda a: (STRATEGY_WORTH[cards.kind_of(a.card).key], a.id))
    if isinstance(first, Mark):
        marks = [a for a in legal if isinstance(a, Mark)]
        # Systemic Risk takes the most recent investment (5.3): mark the oldest.
        return min(marks, key=lambda a: _investment_value(seat, a.stock)[1])
    if isinstance(first, Form):
        forms = [a for a in legal if isinstance(a, Form)]
        return max(forms, key=_pair_key)
    return first


class GreedyBot:
    """A heuristic Market Fortune player (see the module docstring)."""

    name = "greedy"
    description = "forms high pairs toward 25M, upgrades investments, defends with blues, plays reds when they pay"

    def choose(
        self,
        game: Game[Any, Any, Any],
        view: View,
        legal: Sequence[Action],
        seat: Seat,
        rng_seed: int,
    ) -> Action:
        """Pick greedy's action for ``seat`` from its view."""
        assert isinstance(view, MarketFortuneView)
        me = _Seat(view)
        kinds = {action.kind for action in legal}
        if view.decision is not None and view.decision.seat == seat:
            return _choose_task(me, legal)
        if "decline" in kinds:
            return _choose_defence(me, legal)
        if "declare" in kinds:
            return _choose_victory(me, legal)
        if "end" in kinds:
            return _choose_red(me, legal, rng_seed)
        if kinds & {"build", "risk", "dominate", "optimise"}:
            return _choose_main(me, legal, rng_seed)
        return legal[0]  # next_game, the only choice between Championship games


GREEDY = GreedyBot()
"""The greedy house bot."""

BOTS: dict[str, Bot] = {GREEDY.name: GREEDY}
"""Market Fortune's own bots, found by :func:`engine.bots.get_bot`."""
