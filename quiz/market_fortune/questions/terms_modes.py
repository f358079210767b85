"""Questions on market terms (10) and the game modes (9)."""

from __future__ import annotations

import random

from engine.market_fortune.cards import (
    INVESTMENTS_TO_WIN,
    MATCH_GAME_LIMIT,
    MATCH_TARGET,
    MAX_SEATS,
    VICTORY_VALUE,
    strategy,
)
from quiz.market_fortune.questions.common import choice, integer, seat_list, yes_no
from quiz.questions import Draft, QuestionTemplate

__all__ = ["TEMPLATES", "last_place", "leaders"]

TERMS = "market_terms"
MODES = "modes"


def leaders(counts: list[int]) -> list[int]:
    """Seats with the most investments; nobody when nobody has any (10.1)."""
    top = max(counts)
    return [] if top == 0 else [seat for seat, n in enumerate(counts) if n == top]


def last_place(counts: list[int]) -> list[int]:
    """Seats with the fewest investments; nobody when every seat ties (10.2)."""
    low = min(counts)
    if all(n == low for n in counts):
        return []
    return [seat for seat, n in enumerate(counts) if n == low]


def _counts(rng: random.Random) -> list[int]:
    seats = rng.randint(3, MAX_SEATS)
    return [rng.randint(0, INVESTMENTS_TO_WIN - 1) for _ in range(seats)]


def _counts_words(counts: list[int]) -> str:
    return ", ".join(f"seat {seat}: {n}" for seat, n in enumerate(counts))


def _seat_options(rng: random.Random, counts: list[int], answer: list[int]) -> list[str]:
    """Wrong seat lists that look plausible: the other extreme, everyone, nobody, single seats."""
    seats = list(range(len(counts)))
    candidates = [leaders(counts), last_place(counts), seats, [], *([s] for s in seats)]
    texts: list[str] = []
    for candidate in candidates:
        text = seat_list(candidate)
        if candidate != answer and text not in texts:
            texts.append(text)
    rng.shuffle(texts)
    return texts[:3]


def _leader(rng: random.Random) -> Draft:
    counts = _counts(rng)
    answer = leaders(counts)
    return choice(
        f"Investments formed per seat: {_counts_words(counts)}. Which seats are leaders?",
        seat_list(answer),
        _seat_options(rng, counts, answer),
        {"counts": counts},
    )


def _last(rng: random.Random) -> Draft:
    counts = _counts(rng)
    if rng.random() < 0.15:
        counts = [counts[0]] * len(counts)  # the full tie: nobody is last
    answer = last_place(counts)
    return choice(
        f"Investments formed per seat: {_counts_words(counts)}. Which seats are in last place?",
        seat_list(answer),
        _seat_options(rng, counts, answer),
        {"counts": counts},
    )


def _equal_or_ahead(rng: random.Random) -> Draft:
    counts = _counts(rng)
    return integer(
        f"You are seat 0. Investments formed per seat: {_counts_words(counts)}. "
        "How many of your opponents are equal or further ahead of you?",
        sum(1 for n in counts[1:] if n >= counts[0]),
        counts=counts,
    )


def _building_card(rng: random.Random) -> Draft:
    kind, answer = rng.choice((("a Stock", True), ("a Return", True), ("a Strategy", False)))
    return yes_no(f"Is {kind} a building card?", answer, kind=kind)


def _correction_target(rng: random.Random) -> Draft:
    mine, theirs = rng.randint(0, 3), rng.randint(0, 3)
    correction = strategy("correction")
    # 12.3: the target must be equal or further ahead and hold an investment to return.
    return yes_no(
        f"You have {mine} investments and an opponent has {theirs}. On your Dominate turn, may you "
        f"target that opponent with {correction.name}?",
        theirs >= mine and theirs > 0,
        section=correction.section,
        mine=mine,
        theirs=theirs,
    )


