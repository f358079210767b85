"""The lock (requirements/*.txt) pins every dependency pyproject.toml declares, within its bounds.

``./run`` and CI install the lock, not pyproject.toml: a dependency added to
pyproject.toml without ``./run lock`` would be missing (or outside its new
bounds) everywhere but on the machine of whoever added it.

The repository holds three distributions: the server (the root), the SDK
(``sdk/``) and the engine (``engine/``). The lock pins what each of them
needs, and never the repository's own ones: those are on no package index, so
the lock leaves them out and they are installed from their folders (an index's
``agents-club-sdk`` would be someone else's).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = [ROOT, *sorted(path.parent for path in ROOT.glob("*/pyproject.toml"))]
"""The folders of the repository's distributions: the root, and any one folder down."""
PROJECTS = [tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]
            for folder in FOLDERS]  # fmt: skip
PROJECT = PROJECTS[0]
OWN = {canonicalize_name(project["name"]) for project in PROJECTS}
"""The repository's own distributions: never pinned by the lock."""
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.MULTILINE)


def _runtime() -> list[str]:
    """What any distribution of the repository needs at run time, but one another."""
    return [spec for project in PROJECTS for spec in project["dependencies"]
            if canonicalize_name(Requirement(spec).name) not in OWN]  # fmt: skip


def _extras() -> list[str]:
    return [spec for project in PROJECTS
            for extra in project.get("optional-dependencies", {}).values() for spec in extra
            if canonicalize_name(Requirement(spec).name) not in OWN]  # fmt: skip


def _pins(lock: str) -> dict[str, set[Version]]:
    pins: dict[str, set[Version]] = {}
    for name, version in PIN.findall((ROOT / "requirements" / lock).read_text(encoding="utf-8")):
        pins.setdefault(canonicalize_name(name), set()).add(Version(version))
    return pins


@pytest.mark.parametrize("lock, declared", [
    ("main.txt", _runtime()),
    ("dev.txt", [*_runtime(), *_extras()]),
])
def test_the_lock_pins_every_declared_dependency_within_its_bounds(
    lock: str, declared: list[str]
) -> None:
    pins = _pins(lock)
    wrong = []
    for spec in declared:
        requirement = Requirement(spec)
        versions = pins.get(canonicalize_name(requirement.name), set())
        if not versions or not any(requirement.specifier.contains(v, prereleases=True)
                                   for v in versions):
            wrong.append(f"{spec} (locked: {sorted(map(str, versions)) or 'nothing'})")
    assert not wrong, f"requirements/{lock} is stale; run ./run lock: {wrong}"


def test_every_declared_dependency_has_an_upper_bound() -> None:
    """A major release must not reach an install before someone raised the bound."""
    declared = [spec for project in PROJECTS
                for spec in [*project["dependencies"],
                             *(s for extra in project.get("optional-dependencies", {}).values()
                               for s in extra)]]  # fmt: skip
    unbounded = [spec for spec in declared
                 if not any(s.operator in ("<", "<=", "==", "~=")
                            for s in Requirement(spec).specifier)]
    assert not unbounded, f"add an upper bound on the major version: {unbounded}"



@pytest.mark.parametrize("lock", ["main.txt", "dev.txt"])
def test_the_lock_leaves_the_repositorys_own_distributions_to_their_folders(lock: str) -> None:
    """``./run lock`` reads them from their folders (requirements/local.in) and leaves them
    out (``--no-emit-package``): a pin would send pip to an index for them."""
    assert not OWN & set(_pins(lock)), f"requirements/{lock} pins {sorted(OWN & set(_pins(lock)))}"
    local = (ROOT / "requirements" / "local.in").read_text(encoding="utf-8").split("\n")
    listed = {(ROOT / line.strip()).resolve() for line in local
              if line.strip() and not line.startswith("#")}  # fmt: skip
    assert listed == set(FOLDERS[1:]), "requirements/local.in lists every distribution folder"
    run = (ROOT / "run").read_text(encoding="utf-8")
    for project in PROJECTS[1:]:
        assert f"--no-emit-package {project['name']}" in run, project["name"]
