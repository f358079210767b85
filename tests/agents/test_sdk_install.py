"""The SDK as users install it on its own: ``agents-club-sdk``, in a fresh virtual environment.

The wheels of ``sdk/`` and ``engine/`` are built from a copy of those folders
and installed into new virtual environments (no system site-packages: nothing of
this test's own environment, where the server is installed, is visible there).
Their dependencies come as in tests/test_wheel_install.py: what the SDK wheel
declares, transitively, is linked from this environment's installed files (from the
index when one is missing here), so exactly the declared dependencies are there and
``pip check`` confirms they are met.

Then, from a working directory outside the checkout, the installed SDK:

- brings httpx, pydantic and websockets, and no FastAPI, Starlette, uvicorn or Redis client;
- plays a table to its end against the real gateway (a bot of the user's own, the
  runner, typed answers), with no engine installed;
- explains, for each part that needs the engine (typed views, house bots), what to
  install; and with ``agents-club-sdk[engine]`` (pip resolves the extra to the engine
  wheel) those parts work.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
import venv
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from packaging.requirements import Requirement

from tests.test_wheel_install import (
    NOT_SOURCE,
    _installed_dependencies,
    _link,
    _run,
    _user_environment,
    _wheel_metadata,
)

if TYPE_CHECKING:
    from tests.agents.conftest import RunningGateway

ROOT = Path(__file__).resolve().parents[2]

SERVER_ONLY = {"agents-club", "agents-club-engine", "fastapi", "starlette", "uvicorn", "redis",
               "hiredis", "uvloop", "httptools", "mcp", "numpy", "pydantic-settings"}  # fmt: skip
"""Distributions of the server's that the SDK alone must not bring."""

ENGINE_HINT = "pip install 'agents-club-sdk[engine]'"


