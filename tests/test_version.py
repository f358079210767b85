"""One release version, set in one place (``version`` in pyproject.toml), reported by
``agents-club --version`` and ``/healthz`` (tests/gateway/test_platform.py), and
described in CHANGELOG.md. The SDK (``sdk/``) and the engine (``engine/``) are
released with the server: their own pyproject.toml carries the same version, and the
server requires exactly that one of each."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from agents_club_cli.main import main
from gateway import __version__

ROOT = Path(__file__).resolve().parents[1]


def _pyproject_version() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project.get("dynamic", [])
    return str(project["version"])


def test_the_package_reports_the_pyproject_version() -> None:
    # An editable install made before the field changed reports the old one: ./run reinstalls.
    assert __version__ == _pyproject_version()


def test_agents_club_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"agents-club {_pyproject_version()}\n"


def test_the_changelog_has_unreleased_and_the_current_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[([^\]]+)\]", changelog, re.MULTILINE)
    assert versions[0] == "Unreleased", "the newest section is the one changes go into"
    assert _pyproject_version() in versions[1:], "the released version has its section"
    # Keep a Changelog: a released section carries its ISO date.
    dated = re.findall(r"^## \[([^\]]+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.MULTILINE)
    assert dated == versions[1:]


def test_the_sdk_and_the_engine_are_released_with_the_server() -> None:
    version = _pyproject_version()
    projects = {folder: tomllib.loads((ROOT / folder / "pyproject.toml").read_text(encoding="utf-8"))
                for folder in ("", "sdk", "engine")}  # fmt: skip
    assert {folder: project["project"]["version"] for folder, project in projects.items()} == {
        "": version, "sdk": version, "engine": version}
    requirements = [Requirement(spec) for spec in [
        *projects[""]["project"]["dependencies"],
        *projects["sdk"]["project"]["optional-dependencies"]["engine"],
    ]]
    pinned = {(r.name, str(r.specifier)) for r in requirements if r.name.startswith("agents-club")}
    assert pinned == {("agents-club-sdk", f"=={version}"), ("agents-club-engine", f"=={version}")}


def test_the_engine_distribution_lists_every_package_of_its_folder() -> None:
    # engine/pyproject.toml maps the package onto its own folder and lists the
    # subpackages by hand: a new game's package must be listed, or its wheel lacks it.
    # A package is a folder with an __init__.py inside a package, as Python imports it:
    # what a build leaves in the folder (engine/build/lib/engine/...) is none.
    project = tomllib.loads((ROOT / "engine" / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(project["tool"]["setuptools"]["packages"])

    def packages(folder: Path, name: str) -> set[str]:
        return {name}.union(*(packages(sub, f"{name}.{sub.name}") for sub in folder.iterdir()
                              if (sub / "__init__.py").is_file()))  # fmt: skip

    assert listed == packages(ROOT / "engine", "engine")

