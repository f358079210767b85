"""Questions on investments and optimisation (5), victory and the count (8)."""

from __future__ import annotations

import random

from engine.market_fortune.cards import (
    BOOMING_INDUSTRY_BONUS,
    COMPOUND_INTEREST_BONUS,
    DIVERSIFICATION_KING_BONUS,
    DIVIDENDS_BONUS,
    DIVIDENDS_MIN_STOCK,
    INDUSTRIES,
    INVESTMENTS_TO_WIN,
    MAX_INVESTMENT_VALUE,
    MIN_INVESTMENT_VALUE,
    VALUES,
    VICTORY_VALUE,
    card_industry,
    card_value,
    strategy,
)
from quiz.market_fortune.questions.common import (
    card_words,
    choice,
    integer,
    random_investment,
    yes_no,
)
from quiz.questions import Draft, QuestionTemplate

__all__ = ["TEMPLATES", "yellow_bonus"]

INVESTMENTS = "investments"
VICTORY = "victory"


def _pair_value(rng: random.Random) -> Draft:
    stock, ret = random_investment(rng)
    return integer(
        f"An investment holds {card_words(stock)} and {card_words(ret)}. "
        "Before any modifier, how many millions is it worth?",
        card_value(stock) + card_value(ret),
        stock=stock,
        ret=ret,
    )


def _valid_pair(rng: random.Random) -> Draft:
    first, second = rng.sample(INDUSTRIES, 2)
    industry_of_return = rng.choice((first, second))
    stock = f"S.{first}.{rng.choice(VALUES)}"
    ret = f"R.{industry_of_return}.{rng.choice(VALUES)}"
    return yes_no(
        f"Without Innovation, can {card_words(stock)} and {card_words(ret)} form an investment?",
        card_industry(stock) == card_industry(ret),
        stock=stock,
        ret=ret,
    )


def _value_bounds(rng: random.Random) -> Draft:
    bound = rng.choice(("least", "most"))
    value = MIN_INVESTMENT_VALUE if bound == "least" else MAX_INVESTMENT_VALUE
    return integer(
        f"Before modifiers, what is the {bound} an investment can be worth, in millions?", value, bound=bound
    )


def _best_pair(rng: random.Random) -> Draft:
    industries = rng.sample(INDUSTRIES, 4)
    pairs = [random_investment(rng, industry) for industry in industries]
    values = [card_value(s) + card_value(r) for s, r in pairs]
    while values.count(max(values)) > 1:  # one best pair, so one right option
        pairs = [random_investment(rng, industry) for industry in industries]
        values = [card_value(s) + card_value(r) for s, r in pairs]
    hand = sorted(card for pair in pairs for card in pair)
    best = pairs[values.index(max(values))]
    texts = [f"{s} + {r}" for s, r in pairs]
    return choice(
        "Your hand: " + ", ".join(hand) + ". Which investment you could form from it is worth the most?",
        f"{best[0]} + {best[1]}",
        [text for text in texts if text != f"{best[0]} + {best[1]}"],
        {"hand": hand},
    )


def _optimise_cost(rng: random.Random) -> Draft:
    return integer("How many building cards do you discard as the cost of one portfolio optimisation?", 1)


def _optimise_per_turn(rng: random.Random) -> Draft:
    return yes_no(
        "Before your main action, may you optimise your portfolio twice in a row, paying the cost each time?",
        True,
    )


def _optimise_flipped(rng: random.Random) -> Draft:
    return yes_no("May you optimise an investment that is face up after a count that fell short?", False)


def _optimise_swap(rng: random.Random) -> Draft:
    stock, ret = random_investment(rng)
    industry = card_industry(stock)
    other = rng.choice([i for i in INDUSTRIES if i != industry])
    swap_in, swap_out, allowed = rng.choice(
        (
            (f"S.{industry}.{rng.choice(VALUES)}", "Stock", True),
            (f"R.{industry}.{rng.choice(VALUES)}", "Return", True),
            (f"S.{other}.{rng.choice(VALUES)}", "Stock", False),
            (f"R.{industry}.{rng.choice(VALUES)}", "Stock", False),
        )
    )
    if swap_in in (stock, ret):
        swap_in = swap_in[:-1] + ("1" if swap_in[-1] != "1" else "2")
    return yes_no(
        f"Your investment (no Innovation) holds {card_words(stock)} and {card_words(ret)}. On your turn, "
        f"before your action, may you swap its {swap_out} for {card_words(swap_in)} from your hand?",
        allowed,
        stock=stock,
        ret=ret,
        swap_in=swap_in,
        swap_out=swap_out,
    )


def _optimise_gain(rng: random.Random) -> Draft:
    stock, ret = random_investment(rng)
    industry = card_industry(stock)
    new_value = rng.choice([v for v in VALUES if v != card_value(stock)])
    new_stock = f"S.{industry}.{new_value}"
    return integer(
        f"Your investment holds {card_words(stock)} and {card_words(ret)}. You optimise it by swapping "
        f"its Stock for {card_words(new_stock)}. What is the investment worth now, in millions?",
        new_value + card_value(ret),
        stock=stock,
        ret=ret,
        new_stock=new_stock,
    )


def _portfolio(rng: random.Random) -> list[tuple[str, str]]:
    """Four investments; industries sometimes repeat (distinct cards all the same)."""
    pairs: list[tuple[str, str]] = []
    while len(pairs) < INVESTMENTS_TO_WIN:
        industry = rng.choice(INDUSTRIES) if rng.random() < 0.7 or not pairs else pairs[0][0].split(".")[1]
        pair = random_investment(rng, industry)
        used = {card for p in pairs for card in p}
        if pair[0] not in used and pair[1] not in used:
            pairs.append(pair)
    return pairs


