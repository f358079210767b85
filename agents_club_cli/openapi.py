"""Write the gateway's OpenAPI document to ``openapi/openapi.json``.

The output is deterministic (sorted keys, two-space indent, trailing newline)
so the committed file only changes when the API does; the test
``tests/gateway/test_openapi.py`` fails when the committed file and the app
disagree. The app is built with throwaway development settings: building the
document touches neither Redis nor the real data directory.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_OUTPUT", "add_arguments", "openapi_document", "render", "run"]

DEFAULT_OUTPUT = Path("openapi/openapi.json")


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document of the gateway as the code defines it now."""
    from gateway.app import create_app
    from gateway.config import Settings

    with tempfile.TemporaryDirectory(prefix="agents-club-openapi-") as scratch:
        settings = Settings.model_validate(
            {"environment": "development", "data_dir": Path(scratch), "log_level": "WARNING"}
        )
        return create_app(settings).openapi()


def render(document: dict[str, Any]) -> str:
    """The document as committed: sorted keys, indent 2, newline at the end."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output", "-o", type=Path, default=DEFAULT_OUTPUT,
                        help=f"where to write (default {DEFAULT_OUTPUT}; '-' for stdout)")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 when the file differs from the app")


def run(args: argparse.Namespace) -> int:
    """Write (or check) the document; returns the exit code."""
    text = render(openapi_document())
    output: Path = args.output
    if str(output) == "-":
        sys.stdout.write(text)
        return 0
    if args.check:
        current = output.read_text(encoding="utf-8") if output.exists() else ""
        if current != text:
            print(f"{output} is out of date: run `agents-club openapi`", file=sys.stderr)
            return 1
        return 0
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    print(f"wrote {output}")
    return 0
