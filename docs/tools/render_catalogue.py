"""Writes section 12 of engine/market_fortune/rulebook.md from the card catalogue.

The Strategy catalogue lives once, as data, in ``engine/market_fortune/cards.py``.
This script renders it as section 12 of the rulebook (an overview table, then
one subsection per kind, 12.1 to 12.27) and replaces whatever stands between
the ``## 12`` and ``## 13`` headings. The rulings under each card are ours and
live here, beside the renderer, because the catalogue row only carries the
card's own effect text.

    python docs/tools/render_catalogue.py          # rewrite the section
    python docs/tools/render_catalogue.py --check  # exit 1 if the file is stale
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from engine.market_fortune.cards import CATALOGUE, StrategyKind

# The rulebook is package data of the game (the gateway serves it); this tool edits the source copy.
RULEBOOK = Path(__file__).resolve().parents[2] / "engine" / "market_fortune" / "rulebook.md"

SECTION_START = "## 12 Our card catalogue"
NEXT_SECTION = re.compile(r"^## 13 ", re.MULTILINE)

TARGETS: dict[tuple[str, str], str] = {
    ("red", "none"): "you alone (not an attack)",
    ("red", "one"): "one opponent you name (an attack, 7.1)",
    ("red", "all"): "every opponent (a group attack, 7.1)",
    ("red", "group"): "every opponent meeting its condition (a group attack, 7.1)",
    ("blue", "none"): "the attack on you (played in a defence window, 7.2)",
    ("green", "none"): "one of your investments (6.4)",
    ("yellow", "none"): "your portfolio at the count (6.5)",
}
"""How each colour and targeting reads in the rulebook."""

RULINGS: dict[str, str] = {
    "theft": (
        "The card is drawn at random from the target's building hand; the thief then "
        "discards any one building card (it may be the stolen one). Against an empty "
        "hand nothing is taken and nothing discarded. The target is left one card "
        "short and builds back up (4.1)."
    ),
    "market_crash": (
        "Hits every opponent, each in its own defence window (7.2). The lost Stocks and "
        "Returns go to their piles, an attached Innovation to the Strategy pile. It may "
        "be played even when nobody has an investment."
    ),
    "correction": (
        "Only a seat that is equal or further ahead (10.3) and holds at least one "
        "investment can be named. The target chooses which investment returns; both "
        "cards go to its hand, so its building total does not change."
    ),
    "fortune": (
        "Playable only with a pair you could invest (a same-industry pair, or any pair "
        "with Innovation). The investment is formed face down without a roll and "
        "Momentum gives a Strategy (3.5), which cannot be played this turn. A 4th "
        "investment formed this way opens the victory window (8.1)."
    ),
    "compound_interest": (
        "Playable only while you have an unmarked investment. The mark stays with the "
        "investment and is lost with it (Market Crash, Correction, Systemic Risk, a "
        "failed count)."
    ),
    "buy_more": (
        "Each draw is a separate choice among the four sources of 3.2; then two "
        "discards of your choice, any cards from your hand."
    ),
    "shrewd_move": (
        "When this turn ends the same seat starts a new turn. A Regulatory Block on "
        "that seat makes it lose the extra turn instead (3.6)."
    ),
    "federal_audit": (
        "You see the target's whole hand, building cards and Strategies; if it holds a "
        "Strategy you take one of your choice (Strategies have no limit, 6.6)."
    ),
    "negotiation": (
        "You choose the card you give; the card you take is drawn at random from the "
        "target's other building cards. With an empty hand you give nothing and still "
        "take one at random."
    ),
    "regulatory_block": (
        "The skipped turn still counts toward the turn limit (3.7). Blocking a seat "
        "twice before its turn still costs it only one turn."
    ),
    "liquidity": "The three draws come from the Stock or Return deck, never from a pile.",
    "inflation": (
        "Needs at least one opponent equal or further ahead (10.3); each of them, in "
        "clockwise order, defends or discards one building card of its own choice."
    ),
    "bailout": (
        "Only in last place (10.2). You may take any face-up card of either building "
        "pile, not only the top one; then discard one building card."
    ),
    "lucky_investor": (
        "One roll of the die: on \"+\" you draw two Strategies (as many as are left), on "
        "\"−\" nothing happens."
    ),
    "systemic_risk": (
        "Needs a leader (10.1) other than you. Each such leader, clockwise, defends or "
        "takes its most recent investment (5.3) back into its hand."
    ),
    "risk_control": "Both the attacking red and this card go to the Strategy discard pile.",
    "stablecoin": "The Strategy is drawn after the attack is cancelled (none if deck and pile are empty).",
    "diamond_hands": (
        "Answers only attacks that would take investments: Market Crash, Correction and "
        "Systemic Risk. The card stays in your hand, so the table learns its kind but "
        "can never see which copy you hold."
    ),
    "experience": (
        "You see the attacker's whole hand, building cards and Strategies, as it is "
        "when you defend."
    ),
    "wrong_analyst": (
        "The attack's effect now falls on the seat that sent it, which gets its own "
        "defence window (7.3). In a group attack every target that answers with Wrong "
        "Analyst sends the effect back once."
    ),
    "contingency_plan": (
        "The attacker's discarded card is drawn at random from its building hand "
        "(face down in Championship, 9.3)."
    ),
    "innovation": (
        "Offered as a third card of a Risk or Fortune pair of two industries. It stays "
        "attached and counts as that investment's one green (6.4); if the investment "
        "goes back to hand or is lost, Innovation goes to the Strategy discard pile."
    ),
    "maximum_return": (
        "Applied automatically at the count to the investment where it adds most; an "
        "investment with Innovation cannot take it."
    ),
    "short_investment": (
        "Applied automatically at the count, only where it raises the investment "
        "(an investment worth 6M or more gains nothing)."
    ),
    "booming_industry": "Counts the industries of the Stocks of your investments.",
    "diversification_king": "Needs four investments whose Stocks are of four different industries.",
    "dividends": "With two Dividends cards each adds its bonus.",
}
"""Our clarifications per Strategy key, where the effect line leaves a question."""


def targets_text(kind: StrategyKind) -> str:
    """The *Targets* line of a catalogue entry."""
    return TARGETS[(kind.colour, kind.targeting)]


def render_entry(kind: StrategyKind) -> str:
    """One subsection (``### 12.n Name``) of the catalogue."""
    ids = ", ".join(f"`{card_id}`" for card_id in kind.card_ids())
    lines = [
        f"### {kind.section} {kind.name}",
        "",
        f"- Colour: {kind.colour}",
        f"- Copies: {kind.copies}",
        f"- Targets: {targets_text(kind)}",
        f"- Card ids: {ids}",
        f"- Effect: {kind.effect}",
    ]
    ruling = RULINGS.get(kind.key)
    if ruling:
        lines.append(f"- Ruling: {ruling}")
    return "\n".join(lines) + "\n"


def render_section() -> str:
    """The whole of section 12, heading included, ending with a blank line."""
    overview = [
        "| section | card | colour | copies | targets |",
        "|---|---|---|---|---|",
        *(
            f"| {kind.section} | {kind.name} | {kind.colour} | {kind.copies} | {kind.targeting} |"
            for kind in CATALOGUE
        ),
    ]
    total = sum(kind.copies for kind in CATALOGUE)
    parts = [
        SECTION_START,
        "",
        f"The {len(CATALOGUE)} kinds of Strategy, {total} cards in all. **Printed:** the 27",
        "names, their colours, the 60 cards in four colours, the hints of the English",
        "FAQ and combat rules (Market Crash takes every undefended seat's investments",
        "with no replacement; a blue cancels an attack), and the Spanish V7's quick",
        "reference: \"La carta Fortuna evita el dado\" (Fortune skips the die; the English",
        "edition does not say it, 13.4). \"Each strategy's exact effect",
        "is printed on its card\", and the cards' texts are not published. **Ours:**",
        "everything else in this section: each effect and its numbers, the copy counts,",
        "which reds attack whom, the card ids and the rulings. The table gives the",
        "overview; each kind then has its own subsection. In the *targets* column,",
        "`none` means the card names no opponent, `one` one opponent you choose, `all`",
        "every opponent, and `group` every opponent that meets the card's condition.",
        "",
        *overview,
        "",
        *(render_entry(kind) for kind in CATALOGUE),
    ]
    return "\n".join(parts)


def rendered_rulebook(text: str) -> str:
    """``text`` (the rulebook) with section 12 replaced by :func:`render_section`."""
    start = text.index(SECTION_START)
    following = NEXT_SECTION.search(text, start)
    if following is None:
        raise ValueError("the rulebook has no section 13 after section 12")
    return text[:start] + render_section() + text[following.start() :]


def main(argv: list[str] | None = None) -> int:
    """Rewrite the rulebook, or with ``--check`` report whether it is stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if section 12 is stale")
    args = parser.parse_args(argv)
    current = RULEBOOK.read_text(encoding="utf-8")
    fresh = rendered_rulebook(current)
    if args.check:
        if fresh != current:
            print(f"{RULEBOOK} section 12 is stale: run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    RULEBOOK.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
