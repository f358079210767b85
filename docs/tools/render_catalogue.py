"""Writes section 12 of docs/market-fortune.md from the card catalogue.

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

RULEBOOK = Path(__file__).resolve().parents[1] / "market-fortune.md"

SECTION_START = "## 12 Strategy catalogue"
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

RULINGS: dict[str, str] = {}
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
        f"The {len(CATALOGUE)} kinds of Strategy, {total} cards in all. The table gives the",
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