def _portfolio_words(pairs: list[tuple[str, str]]) -> str:
    return "; ".join(f"{s} + {r}" for s, r in pairs)


def yellow_bonus(key: str, pairs: list[tuple[str, str]]) -> int:
    """The bonus of one yellow Strategy for a portfolio (6.5, 12.25-12.27)."""
    industries = [card_industry(s) for s, _ in pairs]
    if key == "booming_industry":
        return BOOMING_INDUSTRY_BONUS if len(set(industries)) < len(industries) else 0
    if key == "diversification_king":
        distinct = len(set(industries)) == INVESTMENTS_TO_WIN == len(industries)
        return DIVERSIFICATION_KING_BONUS if distinct else 0
    if key == "dividends":
        return DIVIDENDS_BONUS * sum(1 for s, _ in pairs if card_value(s) >= DIVIDENDS_MIN_STOCK)
    raise KeyError(key)


def _count_value(rng: random.Random) -> Draft:
    pairs = _portfolio(rng)
    extra = rng.choice(("none", "booming_industry", "diversification_king", "dividends", "compound_interest"))
    base = sum(card_value(s) + card_value(r) for s, r in pairs)
    # Momentum always draws a Strategy for the 4th investment (3.5), so the hand
    # is described as "besides" that card, and a yellow as kept from earlier.
    if extra == "none":
        holding, bonus = "you hold no other Strategy and no investment carries a mark", 0
    elif extra == "compound_interest":
        holding = (
            f"you hold no other Strategy, and your first investment carries one {strategy(extra).name} mark"
        )
        bonus = COMPOUND_INTEREST_BONUS
    else:
        holding = f"you hold one {strategy(extra).name} (yellow), kept from an earlier turn, and no other Strategy"
        bonus = yellow_bonus(extra, pairs)
    return integer(
        f"Fortune mode. You form your 4th investment and declare. Portfolio: {_portfolio_words(pairs)}. "
        f"Besides the Strategy that Momentum gave you for the 4th investment, {holding}. "
        "What does your portfolio count at the count, in millions?",
        base + bonus,
        pairs=[list(p) for p in pairs],
        extra=extra,
    )


def _count_wins(rng: random.Random) -> Draft:
    pairs = _portfolio(rng)
    total = sum(card_value(s) + card_value(r) for s, r in pairs)
    return yes_no(
        f"Fortune mode. You form your 4th investment and declare; your portfolio is "
        f"{_portfolio_words(pairs)}. Besides the Strategy that Momentum gave you for the 4th "
        "investment, you hold no Strategy, and no investment carries a mark. Do you win?",
        total >= VICTORY_VALUE,
        pairs=[list(p) for p in pairs],
    )


def _threshold(rng: random.Random) -> Draft:
    return integer("In Fortune mode, how many millions must the count reach (at least) to win?", VICTORY_VALUE)


def _investments_needed(rng: random.Random) -> Draft:
    return integer("How many investments must a seat form to reach the count?", INVESTMENTS_TO_WIN)


def _short_count(rng: random.Random) -> Draft:
    return choice(
        "In Fortune mode you declare victory and your count falls short of the victory value. What happens?",
        "you take one investment of your choice back into your hand and play goes on",
        (
            "you lose all four investments to the discard piles",
            "you are out of the game",
            "your most recent investment goes to the discard piles",
        ),
    )


def _hold_back(rng: random.Random) -> Draft:
    return yes_no(
        "Under the default rules, you have just formed your 4th investment and know your count is short. "
        "May you, instead of "
        "declaring, take one investment back into your hand without turning any investment face up?",
        True,
    )


_MOMENTUM_KINDS = ("dividends", "booming_industry", "diversification_king", "maximum_return", "short_investment")
"""Greens and yellows: the Strategies that would otherwise add to a count."""


def _momentum_count(rng: random.Random) -> Draft:
    kind = strategy(rng.choice(_MOMENTUM_KINDS))
    return yes_no(
        f"The Strategy that Momentum gives you for your 4th investment is {kind.name} ({kind.colour}). "
        "Does it count at the count you make in that turn?",
        False,
        kind=kind.key,
    )


TEMPLATES: tuple[QuestionTemplate, ...] = (
    QuestionTemplate("investments.pair_value", INVESTMENTS, "5.1", _pair_value),
    QuestionTemplate("investments.valid_pair", INVESTMENTS, "5.1", _valid_pair),
    QuestionTemplate("investments.value_bounds", INVESTMENTS, "5.1", _value_bounds),
    QuestionTemplate("investments.best_pair", INVESTMENTS, "5.1", _best_pair),
    QuestionTemplate("investments.optimise_cost", INVESTMENTS, "5.2", _optimise_cost),
    QuestionTemplate("investments.optimise_per_turn", INVESTMENTS, "5.2", _optimise_per_turn),
    QuestionTemplate("investments.optimise_flipped", INVESTMENTS, "5.2", _optimise_flipped),
    QuestionTemplate("investments.optimise_swap", INVESTMENTS, "5.2", _optimise_swap),
    QuestionTemplate("investments.optimise_gain", INVESTMENTS, "5.2", _optimise_gain),
    QuestionTemplate("victory.count_value", VICTORY, "8.1", _count_value),
    QuestionTemplate("victory.count_wins", VICTORY, "8.2", _count_wins),
    QuestionTemplate("victory.threshold", VICTORY, "8.2", _threshold),
    QuestionTemplate("victory.investments_needed", VICTORY, "8.1", _investments_needed),
    QuestionTemplate("victory.short_count", VICTORY, "8.2", _short_count),
    QuestionTemplate("victory.hold_back", VICTORY, "8.1", _hold_back),
    QuestionTemplate("victory.momentum_count", VICTORY, "3.5", _momentum_count),
)
"""Investment and victory templates."""
