"""Finding a local gateway's organiser key, the same way for every subcommand."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DATA_DIR_ENV", "KEY_ENV", "default_data_dir", "find_organiser_key"]

KEY_ENV = "AGENTS_CLUB_ORGANISER_KEY"
DATA_DIR_ENV = "AGENTS_CLUB_DATA_DIR"


def default_data_dir() -> Path:
    """Where a local ``agents-club serve`` keeps its keys: ``$AGENTS_CLUB_DATA_DIR`` or ``.data``."""
    return Path(os.environ.get(DATA_DIR_ENV, ".data"))


def find_organiser_key(given: str | None, data_dir: Path) -> str | None:
    """``given`` (from ``--organiser-key`` or ``$AGENTS_CLUB_ORGANISER_KEY``), else the key file
    a local server wrote into ``data_dir``; ``None`` when there is neither."""
    if given:
        return given
    from gateway.keys import ORGANISER_KEY_FILE  # the file serve writes; imported only when asked

    try:
        return (data_dir / ORGANISER_KEY_FILE).read_text(encoding="ascii").strip() or None
    except OSError:  # no local server here, or not ours to read: the caller says what to pass
        return None
