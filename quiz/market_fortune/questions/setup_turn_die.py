"""Questions on components and setup (1, 2), the turn (3, 4) and the Fortune Die (1.3)."""

from __future__ import annotations

import random
from fractions import Fraction

from engine.market_fortune.cards import (
    BUILDING_TOTAL,
    CATALOGUE,
    DECK_SIZE,
    DIE_FACES,
    DIE_MINUS_FACES,
    DIE_PLUS_FACES,
    INDUSTRIES,
    MAX_SEATS,
    MIN_SEATS,
    RETURNS_DEALT,
    ROLL_OFF_LIMIT,
    STOCKS_DEALT,
    TOTAL_CARDS,
    TURN_LIMIT_PER_SEAT,
    VALUES,
)
from quiz.market_fortune.questions.common import choice, fraction_words, integer, yes_no
from quiz.questions import Draft, QuestionTemplate

__all__ = ["TEMPLATES"]

SETUP = "setup"
TURN = "turn_actions"
DIE = "die"


def _stocks_dealt(rng: random.Random) -> Draft:
    kind, count = rng.choice((("Stocks", STOCKS_DEALT), ("Returns", RETURNS_DEALT)))
    return integer(f"How many {kind} does each seat receive when the cards are dealt?", count, kind=kind)


def _building_dealt(rng: random.Random) -> Draft:
    seats = rng.randint(MIN_SEATS, MAX_SEATS)
    return integer(
        f"A table of {seats} seats is dealt. How many building cards are dealt in all, over every seat?",
        seats * (STOCKS_DEALT + RETURNS_DEALT),
        seats=seats,
    )


def _stock_deck_left(rng: random.Random) -> Draft:
    seats = rng.randint(MIN_SEATS, MAX_SEATS)
    return integer(
        f"Right after dealing a table of {seats} seats, how many cards are left in the Stock deck?",
        DECK_SIZE - seats * STOCKS_DEALT,
        seats=seats,
    )


def _strategies_dealt(rng: random.Random) -> Draft:
    return yes_no("Does any seat receive a Strategy card during setup?", False)


def _seats_allowed(rng: random.Random) -> Draft:
    seats = rng.randint(MIN_SEATS - 1, MAX_SEATS + 2)
    return yes_no(f"Can a Market Fortune table seat {seats} players?", MIN_SEATS <= seats <= MAX_SEATS, seats=seats)


def _first_player(rng: random.Random) -> Draft:
    return choice(
        "Every seat rolls the Fortune Die to decide who opens. Exactly one seat rolls a minus. Who opens?",
        "the seat that rolled the minus",
        ("a seat that rolled a plus, chosen at random", "seat 0, always", "the seat left of the only minus"),
    )


def _roll_off_limit(rng: random.Random) -> Draft:
    return integer(
        "After how many roll-off rounds without a single minus does the lowest-numbered seat still in open?",
        ROLL_OFF_LIMIT,
    )


def _total_cards(rng: random.Random) -> Draft:
    return integer("How many cards does the game have in all, over its three decks?", TOTAL_CARDS)


def _industries(rng: random.Random) -> Draft:
    return integer("How many industries do the building cards come from?", len(INDUSTRIES))


def _cards_of_value(rng: random.Random) -> Draft:
    value = rng.choice(VALUES)
    kind = rng.choice(("Stock", "Return"))
    return integer(
        f"How many {kind} cards worth {value}M are in the {kind} deck?",
        len(INDUSTRIES),
        value=value,
        kind=kind,
    )


def _actions_per_turn(rng: random.Random) -> Draft:
    return integer("How many main actions (Build, Risk or Dominate) does a seat take on one turn?", 1)


_ACTION_FACTS = (
    ("draws one Strategy and may then play one red", "Dominate", "3.4"),
    ("draws one building card from a deck or a discard top", "Build", "3.2"),
    ("rolls the die to form an investment from your hand", "Risk", "3.3"),
)


def _which_action(rng: random.Random) -> Draft:
    effect, name, _section = rng.choice(_ACTION_FACTS)
    others = [other for _, other, _ in _ACTION_FACTS if other != name] + ["Optimise"]
    return choice(f"Which main action {effect}?", name, others, {"action": name})


_BUILD_SOURCES = (
    ("the Stock deck", True),
    ("the Return deck", True),
    ("the top card of the Stock discard pile", True),
    ("the top card of the Return discard pile", True),
    ("the second card from the top of the Stock discard pile", False),
    ("the top card of the Strategy discard pile", False),
    ("the Strategy deck", False),
)


def _build_source(rng: random.Random) -> Draft:
    source, allowed = rng.choice(_BUILD_SOURCES)
    return yes_no(f"May a Build take its card from {source}?", allowed, source=source)


def _build_discard(rng: random.Random) -> Draft:
    total = rng.randint(BUILDING_TOTAL - 3, BUILDING_TOTAL)
    return integer(
        f"Before your Build your building total (hand plus investment cards) is {total}. "
        "By the Agents Club's own rule on Build discards (3.2, where the print always discards one), "
        "how many building cards must you discard after drawing?",
        1 if total + 1 > BUILDING_TOTAL else 0,
        total=total,
    )


