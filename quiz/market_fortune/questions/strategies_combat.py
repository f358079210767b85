"""Questions on the four colours (6), combat (7) and specific cards (12)."""

from __future__ import annotations

import random

from engine.market_fortune.cards import (
    BUY_MORE_DRAWS,
    CATALOGUE,
    LIQUIDITY_DRAWS,
    LUCKY_INVESTOR_DRAWS,
    MAXIMUM_RETURN_VALUE,
    SHORT_INVESTMENT_VALUE,
    card_value,
    strategy,
)
from quiz.market_fortune.questions.common import (
    BLUES,
    REDS,
    card_words,
    choice,
    integer,
    pick_distractors,
    random_investment,
    yes_no,
)
from quiz.questions import Draft, QuestionTemplate

__all__ = ["TARGETING_WORDS", "TEMPLATES"]

STRATEGIES = "strategies"
COMBAT = "combat"
CARDS = "cards"
COLOURS = ("red", "blue", "green", "yellow")

TARGETING_WORDS = {
    "none": "no opponent: it only affects you",
    "one": "one opponent you choose",
    "all": "every opponent",
    "group": "every opponent who meets its condition",
}
"""How the questions word each catalogue targeting."""


def _colour_of(rng: random.Random) -> Draft:
    kind = rng.choice(CATALOGUE)
    return choice(
        f"What colour is the Strategy {kind.name}?",
        kind.colour,
        [c for c in COLOURS if c != kind.colour],
        {"kind": kind.key},
        section=kind.section,
    )


def _copies_of(rng: random.Random) -> Draft:
    kind = rng.choice(CATALOGUE)
    # 1.5 gives copies per colour; the kind's own entry in section 12 gives its copies.
    return integer(
        f"How many copies of {kind.name} are in the Strategy deck?", kind.copies, section=kind.section, kind=kind.key
    )


def _colour_count(rng: random.Random) -> Draft:
    colour = rng.choice(COLOURS)
    total = sum(kind.copies for kind in CATALOGUE if kind.colour == colour)
    return integer(f"How many {colour} Strategy cards does the Strategy deck hold?", total, colour=colour)


def _kinds(rng: random.Random) -> Draft:
    return integer("How many different Strategy kinds are there?", len(CATALOGUE))


def _blue_when(rng: random.Random) -> Draft:
    return choice(
        "When may a blue Strategy be played?",
        "only in a defence window, when you are the target of an attack",
        (
            "on your own Dominate turn, after the draw",
            "when you form an investment",
            "at the count, when you declare",
        ),
    )


def _greens_per_investment(rng: random.Random) -> Draft:
    return integer("At most how many green Strategies may apply to one investment?", 1)


def _strategy_limit(rng: random.Random) -> Draft:
    return yes_no("Is there a limit on how many Strategies you may hold?", False)


_UNCONDITIONAL_REDS = frozenset(
    {"theft", "federal_audit", "negotiation", "regulatory_block", "market_crash", "shrewd_move", "lucky_investor"}
)


def _red_on_action(rng: random.Random) -> Draft:
    action, allowed = rng.choice((("Build", False), ("Risk", False), ("Dominate", True)))
    # Only reds without a precondition (12), so the answer depends on the action alone.
    red = rng.choice([kind for kind in REDS if kind.key in _UNCONDITIONAL_REDS])
    return yes_no(
        f"Under the default rules, may you play {red.name} (red) on a turn where your main "
        f"action is {action}{' and the Strategy you draw is red' if action == 'Dominate' else ''}?",
        allowed,
        action=action,
        kind=red.key,
    )


def _is_attack(rng: random.Random) -> Draft:
    red = rng.choice(REDS)
    return yes_no(
        f"Does playing {red.name} open defence windows for opponents (is it an attack)?",
        red.is_attack,
        kind=red.key,
    )


def _targets(rng: random.Random) -> Draft:
    red = rng.choice(REDS)
    answer = TARGETING_WORDS[red.targeting]
    return choice(
        f"Whom does {red.name} affect?",
        answer,
        [text for text in TARGETING_WORDS.values() if text != answer],
        {"kind": red.key},
        section=red.section,
    )


def _blues_per_window(rng: random.Random) -> Draft:
    return integer("How many blue Strategies may a target play in one defence window, at most?", 1)


def _defence_order(rng: random.Random) -> Draft:
    return choice(
        "In a group attack, in which order do the targets decide whether to defend?",
        "clockwise from the attacker",
        ("anticlockwise from the attacker", "all at once", "from the leader down"),
    )


def _window_without_blue(rng: random.Random) -> Draft:
    return yes_no("Does a target holding no blue Strategy still get a defence window?", True)


def _cards_to_discard(rng: random.Random) -> Draft:
    blue = rng.choice([kind for kind in BLUES if kind.key != "wrong_analyst"])
    # Diamond Hands answers only attacks that take investments (12.18); of the
    # single-target reds that is Correction.
    singles = [kind for kind in REDS if kind.targeting == "one"]
    red = strategy("correction") if blue.key == "diamond_hands" else rng.choice(singles)
    # Diamond Hands goes back to its owner's hand (6.3); every other blue is discarded.
    answer = 1 if blue.key == "diamond_hands" else 2
    return integer(
        f"{red.name} is played on you and you cancel it with {blue.name}. How many of these two "
        "cards end up on the Strategy discard pile?",
        answer,
        red=red.key,
        blue=blue.key,
    )


