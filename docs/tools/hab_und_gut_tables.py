"""Writes the component tables of engine/hab_und_gut/rulebook.md from the engine's data.

The price track, the market cards and the share cards live once, as data, in
``engine/hab_und_gut/components.py``. Each table sits between a pair of marker
comments in the rulebook (``<!-- table:track -->`` ... ``<!-- /table:track -->``);
this script replaces what stands between them.

    python docs/tools/hab_und_gut_tables.py          # rewrite the tables
    python docs/tools/hab_und_gut_tables.py --check  # exit 1 if the file is stale
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

from engine.hab_und_gut.components import (
    COMMODITIES,
    MARKET_CARDS,
    SHARE_CARDS,
    START_SPACE,
    TRACK,
)

# The rulebook is package data of the game (the gateway serves it); this tool edits the source copy.
RULEBOOK = Path(__file__).resolve().parents[2] / "engine" / "hab_und_gut" / "rulebook.md"


def track_table() -> str:
    """The 30 spaces of a price track and the price printed on each."""
    rows = ["| space | price |", "|---:|---:|"]
    for space, price in enumerate(TRACK):
        mark = " (start)" if space == START_SPACE else ""
        rows.append(f"| {space} | {price}{mark} |")
    return "\n".join(rows)


def market_table() -> str:
    """Market cards per commodity and value, with their ids."""
    values = sorted({card.value for card in MARKET_CARDS.values()}, reverse=True)
    rows = [
        "| commodity | " + " | ".join(f"{v:+d}" for v in values) + " | cards |",
        "|---|" + "---:|" * len(values) + "---:|",
    ]
    for commodity in COMMODITIES:
        counts = Counter(c.value for c in MARKET_CARDS.values() if c.commodity == commodity)
        rows.append(
            f"| {commodity} | "
            + " | ".join(str(counts[v]) for v in values)
            + f" | {sum(counts.values())} |"
        )
    ids = ", ".join(f"`{card_id}`" for card_id in MARKET_CARDS if card_id.startswith("M.coal."))
    halves = ", ".join(f"{v:+d} → {v // 2:+d}" for v in values)
    return "\n".join(
        [
            *rows,
            "",
            f"Halving moves: {halves}.",
            "",
            f"Card ids have the form `M.<commodity>.<value>.<copy>`; coal's are {ids}.",
        ]
    )


def share_table() -> str:
    """Share cards per commodity, with their id range."""
    rows = ["| commodity | shares | ids |", "|---|---:|---|"]
    for commodity in COMMODITIES:
        ids = sorted(c.id for c in SHARE_CARDS.values() if c.commodity == commodity)
        rows.append(f"| {commodity} | {len(ids)} | `{ids[0]}` … `{ids[-1]}` |")
    return "\n".join(rows)


TABLES = {"track": track_table, "market": market_table, "shares": share_table}
"""Marker name -> renderer."""


def render(text: str) -> str:
    """``text`` with every marked table replaced by its rendering from the engine."""
    for name, renderer in TABLES.items():
        pattern = re.compile(rf"(<!-- table:{name} -->\n).*?(<!-- /table:{name} -->)", re.DOTALL)
        if not pattern.search(text):
            raise ValueError(f"the rulebook has no table:{name} markers")
        text = pattern.sub(lambda m, r=renderer: m.group(1) + r() + "\n" + m.group(2), text)  # type: ignore[misc]
    return text


def main(argv: list[str] | None = None) -> int:
    """Rewrite the tables, or with ``--check`` report whether they are stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if the tables are stale")
    args = parser.parse_args(argv)
    current = RULEBOOK.read_text(encoding="utf-8")
    wanted = render(current)
    if args.check:
        if wanted != current:
            print(f"{RULEBOOK} tables are stale: run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    RULEBOOK.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
