"""The lock (requirements/*.txt) pins every dependency pyproject.toml declares, within its bounds.

``./run`` and CI install the lock, not pyproject.toml: a dependency added to
pyproject.toml without ``./run lock`` would be missing (or outside its new
bounds) everywhere but on the machine of whoever added it.
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
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.MULTILINE)


def _pins(lock: str) -> dict[str, set[Version]]:
    pins: dict[str, set[Version]] = {}
    for name, version in PIN.findall((ROOT / "requirements" / lock).read_text(encoding="utf-8")):
        pins.setdefault(canonicalize_name(name), set()).add(Version(version))
    return pins


@pytest.mark.parametrize("lock, declared", [
    ("main.txt", PROJECT["dependencies"]),
    ("dev.txt", [
        *PROJECT["dependencies"],
        *(spec for extra in PROJECT["optional-dependencies"].values() for spec in extra),
    ]),
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
    declared = [*PROJECT["dependencies"],
                *(spec for extra in PROJECT["optional-dependencies"].values() for spec in extra)]
    unbounded = [spec for spec in declared
                 if not any(s.operator in ("<", "<=", "==", "~=")
                            for s in Requirement(spec).specifier)]
    assert not unbounded, f"add an upper bound on the major version: {unbounded}"
