"""The Hab & Gut question templates, by rulebook area.

Every answer is computed from :mod:`engine.hab_und_gut.components` (the
constants the engine plays with) or from the engine's own helpers, so a rule
change moves the quiz with it. Sections cited are those of engine/hab_und_gut/rulebook.md.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.hab_und_gut.components import (
    COMMODITIES,
    HOLDER_SIZE,
    MARKET_CARDS,
    MARKET_VALUES,
    MAX_CHARITY_PER_TURN,
    MAX_SEATS,
    MAX_TRADE,
    MIN_SEATS,
    ROUNDS,
    SHARES_PER_COMMODITY,
    START_MONEY,
    START_SPACE,
    TRACK,
    TURNS_PER_ROUND,
    move_space,
)
from quiz.questions import Draft, QuestionTemplate

__all__ = ["TEMPLATES", "eliminated_seats", "first_player", "winning_seats"]

COMPONENTS = "components"
SETUP = "setup"
TURN = "turn_order"
STOCK = "stock_phase"
MARKET = "market_phase"
ROUND_END = "round_end"
GAME_END = "game_end"
INFORMATION = "information"


def _integer(prompt: str, answer: int, **params: Any) -> Draft:
    return Draft(prompt=prompt, format="integer", answer=answer, params=params)


def _yes_no(prompt: str, answer: bool, **params: Any) -> Draft:
    return Draft(prompt=prompt, format="yes_no", answer=answer, params=params)


def _choice(prompt: str, answer: str, distractors: Sequence[str], **params: Any) -> Draft:
    return Draft(
        prompt=prompt,
        format="single_choice",
        answer=answer,
        distractors=tuple(distractors),
        params=params,
    )


def _seats(seats: Sequence[int]) -> str:
    """``seats 1 and 3``, ``seat 2`` or ``nobody``."""
    if not seats:
        return "nobody"
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(str(s) for s in seats[:-1]) + f" and {seats[-1]}"


def first_player(turn: int, seats: int) -> int:
    """The seat that opens ``turn`` (rulebook 3.3)."""
    return (turn - 1) % seats


def eliminated_seats(donations: Sequence[int]) -> list[int]:
    """Seats eliminated for the smallest donation; nobody when everybody ties (7.2)."""
    least = min(donations)
    out = [seat for seat, given in enumerate(donations) if given == least]
    return [] if len(out) == len(donations) else out


def winning_seats(money: Sequence[int], eliminated: Sequence[int]) -> list[int]:
    """The richest seats not eliminated (7.4)."""
    contenders = [seat for seat in range(len(money)) if seat not in eliminated]
    best = max(money[seat] for seat in contenders)
    return [seat for seat in contenders if money[seat] == best]


# --- components (1) -------------------------------------------------------------


def _track_spaces(rng: random.Random) -> Draft:
    return _integer("How many spaces does each commodity's price track have?", len(TRACK))


def _price_on_space(rng: random.Random) -> Draft:
    space = rng.randrange(len(TRACK))
    return _integer(
        f"Spaces are numbered from 0. What price is printed on space {space} of a track?",
        TRACK[space],
        space=space,
    )


def _top_price(rng: random.Random) -> Draft:
    return _integer("What is the highest price a commodity can ever reach?", TRACK[-1])


def _cards_of_face(rng: random.Random) -> Draft:
    commodity = rng.choice(COMMODITIES)
    value = rng.choice(sorted(set(MARKET_VALUES)))
    count = sum(
        1 for card in MARKET_CARDS.values() if card.commodity == commodity and card.value == value
    )
    return _integer(
        f"How many {commodity} market cards with the value {value:+d} does the market deck hold?",
        count,
        commodity=commodity,
        value=value,
    )


def _market_deck_size(rng: random.Random) -> Draft:
    return _integer("How many market cards are there in all?", len(MARKET_CARDS))


def _shares_per_commodity(rng: random.Random) -> Draft:
    commodity = rng.choice(COMMODITIES)
    return _integer(
        f"How many {commodity} share cards exist in the game?",
        SHARES_PER_COMMODITY,
        commodity=commodity,
    )


# --- setup (2) ------------------------------------------------------------------


def _start_money(rng: random.Random) -> Draft:
    return _integer("How much money does each seat start with?", START_MONEY)


def _start_price(rng: random.Random) -> Draft:
    commodity = rng.choice(COMMODITIES)
    return _integer(
        f"What is the price of {commodity} when the game begins?",
        TRACK[START_SPACE],
        commodity=commodity,
    )


def _undealt(rng: random.Random) -> Draft:
    seats = rng.randint(MIN_SEATS, MAX_SEATS)
    return _integer(
        f"A {seats}-seat table has just been dealt. How many market cards lie set aside, unseen?",
        len(MARKET_CARDS) - HOLDER_SIZE * seats,
        seats=seats,
    )


def _seats_allowed(rng: random.Random) -> Draft:
    seats = rng.randint(MIN_SEATS - 1, MAX_SEATS + 1)
    return _yes_no(
        f"Can a Hab & Gut table be played with {seats} seats?",
        MIN_SEATS <= seats <= MAX_SEATS,
        seats=seats,
    )


def _holders_seen(rng: random.Random) -> Draft:
    seats = rng.randint(MIN_SEATS, MAX_SEATS)
    seat = rng.randrange(seats)
    left, right = seat, (seat - 1) % seats
    answer = f"holders {min(left, right)} and {max(left, right)}"
    pool = sorted(
        {
            f"holders {a} and {b}"
            for a in range(seats)
            for b in range(a + 1, seats)
            if {a, b} != {left, right}
        }
    )
    return _choice(
        f"In a {seats}-seat game, holder h stands between seat h and seat h+1 (the last one "
        f"between the last seat and seat 0). Which holders can seat {seat} look into?",
        answer,
        rng.sample(pool, min(3, len(pool))),
        seats=seats,
        seat=seat,
    )


# --- turn order (3) -------------------------------------------------------------


def _turns_per_game(rng: random.Random) -> Draft:
    return _integer("How many turns does a whole game last?", ROUNDS * TURNS_PER_ROUND)


def _first_player_of_turn(rng: random.Random) -> Draft:
    seats = rng.randint(MIN_SEATS, MAX_SEATS)
    turn = rng.randint(2, ROUNDS * TURNS_PER_ROUND)
    return _integer(
        f"In a {seats}-seat game seat 0 opens turn 1. Which seat opens turn {turn}?",
        first_player(turn, seats),
        seats=seats,
        turn=turn,
    )


def _phase_order(rng: random.Random) -> Draft:
    return _choice(
        "Which phase comes first in every turn?",
        "the stock phase (trading shares)",
        (
            "the market phase (playing market cards)",
            "the charity phase (selling charity boards)",
            "it alternates from turn to turn",
        ),
    )


# --- stock phase (4) -----------------------------------------------------------


def _trade_limit(rng: random.Random) -> Draft:
    return _integer("At most how many shares may a seat buy in one stock phase?", MAX_TRADE)


def _buy_and_sell(rng: random.Random) -> Draft:
    return _yes_no("May a seat both sell and buy shares in the same stock phase?", False)


def _purchase_cost(rng: random.Random) -> Draft:
    count = rng.randint(1, MAX_TRADE)
    space = rng.randrange(1, len(TRACK))
    commodity = rng.choice(COMMODITIES)
    return _integer(
        f"{commodity.capitalize()} stands on the space worth {TRACK[space]}. What does a seat pay "
        f"for {count} {commodity} share{'s' if count > 1 else ''}?",
        count * TRACK[space],
        count=count,
        space=space,
        commodity=commodity,
    )


def _affordable(rng: random.Random) -> Draft:
    space = rng.randrange(1, len(TRACK))
    price = TRACK[space]
    money = rng.randrange(0, 4 * price + 1, 5)
    commodity = rng.choice(COMMODITIES)
    return _integer(
        f"A seat has {money} and {commodity} costs {price}; the supply is full. How many "
        f"{commodity} shares can it buy in this stock phase?",
        min(MAX_TRADE, money // price),
        money=money,
        space=space,
        commodity=commodity,
    )


def _buy_at_zero(rng: random.Random) -> Draft:
    commodity = rng.choice(COMMODITIES)
    return _yes_no(
        f"{commodity.capitalize()} has fallen to 0. May a seat buy {commodity} shares now?",
        TRACK[0] > 0,
        commodity=commodity,
    )


def _sell_at_zero(rng: random.Random) -> Draft:
    count = rng.randint(1, MAX_TRADE)
    return _integer(
        f"A seat sells {count} shares of a commodity that stands at 0. How much does it receive?",
        count * TRACK[0],
        count=count,
    )


def _charity_per_phase(rng: random.Random) -> Draft:
    return _integer(
        "How many shares may a seat lay on its charity board in one stock phase?",
        MAX_CHARITY_PER_TURN,
    )


def _charity_just_bought(rng: random.Random) -> Draft:
    return _yes_no(
        "May a seat give to charity a share it bought earlier in the same stock phase?", True
    )


# --- market phase (5) ----------------------------------------------------------


def _price_after_full(rng: random.Random) -> Draft:
    space = rng.randrange(len(TRACK))
    value = rng.choice(sorted(set(MARKET_VALUES)))
    commodity = rng.choice(COMMODITIES)
    return _integer(
        f"{commodity.capitalize()} stands on space {space} (worth {TRACK[space]}). A seat plays the "
        f"{commodity} {value:+d} card in full. What is the new price?",
        TRACK[move_space(space, value)],
        space=space,
        value=value,
        commodity=commodity,
    )


def _price_after_half(rng: random.Random) -> Draft:
    space = rng.randrange(len(TRACK))
    value = rng.choice(sorted(set(MARKET_VALUES)))
    commodity = rng.choice(COMMODITIES)
    return _integer(
        f"{commodity.capitalize()} stands on space {space} (worth {TRACK[space]}). A seat halves "
        f"the {commodity} {value:+d} card. What is the new price?",
        TRACK[move_space(space, value // 2)],
        space=space,
        value=value,
        commodity=commodity,
    )


def _same_holder(rng: random.Random) -> Draft:
    return _yes_no(
        "In the market phase, may a seat take both of its cards from the same holder?", False
    )


def _holder_left(rng: random.Random) -> Draft:
    turns = rng.randint(1, TURNS_PER_ROUND - 1)
    return _integer(
        f"How many cards are left in each holder after {turns} complete turn"
        f"{'s' if turns > 1 else ''} of a round?",
        HOLDER_SIZE - 2 * turns,
        turns=turns,
    )


# --- end of round 1 (6) ---------------------------------------------------------


def _charity_proceeds(rng: random.Random) -> Draft:
    prices = [TRACK[rng.randrange(len(TRACK))] for _ in range(rng.randint(2, TURNS_PER_ROUND))]
    listed = ", ".join(str(price) for price in prices)
    return _integer(
        f"At the end of round 1 a seat's charity board holds shares now priced {listed}. "
        "How much charity money does the board receive?",
        sum(prices),
        prices=prices,
    )


def _charity_spendable(rng: random.Random) -> Draft:
    return _yes_no("May a seat spend its charity money on shares in round 2?", False)


def _reshuffled(rng: random.Random) -> Draft:
    return _integer(
        "How many market cards are shuffled together for the second round's deal?",
        len(MARKET_CARDS),
    )


def _prices_reset(rng: random.Random) -> Draft:
    return _yes_no("Do the price markers go back to 40 when round 2 begins?", False)


# --- end of the game (7) ---------------------------------------------------------


def _random_donations(rng: random.Random) -> list[int]:
    """Donations that are not all equal: a tie of every seat is our own ruling
    (7.2), asked only by ``game_end.all_tied``, which says so."""
    seats = rng.randint(MIN_SEATS, MAX_SEATS)
    while True:
        pool = [TRACK[rng.randrange(4, 20)] * rng.randint(1, 4) for _ in range(3)]
        donations = [rng.choice(pool) for _ in range(seats)]
        if len(set(donations)) > 1:
            return donations


def _who_is_out(rng: random.Random) -> Draft:
    donations = _random_donations(rng)
    out = eliminated_seats(donations)
    listed = ", ".join(f"seat {s} gave {d}" for s, d in enumerate(donations))
    answer = _seats(out)
    pool = [_seats([s]) for s in range(len(donations))] + ["nobody"]
    pool += [_seats([a, b]) for a in range(len(donations)) for b in range(a + 1, len(donations))]
    return _choice(
        f"At the end of the game the donations (both rounds) are: {listed}. Who is eliminated?",
        answer,
        rng.sample(sorted(set(pool) - {answer}), 3),
        donations=donations,
    )


def _all_tied(rng: random.Random) -> Draft:
    seats = rng.randint(MIN_SEATS, MAX_SEATS)
    given = TRACK[rng.randrange(len(TRACK))]
    return _integer(
        f"All {seats} seats end the game with exactly {given} of charity money each. "
        "By the Agents Club's own ruling on a tie of every seat (7.2, a departure from the print), "
        "how many seats are eliminated?",
        len(eliminated_seats([given] * seats)),
        seats=seats,
        given=given,
    )


def _who_wins(rng: random.Random) -> Draft:
    donations = _random_donations(rng)
    seats = len(donations)
    money = [rng.randrange(100, 900, 50) for _ in range(seats)]
    out = eliminated_seats(donations)
    answer = _seats(winning_seats(money, out))
    listed = "; ".join(f"seat {s}: donated {donations[s]}, money {money[s]}" for s in range(seats))
    pool = [_seats([s]) for s in range(seats)]
    pool += [_seats([a, b]) for a in range(seats) for b in range(a + 1, seats)]
    return _choice(
        f"Final count, after every seat has sold its shares: {listed}. Who wins?",
        answer,
        rng.sample(sorted(set(pool) - {answer}), 3),
        donations=donations,
        money=money,
    )


def _charity_counts_for_wealth(rng: random.Random) -> Draft:
    return _yes_no(
        "Does a seat's charity money count towards its fortune at the final count?", False
    )


# --- information (8) -------------------------------------------------------------


def _far_holder(rng: random.Random) -> Draft:
    seats = rng.randint(4, MAX_SEATS)
    return _yes_no(
        f"In a {seats}-seat game, may seat 0 look into the holder between seats 2 and 3?",
        False,
        seats=seats,
    )


def _deck_seen(rng: random.Random) -> Draft:
    return _yes_no("Does any seat see the market cards set aside at the deal?", False)


def _money_public(rng: random.Random) -> Draft:
    return _yes_no("Can every seat see how much money each other seat has?", True)


def _donation_commodity(rng: random.Random) -> Draft:
    return _yes_no(
        "When a seat lays a share face down on its charity board, do the other seats learn "
        "which commodity it was before the round ends?",
        False,
    )


TEMPLATES: tuple[QuestionTemplate, ...] = (
    QuestionTemplate("components.track_spaces", COMPONENTS, "1.2", _track_spaces),
    QuestionTemplate("components.price_on_space", COMPONENTS, "1.2", _price_on_space),
    QuestionTemplate("components.top_price", COMPONENTS, "1.2", _top_price),
    QuestionTemplate("components.cards_of_face", COMPONENTS, "1.3", _cards_of_face),
    QuestionTemplate("components.market_deck_size", COMPONENTS, "1.3", _market_deck_size),
    QuestionTemplate("components.shares_per_commodity", COMPONENTS, "1.4", _shares_per_commodity),
    QuestionTemplate("setup.start_money", SETUP, "2.1", _start_money),
    QuestionTemplate("setup.start_price", SETUP, "2.1", _start_price),
    QuestionTemplate("setup.undealt", SETUP, "2.3", _undealt),
    QuestionTemplate("setup.seats_allowed", SETUP, "2.1", _seats_allowed),
    QuestionTemplate("setup.holders_seen", SETUP, "2.2", _holders_seen),
    QuestionTemplate("turn.turns_per_game", TURN, "3.1", _turns_per_game),
    QuestionTemplate("turn.first_player", TURN, "3.3", _first_player_of_turn),
    QuestionTemplate("turn.phase_order", TURN, "3.2", _phase_order),
    QuestionTemplate("stock.trade_limit", STOCK, "4.2", _trade_limit),
    QuestionTemplate("stock.buy_and_sell", STOCK, "4.2", _buy_and_sell),
    QuestionTemplate("stock.purchase_cost", STOCK, "4.3", _purchase_cost),
    QuestionTemplate("stock.affordable", STOCK, "4.3", _affordable),
    QuestionTemplate("stock.buy_at_zero", STOCK, "4.3", _buy_at_zero),
    QuestionTemplate("stock.sell_at_zero", STOCK, "4.4", _sell_at_zero),
    QuestionTemplate("stock.charity_per_phase", STOCK, "4.5", _charity_per_phase),
    QuestionTemplate("stock.charity_just_bought", STOCK, "4.5", _charity_just_bought),
    QuestionTemplate("market.price_after_full", MARKET, "5.3", _price_after_full),
    QuestionTemplate("market.price_after_half", MARKET, "5.3", _price_after_half),
    QuestionTemplate("market.same_holder", MARKET, "5.1", _same_holder),
    QuestionTemplate("market.holder_left", MARKET, "5.5", _holder_left),
    QuestionTemplate("round_end.charity_proceeds", ROUND_END, "6.1", _charity_proceeds),
    QuestionTemplate("round_end.charity_spendable", ROUND_END, "6.1", _charity_spendable),
    QuestionTemplate("round_end.reshuffled", ROUND_END, "6.2", _reshuffled),
    QuestionTemplate("round_end.prices_reset", ROUND_END, "6.2", _prices_reset),
    QuestionTemplate("game_end.who_is_out", GAME_END, "7.2", _who_is_out),
    QuestionTemplate("game_end.all_tied", GAME_END, "7.2", _all_tied),
    QuestionTemplate("game_end.who_wins", GAME_END, "7.4", _who_wins),
    QuestionTemplate("game_end.charity_not_wealth", GAME_END, "6.1", _charity_counts_for_wealth),
    QuestionTemplate("information.far_holder", INFORMATION, "8.2", _far_holder),
    QuestionTemplate("information.deck_seen", INFORMATION, "8.3", _deck_seen),
    QuestionTemplate("information.money_public", INFORMATION, "8.1", _money_public),
    QuestionTemplate("information.donation_commodity", INFORMATION, "8.1", _donation_commodity),
)
"""Every Hab & Gut question template (38, in eight categories)."""
