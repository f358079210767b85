"""A standard generator reads the document whole, and what it generates plays a table.

``openapi-spec-validator`` validates the app's document; ``openapi-python-client``
(the pinned 0.29 series) generates a client from it into a temporary directory
(nothing is cached in the repository) with no warning and one module per
operation; then that generated client, and nothing of ours, plays a whole
table against the real app under uvicorn: it opens a table against a house
bot, observes and acts until the end.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import redis
from openapi_spec_validator import validate

from agents_club_cli.openapi import openapi_document, render
from gateway.app import create_app
from gateway.security import TokenService
from tests.agents.conftest import SHORT_GAME_OPTIONS, sdk_settings, serve_app

PACKAGE = "agents_club_client"
GENERATION_BUDGET_S = 60
"""The generator's own run takes about 10 s here (most of it its ruff post-hooks)."""


def test_the_document_is_valid_openapi() -> None:
    validate(openapi_document())


class Generated:
    def __init__(self, root: Path, output: str) -> None:
        self.root = root
        self.output = output

    def module(self, name: str) -> ModuleType:
        return importlib.import_module(f"{PACKAGE}.{name}")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Generated]:
    """The client ``openapi-python-client`` generates from the app's document, importable."""
    work = tmp_path_factory.mktemp("generated-client")
    document = work / "openapi.json"
    document.write_text(render(openapi_document()), encoding="utf-8")
    # Its post-hooks run ruff, found on PATH: the one in this environment.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    started = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(document),
         "--output-path", str(work / "out"), "--meta", "none"],
        capture_output=True, text=True, env=env, timeout=GENERATION_BUDGET_S, check=False,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert time.monotonic() - started < GENERATION_BUDGET_S
    # With --meta none the output directory is the package itself.
    (work / "pkg").mkdir()
    (work / "out").rename(work / "pkg" / PACKAGE)
    sys.path.insert(0, str(work / "pkg"))
    try:
        yield Generated(work / "pkg" / PACKAGE, output)
    finally:
        sys.path.remove(str(work / "pkg"))
        for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def test_the_generator_warns_of_nothing(generated: Generated) -> None:
    assert "warning" not in generated.output.lower(), generated.output
    assert "error" not in generated.output.lower(), generated.output


def test_every_operation_is_generated(generated: Generated) -> None:
    operation_ids = {
        operation["operationId"]
        for item in openapi_document()["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }
    modules = {path.stem for path in (generated.root / "api").glob("*/*.py")} - {"__init__"}
    assert operation_ids - modules == set()
    assert "submit_action" in modules


@pytest.fixture()
def gateway(redis_url: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """The real app under uvicorn on a free loopback port, and a token for Market Fortune."""
    namespace = f"test-gen-{uuid.uuid4().hex[:10]}"
    app = create_app(sdk_settings(redis_url, namespace, tmp_path))
    tokens: TokenService = app.state.tokens
    token = tokens.issue(agent_id="generated", name="generated", scopes={"game:market-fortune"},
                        kind="agent").token
    try:
        with serve_app(app) as url:
            yield url, token
    finally:
        with redis.Redis.from_url(redis_url) as cleanup:
            keys = list(cleanup.scan_iter(match=f"{namespace}:*", count=1000))
            if keys:
                cleanup.delete(*keys)


def test_the_generated_client_plays_a_table_to_its_end(
    generated: Generated, gateway: tuple[str, str]
) -> None:
    url, token = gateway
    client_module = generated.module("client")
    with client_module.AuthenticatedClient(base_url=url, token=token) as client:
        actions = _play(client, generated)
    assert actions > 0


def _play(client: Any, generated: Generated) -> int:
    """Open a table against a house bot and play seat 0 to the end; how many actions it sent."""
    models = generated.module("models")
    create_table = generated.module("api.tables.create_table")
    observe_table = generated.module("api.tables.observe_table")
    submit_action = generated.module("api.tables.submit_action")
    get_replay = generated.module("api.tables.get_replay")
    options = models.CreateTableRequestOptions.from_dict(SHORT_GAME_OPTIONS["market-fortune"])
    table = create_table.sync(client=client, body=models.CreateTableRequest(
        game="market-fortune", mode="family", seats=2, options=options, seed=7,
        house_bots=[models.HouseBotSeat(seat=1, bot="random")]))
    assert isinstance(table, models.TableOut), table
    assert table.status == models.TableOutStatus.PLAYING
    actions = 0
    for _ in range(1000):
        seen = observe_table.sync(table.id, client=client, wait=5)
        assert isinstance(seen, models.ObservationOut), seen
        if seen.status == models.ObservationOutStatus.FINISHED:
            break
        if not seen.legal_actions:
            continue
        assert isinstance(seen.view, models.ObservationOutViewType0)
        assert seen.view.additional_properties["game"] == "market-fortune"
        choice = seen.legal_actions[actions % len(seen.legal_actions)].id
        # The structured form for every other action: both arms of the action union work.
        action: Any = choice if actions % 2 else models.ActionObject.from_dict(
            _structured(seen.game, choice))
        result = submit_action.sync(
            table.id, client=client,
            body=models.ActionRequest(version=seen.version, action=action),
            idempotency_key=f"generated-{seen.version}",
        )
        assert isinstance(result, models.ActionResult), result
        actions += 1
    else:
        pytest.fail("the table did not end in 1000 observations")
    replay = get_replay.sync(table.id, client=client)
    assert isinstance(replay, models.ReplayOut), replay
    assert replay.outcome is not None and replay.seed == 7
    assert sum(entry.seat == 0 and entry.by == models.LogEntryOutBy.AGENT
               for entry in replay.log) == actions
    return actions


def _structured(game: str, action_id: str) -> dict[str, Any]:
    """The structured wire form of a legal action id, as a client of another language
    would write it from the game's documentation (here: from the engine's own model)."""
    from engine.registry import get_game

    structured: dict[str, Any] = json.loads(get_game(game).parse_action(action_id).model_dump_json())
    return structured
