"""What the pyproject.toml files declare, and how uv.lock takes the repository's own names.

That uv.lock matches the pyproject.toml files is uv's own check: ``./run`` installs with
``uv sync --locked``, which refuses a stale lock (``./run lock`` rewrites it).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = [ROOT, *sorted(path.parent for path in ROOT.glob("*/pyproject.toml"))]
"""The folders of the repository's distributions: the root, and any one folder down."""
PYPROJECTS = [tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
              for folder in FOLDERS]  # fmt: skip
OWN = {canonicalize_name(pyproject["project"]["name"]) for pyproject in PYPROJECTS}


def test_every_declared_dependency_has_an_upper_bound() -> None:
    """A major release must not reach an install before someone raised the bound."""
    declared = [spec for pyproject in PYPROJECTS
                for spec in [*pyproject["project"]["dependencies"],
                             *(s for extra in pyproject["project"].get("optional-dependencies", {}).values()
                               for s in extra)]]  # fmt: skip
    unbounded = [spec for spec in declared
                 if not any(s.operator in ("<", "<=", "==", "~=")
                            for s in Requirement(spec).specifier)]
    assert not unbounded, f"add an upper bound on the major version: {unbounded}"


def test_every_distribution_folder_is_a_workspace_member() -> None:
    workspace = PYPROJECTS[0]["tool"]["uv"]["workspace"]["members"]
    assert {(ROOT / member).resolve() for member in workspace} == set(FOLDERS[1:])


def test_the_lock_takes_the_repositorys_own_distributions_from_their_folders() -> None:
    """An index's ``agents-club-sdk`` would be someone else's: every requirement of one of
    our names has a workspace source, and the lock has each from its folder."""
    for pyproject in PYPROJECTS:
        sources = pyproject.get("tool", {}).get("uv", {}).get("sources", {})
        project = pyproject["project"]
        specs = [*project["dependencies"],
                 *(s for extra in project.get("optional-dependencies", {}).values() for s in extra)]
        for spec in specs:
            name = canonicalize_name(Requirement(spec).name)
            if name in OWN:
                assert sources.get(name) == {"workspace": True}, (project["name"], name)
    lock = tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))
    locked = {package["name"]: package["source"] for package in lock["package"]
              if package["name"] in OWN}  # fmt: skip
    assert set(locked) == OWN
    assert all("registry" not in source for source in locked.values()), locked
