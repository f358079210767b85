"""Write the gateway's OpenAPI document to ``openapi/openapi.json`` (and the socket's
AsyncAPI document beside it, ``openapi/asyncapi.json``).

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

__all__ = [
    "DEFAULT_OUTPUT",
    "add_arguments",
    "contract_removals",
    "openapi_document",
    "removal_needs_version_raise",
    "render",
    "run",
]

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


_METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def _operations(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Operations by ``operationId`` (``METHOD path`` when one has none)."""
    found: dict[str, dict[str, Any]] = {}
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            if method in _METHODS:
                found[operation.get("operationId") or f"{method.upper()} {path}"] = {
                    **operation, "x-where": f"{method.upper()} {path}"}
    return found


def _error_codes(document: dict[str, Any]) -> set[str]:
    """Every problem ``code`` some operation documents (the keys of its problem examples)."""
    codes: set[str] = set()
    for operation in _operations(document).values():
        for answer in operation.get("responses", {}).values():
            media = answer.get("content", {}).get("application/problem+json", {})
            codes.update(media.get("examples", {}))
    return codes


def contract_removals(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What ``new`` no longer has of ``old``, one line each: operations (and where they were
    served), their parameters, schemas, schema fields and error codes. A rename shows as the
    removal of the old name. Additions are never listed: they are compatible (docs/api.md)."""
    removed: list[str] = []
    old_operations, new_operations = _operations(old), _operations(new)
    for operation_id, operation in sorted(old_operations.items()):
        kept = new_operations.get(operation_id)
        if kept is None:
            removed.append(f"operation {operation_id} ({operation['x-where']})")
            continue
        if kept["x-where"] != operation["x-where"]:
            removed.append(f"operation {operation_id} at {operation['x-where']}")
        kept_parameters = {(each["in"], each["name"]) for each in kept.get("parameters", [])}
        for parameter in operation.get("parameters", []):
            if (parameter["in"], parameter["name"]) not in kept_parameters:
                removed.append(
                    f"parameter {parameter['name']} ({parameter['in']}) of {operation_id}")
    old_schemas = old.get("components", {}).get("schemas", {})
    new_schemas = new.get("components", {}).get("schemas", {})
    for name, schema in sorted(old_schemas.items()):
        if name not in new_schemas:
            removed.append(f"schema {name}")
            continue
        kept_fields = set(new_schemas[name].get("properties", {}))
        removed.extend(f"field {name}.{field}" for field in sorted(schema.get("properties", {}))
                       if field not in kept_fields)
    removed.extend(f"error code {code}" for code in sorted(_error_codes(old) - _error_codes(new)))
    return removed


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("+")[0].split("-")[0].split("."))


def removal_needs_version_raise(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """Why ``new`` may not replace ``old``: it removes something and its ``info.version``
    does not raise the major version (docs/api.md); ``None`` when it may."""
    removed = contract_removals(old, new)
    if not removed:
        return None
    old_version, new_version = old["info"]["version"], new["info"]["version"]
    if _version(new_version)[0] > _version(old_version)[0]:
        return None
    return (f"the API removes or renames what version {old_version} published, without raising "
            f"info.version's major (now {new_version}; gateway.app.API_VERSION): "
            + "; ".join(removed))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output", "-o", type=Path, default=DEFAULT_OUTPUT,
                        help=f"where to write (default {DEFAULT_OUTPUT}; '-' for stdout)")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 when the file differs from the app")


def run(args: argparse.Namespace) -> int:
    """Write (or check) the document, and the socket's AsyncAPI document beside it
    (:mod:`agents_club_cli.asyncapi`); returns the exit code."""
    from agents_club_cli.asyncapi import ASYNCAPI_FILE, asyncapi_document

    text = render(openapi_document())
    output: Path = args.output
    if str(output) == "-":
        sys.stdout.write(text)
        return 0
    documents = {output: text, output.parent / ASYNCAPI_FILE: render(asyncapi_document())}
    if args.check:
        stale = [path for path, wanted in documents.items()
                 if (path.read_text(encoding="utf-8") if path.exists() else "") != wanted]
        for path in stale:
            print(f"{path} is out of date: run `agents-club openapi`", file=sys.stderr)
        return 1 if stale else 0
    output.parent.mkdir(parents=True, exist_ok=True)
    for path, wanted in documents.items():
        path.write_text(wanted, encoding="utf-8")
        print(f"wrote {path}")
    return 0
