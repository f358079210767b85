"""Each shortcut of ``rules.apply`` is pinned to the general path (issue 15, STYLE 12).

``bench/shortcuts.py`` runs the same comparison over a million state/action
pairs; here a few thousand from seeded games of every mode, legal and not.
"""

from __future__ import annotations

from collections import Counter

from bench.shortcuts import compare, shortcut_pairs

PAIRS = 4000


def test_the_shortcuts_give_what_the_general_path_gives() -> None:
    kinds: Counter[tuple[str, bool]] = Counter()
    for number, (state, seat, action) in enumerate(shortcut_pairs(500)):
        kinds[action.kind, compare(state, seat, action)] += 1
        if number + 1 >= PAIRS:
            break
    # Every shortcut was met both legal and refused (the end of a turn is never refused).
    for kind in ("build", "discard"):
        assert kinds[kind, True] > 50 and kinds[kind, False] > 50, kinds
    assert kinds["end", True] > 10, kinds