def test_the_sdk_declares_httpx_pydantic_websockets_and_the_engine_only_as_its_extra() -> None:
    project = tomllib.loads((ROOT / "sdk" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert sorted(Requirement(spec).name for spec in project["dependencies"]) == ["httpx", "pydantic", "websockets"]
    extras = {name: [Requirement(spec).name for spec in specs]
              for name, specs in project["optional-dependencies"].items()}  # fmt: skip
    assert extras == {"engine": ["agents-club-engine"]}
    # Each distribution's wheel carries the project's licence (a copy: a build sees only its folder).
    licence = (ROOT / "LICENSE").read_bytes()
    assert (ROOT / "sdk" / "LICENSE").read_bytes() == licence
    assert (ROOT / "engine" / "LICENSE").read_bytes() == licence


@dataclass(frozen=True)
class Installed:
    """A virtual environment holding the SDK, and how to run its Python as a user."""

    python: Path
    shell: dict[str, str]
    home: Path

    def run(self, script: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run ``script`` with the environment's Python, from the user's working directory."""
        command: list[str | Path] = [self.python, "-c", script, *args]
        if check:
            return _run(command, env=self.shell, cwd=self.home)
        return subprocess.run([str(part) for part in command], env=self.shell, cwd=self.home,
                              capture_output=True, text=True, timeout=120, check=False)  # fmt: skip


def _wheels(scratch: Path) -> dict[str, Path]:
    """The SDK's and the engine's wheels, by distribution name, built from a copy of
    their folders (setuptools writes ``build/`` into the folder it builds)."""
    folders = []
    for name in ("sdk", "engine"):
        shutil.copytree(ROOT / name, scratch / "source" / name, ignore=NOT_SOURCE)
        folders.append(scratch / "source" / name)
    wheels = scratch / "wheels"
    # The build backend is this environment's (setuptools is in the lock): no download.
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
          "--wheel-dir", wheels, *folders], timeout=120)  # fmt: skip
    return {_wheel_metadata(wheel)[0]: wheel for wheel in wheels.glob("*.whl")}


def _environment(where: Path, sdk_wheel: Path, requirement: str) -> Installed:
    """A new virtual environment with ``requirement`` (the SDK wheel, maybe with an extra)
    installed by pip from the wheels' folder, its dependencies as the module says."""
    venv.create(where, with_pip=False, symlinks=True)  # system_site_packages is False
    python = where / "bin" / "python"
    pip: list[str | Path] = [sys.executable, "-m", "pip", "--python", python]
    site = _run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
    dependencies = _installed_dependencies([sdk_wheel])
    if dependencies is not None:
        _link(dependencies, Path(site.stdout.strip()))
        _run([*pip, "install", "--quiet", "--no-index", "--find-links", sdk_wheel.parent,
              requirement], timeout=120)  # fmt: skip
    else:
        _run([*pip, "install", "--quiet", "--find-links", sdk_wheel.parent, requirement], timeout=240)
    _run([*pip, "check"], timeout=60)
    home = where.parent / f"{where.name}-home"
    home.mkdir()
    return Installed(python=python, shell=_user_environment(where), home=home)


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    built = _wheels(tmp_path_factory.mktemp("sdk-build"))
    assert set(built) == {"agents-club-sdk", "agents-club-engine"}, built
    return built


@pytest.fixture(scope="module")
def sdk_alone(wheels: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The SDK installed on its own: ``pip install agents-club-sdk``."""
    return _environment(tmp_path_factory.mktemp("sdk-alone") / "env", wheels["agents-club-sdk"],
                        "agents-club-sdk")


def test_the_sdk_alone_brings_httpx_and_pydantic_and_nothing_of_the_server(
    sdk_alone: Installed,
) -> None:
    probe = (
        "import importlib.metadata, json, sys, agents\n"
        "names = sorted(d.metadata['Name'].lower() for d in importlib.metadata.distributions())\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules})\n"
        "print(json.dumps({'installed': names, 'loaded': loaded, 'agents': agents.__file__}))\n"
    )
    found = json.loads(sdk_alone.run(probe).stdout)
    installed = set(found["installed"])
    assert {"agents-club-sdk", "httpx", "pydantic"} <= installed
    assert not installed & SERVER_ONLY, sorted(installed & SERVER_ONLY)
    assert not {"fastapi", "starlette", "uvicorn", "redis", "engine", "gateway"} & set(found["loaded"])
    assert Path(found["agents"]).is_relative_to(sdk_alone.python.parents[1])
    assert not Path(found["agents"]).resolve().is_relative_to(ROOT)
    for module in ("fastapi", "uvicorn", "redis", "engine", "gateway"):
        missing = sdk_alone.run(f"import {module}", check=False)
        assert "ModuleNotFoundError" in missing.stderr, (module, missing.stderr)


PLAY = """
import json, sys
from agents import Bot, Client, ObservationOut, Runner

class FirstListed(Bot):
    def choose(self, observation: ObservationOut) -> str:
        assert isinstance(observation.view, dict)  # the plain mapping: no engine needed
        return observation.legal_actions[0].id

base_url, token, game, mode, seats, options = sys.argv[1:7]
with Client(base_url, token=token) as client:
    names = [listed.name for listed in client.games().games]
    table = client.create_table(game, mode, int(seats), options=json.loads(options),
                                house_bots=[{"seat": seat} for seat in range(1, int(seats))])
    result = Runner(client, FirstListed(), printer=None).play(table.id)
    print(json.dumps({"games": names, "status": client.table(table.id).status,
                      "actions": result.actions, "winners": result.outcome.winners}))
"""


def test_the_sdk_alone_plays_a_table_against_the_real_gateway(
    sdk_alone: Installed, gateway: RunningGateway, short_game: dict[str, Any]
) -> None:
    token = gateway.mint(games=[short_game["game"]])
    played = sdk_alone.run(PLAY, gateway.base_url, token, short_game["game"], short_game["mode"],
                           str(short_game["seats"]), json.dumps(short_game["options"]))  # fmt: skip
    answer = json.loads(played.stdout)
    assert short_game["game"] in answer["games"]
    assert answer["status"] == "finished" and answer["actions"] > 0


@pytest.mark.parametrize(("what", "script"), [
    ("typed views", "import agents.views"),
    ("a house bot", "import agents; agents.HouseBot('greedy')"),
    ("a house bot by name", "import agents; agents.load_bot('random')"),
])
def test_the_engine_parts_say_what_to_install(sdk_alone: Installed, what: str, script: str) -> None:
    failed = sdk_alone.run(script, check=False)
    assert failed.returncode != 0, what
    last = failed.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError:") and ENGINE_HINT in last, (what, failed.stderr)


WITH_ENGINE = """
import importlib.metadata, json, sys
from agents import Client, HouseBot
from agents.views import typed_view

base_url, token, game, mode, seats, options = sys.argv[1:7]
with Client(base_url, token=token) as client:
    table = client.create_table(game, mode, int(seats), options=json.loads(options),
                                house_bots=[{"seat": seat} for seat in range(1, int(seats))])
    observation = client.observe(table.id, wait_s=10)
choice = HouseBot("greedy").choose(observation) if observation.legal_actions else None
names = sorted(d.metadata["Name"].lower() for d in importlib.metadata.distributions())
print(json.dumps({"installed": names, "view": type(typed_view(observation)).__name__,
                  "legal": [option.id for option in observation.legal_actions],
                  "choice": choice}))
"""


def test_the_engine_extra_brings_the_engine_and_its_parts_work(
    wheels: dict[str, Path], tmp_path: Path, gateway: RunningGateway, short_game: dict[str, Any]
) -> None:
    # pip resolves the extra by name, from the wheels' folder (no URL in the metadata).
    with_engine = _environment(tmp_path / "env", wheels["agents-club-sdk"], "agents-club-sdk[engine]")
    token = gateway.mint(games=[short_game["game"]])
    found = json.loads(with_engine.run(
        WITH_ENGINE, gateway.base_url, token, short_game["game"], short_game["mode"],
        str(short_game["seats"]), json.dumps(short_game["options"])).stdout)
    assert "agents-club-engine" in found["installed"]
    assert not set(found["installed"]) & (SERVER_ONLY - {"agents-club-engine"})
    assert found["view"].endswith("View"), found["view"]
    assert found["choice"] in found["legal"] if found["legal"] else found["choice"] is None