def _building_total(rng: random.Random) -> Draft:
    investments = rng.randint(0, 3)
    return integer(
        f"At the end of your turn you have {investments} investments and no effect left you short. "
        "How many building cards does the 8-card rule let you hold in your hand at most?",
        BUILDING_TOTAL - 2 * investments,
        investments=investments,
    )


def _reds_per_turn(rng: random.Random) -> Draft:
    return integer("At most how many red Strategies may a seat play on one Dominate turn?", 1)


def _momentum_play(rng: random.Random) -> Draft:
    return yes_no(
        "Under the default rules, may you play the Strategy that Momentum just gave you in the same turn?",
        False,
    )


def _dominate_colour(rng: random.Random) -> Draft:
    kind = rng.choice(CATALOGUE)
    return yes_no(
        f"Your main action is Dominate and you draw {kind.name} ({kind.colour}). May you then play a red "
        "Strategy you kept from an earlier turn?",
        kind.colour == "red",
        kind=kind.key,
    )


def _turn_limit(rng: random.Random) -> Draft:
    return integer(
        "After how many turns per seat does a game that nobody won end by the turn limit?",
        TURN_LIMIT_PER_SEAT,
    )


def _die_faces(rng: random.Random) -> Draft:
    sign, count = rng.choice((("plus", DIE_PLUS_FACES), ("minus", DIE_MINUS_FACES), ("any", DIE_FACES)))
    if sign == "any":
        return integer("How many faces does the Fortune Die have?", DIE_FACES, sign=sign)
    return integer(f"How many faces of the Fortune Die show a {sign}?", count, sign=sign)


def _risk_chance(rng: random.Random) -> Draft:
    risks = rng.randint(1, 3)
    right = Fraction(DIE_PLUS_FACES, DIE_FACES) ** risks
    wrong = {
        Fraction(DIE_MINUS_FACES, DIE_FACES) ** risks,
        Fraction(1, 2) ** risks,
        Fraction(DIE_PLUS_FACES, DIE_FACES) ** (risks + 1),
        Fraction(5, 6) ** risks,
    } - {right}
    attempts = "one Risk succeeds" if risks == 1 else f"{risks} Risks in a row all succeed"
    return choice(
        f"What is the chance that {attempts}?",
        fraction_words(right),
        [fraction_words(w) for w in sorted(wrong)][:3],
        {"risks": risks},
    )


def _risk_minus(rng: random.Random) -> Draft:
    return choice(
        "Your Risk rolls a minus. What happens to the Stock and Return you chose?",
        "they stay in your hand and nobody else learns which cards they were",
        (
            "they go to the discard piles",
            "they are shown to the table and stay in your hand",
            "they are shuffled back into their decks",
        ),
    )


def _lucky_investor_needs_plus(rng: random.Random) -> Draft:
    fortune = next(kind for kind in CATALOGUE if kind.key == "fortune")
    return yes_no(f"Does playing {fortune.name} to form an investment involve rolling the die?", False)


TEMPLATES: tuple[QuestionTemplate, ...] = (
    QuestionTemplate("setup.cards_dealt", SETUP, "2.1", _stocks_dealt),
    QuestionTemplate("setup.building_dealt", SETUP, "2.1", _building_dealt),
    QuestionTemplate("setup.stock_deck_left", SETUP, "2.1", _stock_deck_left),
    QuestionTemplate("setup.strategies_dealt", SETUP, "2.1", _strategies_dealt),
    QuestionTemplate("setup.seats_allowed", SETUP, "2.1", _seats_allowed),
    QuestionTemplate("setup.first_player", SETUP, "2.2", _first_player),
    QuestionTemplate("setup.roll_off_limit", SETUP, "2.2", _roll_off_limit),
    QuestionTemplate("setup.total_cards", SETUP, "1.1", _total_cards),
    QuestionTemplate("setup.industries", SETUP, "1.2", _industries),
    QuestionTemplate("setup.cards_of_value", SETUP, "1.2", _cards_of_value),
    QuestionTemplate("turn.actions_per_turn", TURN, "3.1", _actions_per_turn),
    QuestionTemplate("turn.which_action", TURN, "3.1", _which_action),
    QuestionTemplate("turn.build_source", TURN, "3.2", _build_source),
    QuestionTemplate("turn.build_discard", TURN, "3.2", _build_discard),
    QuestionTemplate("turn.building_total", TURN, "4.1", _building_total),
    QuestionTemplate("turn.reds_per_turn", TURN, "3.4", _reds_per_turn),
    QuestionTemplate("turn.momentum_play", TURN, "3.5", _momentum_play),
    QuestionTemplate("turn.dominate_colour", TURN, "3.4", _dominate_colour),
    QuestionTemplate("turn.turn_limit", TURN, "3.7", _turn_limit),
    QuestionTemplate("die.faces", DIE, "1.3", _die_faces),
    QuestionTemplate("die.risk_chance", DIE, "1.3", _risk_chance),
    QuestionTemplate("die.risk_minus", DIE, "3.3", _risk_minus),
    QuestionTemplate("die.fortune_no_roll", DIE, "12.4", _lucky_investor_needs_plus),
)
"""Setup, turn-action and die templates."""