def _optimise_under_attack(rng: random.Random) -> Draft:
    return yes_no("May a seat optimise its portfolio while an attack is being resolved?", False)


def _blue_by_effect(rng: random.Random) -> Draft:
    blue = rng.choice(BLUES)
    return choice(
        f"Which blue Strategy has this effect: “{blue.effect}”",
        blue.name,
        pick_distractors(rng, blue.name, [kind.name for kind in BLUES]),
        {"kind": blue.key},
        section=blue.section,
    )


def _red_by_effect(rng: random.Random) -> Draft:
    red = rng.choice(REDS)
    return choice(
        f"Which red Strategy has this effect: “{red.effect}”",
        red.name,
        pick_distractors(rng, red.name, [kind.name for kind in REDS]),
        {"kind": red.key},
        section=red.section,
    )


def _draw_counts(rng: random.Random) -> Draft:
    key, count = rng.choice(
        (("buy_more", BUY_MORE_DRAWS), ("liquidity", LIQUIDITY_DRAWS), ("lucky_investor", LUCKY_INVESTOR_DRAWS))
    )
    kind = strategy(key)
    what = "Strategies on a plus" if key == "lucky_investor" else "building cards"
    return integer(f"How many {what} does {kind.name} let you draw?", count, section=kind.section, kind=key)


def _maximum_return(rng: random.Random) -> Draft:
    stock, ret = random_investment(rng)
    kind = strategy("maximum_return")
    return integer(
        f"At the count, {kind.name} applies to your investment {card_words(stock)} + {card_words(ret)}. "
        "What does that investment count, in millions?",
        card_value(stock) + MAXIMUM_RETURN_VALUE,
        stock=stock,
        ret=ret,
    )


def _short_investment(rng: random.Random) -> Draft:
    stock, ret = random_investment(rng)
    # The count applies greens only where they raise the total (6.4), so ask
    # only about investments that Short Investment improves.
    while card_value(stock) + card_value(ret) >= SHORT_INVESTMENT_VALUE:
        stock, ret = random_investment(rng)
    kind = strategy("short_investment")
    return integer(
        f"{kind.name} is applied to your investment {card_words(stock)} + {card_words(ret)}. "
        "What does that investment count at the count, in millions?",
        SHORT_INVESTMENT_VALUE,
        stock=stock,
        ret=ret,
    )


def _shrewd_or_block(rng: random.Random) -> Draft:
    key, answer = rng.choice(
        (
            ("shrewd_move", "you take another turn right after this one"),
            ("regulatory_block", "the target loses its next turn"),
            ("fortune", "you form an investment without rolling"),
        )
    )
    wrongs = [
        "you take another turn right after this one",
        "the target loses its next turn",
        "you form an investment without rolling",
        "every opponent discards a Strategy",
    ]
    return choice(
        f"What does {strategy(key).name} do?",
        answer,
        [w for w in wrongs if w != answer],
        {"kind": key},
        section=strategy(key).section,
    )


TEMPLATES: tuple[QuestionTemplate, ...] = (
    QuestionTemplate("strategies.colour_of", STRATEGIES, "6.1", _colour_of),
    QuestionTemplate("strategies.copies_of", STRATEGIES, "1.5", _copies_of),
    QuestionTemplate("strategies.colour_count", STRATEGIES, "1.5", _colour_count),
    QuestionTemplate("strategies.kinds", STRATEGIES, "1.5", _kinds),
    QuestionTemplate("strategies.blue_when", STRATEGIES, "6.3", _blue_when),
    QuestionTemplate("strategies.greens_per_investment", STRATEGIES, "6.4", _greens_per_investment),
    QuestionTemplate("strategies.no_limit", STRATEGIES, "6.6", _strategy_limit),
    QuestionTemplate("strategies.red_on_action", STRATEGIES, "6.2", _red_on_action),
    QuestionTemplate("combat.is_attack", COMBAT, "7.1", _is_attack),
    QuestionTemplate("combat.targets", COMBAT, "7.1", _targets),
    QuestionTemplate("combat.blues_per_window", COMBAT, "7.2", _blues_per_window),
    QuestionTemplate("combat.defence_order", COMBAT, "7.2", _defence_order),
    QuestionTemplate("combat.window_without_blue", COMBAT, "7.2", _window_without_blue),
    QuestionTemplate("combat.cards_to_discard", COMBAT, "7.2", _cards_to_discard),
    QuestionTemplate("combat.optimise_under_attack", COMBAT, "7.4", _optimise_under_attack),
    QuestionTemplate("combat.blue_by_effect", COMBAT, "12", _blue_by_effect),
    QuestionTemplate("cards.red_by_effect", CARDS, "12", _red_by_effect),
    QuestionTemplate("cards.draw_counts", CARDS, "12", _draw_counts),
    QuestionTemplate("cards.maximum_return", CARDS, "12.23", _maximum_return),
    QuestionTemplate("cards.short_investment", CARDS, "12.24", _short_investment),
    QuestionTemplate("cards.turn_effects", CARDS, "12", _shrewd_or_block),
)
"""Strategy, combat and card templates."""