def _bailout_allowed(rng: random.Random) -> Draft:
    counts = _counts(rng)
    bailout = strategy("bailout")
    return yes_no(
        f"You are seat 0. Investments formed per seat: {_counts_words(counts)}. The building "
        f"discard piles hold face-up cards. On your Dominate turn, may you play {bailout.name}?",
        0 in last_place(counts),
        section=bailout.section,
        counts=counts,
    )


def _family_win(rng: random.Random) -> Draft:
    return choice(
        "How does a seat win in Family mode?",
        "by forming its 4th investment, with no count",
        (
            f"by forming 4 investments worth {VICTORY_VALUE}M or more",
            f"by reaching {MATCH_TARGET}M over several games",
            "by holding the most Strategies at the turn limit",
        ),
    )


def _family_low_count(rng: random.Random) -> Draft:
    total = rng.randint(8, VICTORY_VALUE - 1)
    return yes_no(
        f"Family mode: you form your 4th investment and your four investments add up to {total}M. Do you win?",
        True,
        total=total,
    )


def _match_target(rng: random.Random) -> Draft:
    return integer("In Championship, what match total (in millions) wins the match?", MATCH_TARGET)


def _match_limit(rng: random.Random) -> Draft:
    return integer("After how many games does a Championship match end by its game cap?", MATCH_GAME_LIMIT)


_MODE_FACTS = (
    ("a match of consecutive games won by the first to reach a total of millions", "Championship"),
    ("forming four investments wins at once, with no count", "Family"),
    (f"four investments and a count of {VICTORY_VALUE}M or more win a single game", "Fortune"),
)


def _which_mode(rng: random.Random) -> Draft:
    description, mode = rng.choice(_MODE_FACTS)
    return choice(
        f"Which mode is this: {description}?",
        mode,
        [other for _, other in _MODE_FACTS if other != mode] + ["Sandbox"],
        {"mode": mode},
    )


_OPENER_OF: dict[str, str] = {
    "victory": "the winner of the first game",
    "turn_limit": "the seat that wins a new roll-off",
}
"""How the first game of a match ended -> who opens the second (2.3)."""


def _championship_opener(rng: random.Random) -> Draft:
    ended = rng.choice(sorted(_OPENER_OF))
    how = "a seat won it with its count" if ended == "victory" else "it ended by the turn limit, with no count"
    others = [text for key, text in _OPENER_OF.items() if key != ended]
    return choice(
        f"Under the default rules, in a Championship match the first game ended this way: {how}. "
        "Who opens the second game?",
        _OPENER_OF[ended],
        (*others, "the seat that scored least in the first game", "seat 0"),
        {"ended": ended},
        section="2.3",
    )


def _locked_discard(rng: random.Random) -> Draft:
    return yes_no(
        "In Championship, a building card discarded because of a Strategy lies face down on top of its "
        "pile. May another seat take it with a Build while it is the top card?",
        False,
    )


TEMPLATES: tuple[QuestionTemplate, ...] = (
    QuestionTemplate("terms.leaders", TERMS, "10.1", _leader),
    QuestionTemplate("terms.last_place", TERMS, "10.2", _last),
    QuestionTemplate("terms.equal_or_ahead", TERMS, "10.3", _equal_or_ahead),
    QuestionTemplate("terms.building_card", TERMS, "1.4", _building_card),
    QuestionTemplate("terms.correction_target", TERMS, "10.3", _correction_target),
    QuestionTemplate("terms.bailout_allowed", TERMS, "10.2", _bailout_allowed),
    QuestionTemplate("modes.family_win", MODES, "9.1", _family_win),
    QuestionTemplate("modes.family_low_count", MODES, "8.3", _family_low_count),
    QuestionTemplate("modes.match_target", MODES, "9.3", _match_target),
    QuestionTemplate("modes.match_limit", MODES, "9.3", _match_limit),
    QuestionTemplate("modes.which_mode", MODES, "9", _which_mode),
    QuestionTemplate("modes.championship_opener", MODES, "2.3", _championship_opener),
    QuestionTemplate("modes.locked_discard", MODES, "9.3", _locked_discard),
)
"""Market-term and mode templates."""
