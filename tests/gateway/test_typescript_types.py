"""The committed TypeScript types (clients/typescript/) are what openapi-typescript makes
of the app's document, like openapi/openapi.json is what the app serves.

The generator is pinned in clients/typescript/package.json and its lock; CI
installs it (`npm ci` in .ci/run) before the suite, so this test runs there.
Elsewhere, without node or without `npm ci`, it skips and says how to run it,
unless ``AGENTS_CLUB_REQUIRE_NODE=1`` (CI sets it) makes that a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agents_club_cli.asyncapi import asyncapi_document
from agents_club_cli.openapi import openapi_document, render

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "typescript"
COMMITTED = CLIENT / "agents-club.d.ts"
COMMITTED_SOCKET = CLIENT / "agents-club-socket.d.ts"
GENERATOR = CLIENT / "node_modules" / ".bin" / "openapi-typescript"


def _generator() -> Path:
    missing = None
    if shutil.which("node") is None:
        missing = "node is not installed"
    elif not GENERATOR.exists():
        missing = "the pinned generator is not installed (run `npm ci` in clients/typescript)"
    if missing is not None:
        if os.environ.get("AGENTS_CLUB_REQUIRE_NODE") == "1":
            pytest.fail(f"TypeScript drift test cannot run: {missing}")
        pytest.skip(f"TypeScript types NOT CHECKED: {missing}")
    return GENERATOR


def test_committed_typescript_types_match_the_app(tmp_path: Path) -> None:
    generator = _generator()
    document = tmp_path / "openapi.json"
    document.write_text(render(openapi_document()), encoding="utf-8")
    output = tmp_path / "agents-club.d.ts"
    run = subprocess.run([str(generator), str(document), "--output", str(output)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert COMMITTED.read_text(encoding="utf-8") == output.read_text(encoding="utf-8"), (
        "clients/typescript/agents-club.d.ts differs from the app's document: run "
        "`.venv/bin/agents-club openapi`, then `npm run generate` in clients/typescript, "
        "and commit both"
    )
    for operation_id in ("submit_action", "observe_table", "create_table"):
        assert f'{operation_id}: {{' in output.read_text(encoding="utf-8")


def test_committed_socket_types_match_the_asyncapi_document(tmp_path: Path) -> None:
    """The WebSocket's message types (clients/typescript/agents-club-socket.d.ts) are what
    the same generator makes of openapi/asyncapi.json's schemas (socket-types.mjs)."""
    _generator()
    document = tmp_path / "asyncapi.json"
    document.write_text(render(asyncapi_document()), encoding="utf-8")
    output = tmp_path / "agents-club-socket.d.ts"
    run = subprocess.run(["node", str(CLIENT / "socket-types.mjs"), str(document), str(output)],
                         capture_output=True, text=True, timeout=120, check=False, cwd=CLIENT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert COMMITTED_SOCKET.read_text(encoding="utf-8") == output.read_text(encoding="utf-8"), (
        "clients/typescript/agents-club-socket.d.ts differs from openapi/asyncapi.json: run "
        "`.venv/bin/agents-club openapi`, then `npm run generate` in clients/typescript, "
        "and commit both"
    )
    for message in ("ClientMessage", "ServerMessage", "ActMessage", "ObservationMessage"):
        assert f"{message}: " in output.read_text(encoding="utf-8")
