"""No private part of a dependency anywhere in the project's source: what ruff cannot see.

Ruff checks most of it (``SLF001``: ``conn._reader``; ``PLC2701``: ``from redis._parsers
import ...``; see pyproject.toml). This scan stays a test because no ruff rule (nor
another linter we run) expresses the rest:

* ``import uvicorn._types``: PLC2701 reads ``from`` imports and aliased ones
  (``import redis._parsers as p``), not a plain ``import x._y``;
* pydantic's internal state (``__pydantic_fields_set__`` and the like, as an attribute or
  a string): dunder names, which SLF001 leaves alone;
* a write past a type's own assignment (``object.__setattr__``, ``object.__new__``, a
  descriptor's ``__set__``): a call of a builtin, which no rule bans;
* overriding or calling a third-party base class's private method through ``self`` or
  ``super()`` (uvicorn's ``_start_asgi_task``): SLF001 allows ``self._name``, and only
  the base class's members tell whose the name is, so the scan imports the bases.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {  # import name: its folder (the SDK and the engine are distributions one folder down)
    "gateway": ROOT / "gateway",
    "engine": ROOT / "engine",
    "agents": ROOT / "sdk" / "agents",
    "agents_club_cli": ROOT / "agents_club_cli",
    "quiz": ROOT / "quiz",
    "bench": ROOT / "bench",
    "tournament": ROOT / "tournament",
}
PROJECT_MODULES = frozenset(PACKAGES) | {"tests", "bench_loadgen"}
PUBLIC_PYDANTIC_DUNDERS = frozenset({"__pydantic_config__"})
"""pydantic's documented hook for dataclasses and TypedDicts; every other
``__pydantic_*__`` name is its internal state."""


def _sources() -> list[Path]:
    moved = [f"{name}: {folder}" for name, folder in PACKAGES.items() if not folder.is_dir()]
    assert not moved, f"a package moved: scan its new folder (PACKAGES), {moved}"
    return sorted(path for folder in PACKAGES.values() for path in folder.rglob("*.py"))


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_pydantic_internal(name: str) -> bool:
    return name.startswith("__pydantic_") and name not in PUBLIC_PYDANTIC_DUNDERS


def _third_party(module: str) -> bool:
    top = module.split(".", 1)[0]
    return bool(top) and top not in PROJECT_MODULES and top not in sys.stdlib_module_names


def _imported(tree: ast.Module) -> dict[str, str]:
    """Local names bound to third-party modules or names, as ``module[:name]``."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _third_party(alias.name):
                    bound[alias.asname or alias.name.split(".", 1)[0]] = (
                        alias.name if alias.asname else alias.name.split(".", 1)[0])
        elif (isinstance(node, ast.ImportFrom) and node.module and node.level == 0
              and _third_party(node.module)):
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}:{alias.name}"
    return bound


def _base_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _resolve(target: str) -> object | None:
    module_name, _, attribute = target.partition(":")
    try:
        found: object = importlib.import_module(module_name)
        for part in attribute.split(".") if attribute else ():
            found = getattr(found, part)
    except (ImportError, AttributeError):  # an optional dependency (httptools on Windows)
        return None
    return found


def _findings(tree: ast.Module) -> Iterator[tuple[int, str, str]]:
    """(line, name, why) for each private use in one file that ruff does not report."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _third_party(alias.name) and any(map(_is_private, alias.name.split("."))):
                    yield node.lineno, alias.name, "imports a private module"
        elif isinstance(node, ast.Attribute):
            if _is_pydantic_internal(node.attr):
                yield node.lineno, node.attr, "touches pydantic's internal state"
            elif (node.attr in ("__setattr__", "__new__") and isinstance(node.value, ast.Name)
                  and node.value.id == "object"):
                yield node.lineno, f"object.{node.attr}", "writes past a type's own assignment"
            elif node.attr == "__set__":
                yield node.lineno, "__set__", "writes through a descriptor"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _is_pydantic_internal(node.value):
                yield node.lineno, node.value, "names pydantic's internal state"
        elif isinstance(node, ast.ClassDef):
            yield from _private_overrides(node, _imported(tree))


def _private_overrides(node: ast.ClassDef, imported: dict[str, str]) -> Iterator[tuple[int, str, str]]:
    """Private names of a third-party base class that the subclass overrides or calls."""
    bases = []
    for base in node.bases:
        local = _base_name(base)
        if local not in imported:
            continue
        target = imported[local]
        rest = ast.unparse(base).split(".", 1)[1:] if isinstance(base, ast.Attribute) else []
        if rest:
            target = f"{target}:{rest[0]}" if ":" not in target else f"{target}.{rest[0]}"
        resolved = _resolve(target)
        if isinstance(resolved, type):
            bases.append(resolved)
    if not bases:
        return
    for child in ast.walk(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and _is_private(child.name):
            line, name = child.lineno, child.name
        elif (isinstance(child, ast.Attribute) and _is_private(child.attr)
              and isinstance(child.value, ast.Name | ast.Call)
              and ast.unparse(child.value) in ("self", "super()", "cls")):
            line, name = child.lineno, child.attr
        else:
            continue
        if any(hasattr(base, name) for base in bases):
            yield line, name, f"private member of base {bases[0].__name__}"


def test_no_private_part_of_a_dependency_is_used() -> None:
    found = [f"{path.relative_to(ROOT).as_posix()}:{line}: {name} ({why})"
             for path in _sources()
             for line, name, why in _findings(ast.parse(path.read_text(encoding="utf-8")))]  # fmt: skip
    assert not found, "private parts of dependencies:\n" + "\n".join(sorted(set(found)))


@pytest.mark.parametrize("source, expected", [
    ("import uvicorn._types", "uvicorn._types"),
    ("m.__pydantic_fields_set__ = set()", "__pydantic_fields_set__"),
    ("x = '__pydantic_private__'", "__pydantic_private__"),
    ("object.__setattr__(m, 'x', 1)", "object.__setattr__"),
    ("object.__new__(Seat)", "object.__new__"),
    ("from pydantic import BaseModel\nBaseModel.__dict__['x'].__set__", "__set__"),
    ("from uvicorn.protocols.http.h11_impl import H11Protocol\n"
     "class P(H11Protocol):\n    def _unset_keepalive_if_required(self): pass",
     "_unset_keepalive_if_required"),
])
def test_the_scan_finds_each_kind_of_private_use(source: str, expected: str) -> None:
    """Each rule of the scan catches its case (a scan that finds nothing proves nothing)."""
    assert expected in [name for _line, name, _why in _findings(ast.parse(source))]


def test_the_scan_lets_public_and_own_names_through() -> None:
    source = (
        "import sys\nfrom pydantic import BaseModel, ConfigDict\nimport redis.asyncio as aioredis\n"
        "class M(BaseModel):\n    __pydantic_config__ = ConfigDict()\n"
        "    def _own(self): return self._cache\n"
        "sys._getframe\naioredis.Redis\nfrom agents._exceptions import ApiError\n"
    )
    assert list(_findings(ast.parse(source))) == []
