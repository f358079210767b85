"""No private name of a dependency anywhere in the project's source.

A minor release of a dependency may rename or drop anything private, so the
gateway must not import a module with an underscore-prefixed part
(``redis._parsers``, ``uvicorn._types``), import an underscore name from a
dependency, reach one as an attribute (``module._name``), override or call a
base class's private method (uvicorn's ``_start_asgi_task``) or touch
pydantic's slots (``__pydantic_fields_set__`` and the like; ``object.__setattr__``
on a model). The scan is by syntax (``ast``), so it reads every file without
importing it, except the third-party base classes it checks overrides against.

Attribute access ``obj._name`` on a value of unknown type is caught by name:
an underscore attribute that the project itself never defines (as a function,
class, assignment target, parameter or ``__slots__`` entry) can only be
someone else's.
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
# pydantic's documented hook for dataclasses and TypedDicts; every other
# ``__pydantic_*__`` name is its internal state.
PUBLIC_PYDANTIC_DUNDERS = frozenset({"__pydantic_config__"})

# Underscore names that are public API: a named tuple's documented methods.
PUBLIC_UNDERSCORE = frozenset({"_asdict", "_field_defaults", "_fields", "_make", "_replace"})

# Findings in code another branch is rewriting, by (file, name). Each entry must
# still match something (a stale one fails too), so the list only shrinks.
PENDING: dict[tuple[str, str], str] = {}


def _sources() -> list[Path]:
    moved = [f"{name}: {folder}" for name, folder in PACKAGES.items() if not folder.is_dir()]
    assert not moved, f"a package moved: scan its new folder (PACKAGES), {moved}"
    return sorted(path for folder in PACKAGES.values() for path in folder.rglob("*.py"))


def _is_private(name: str) -> bool:
    return (name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
            and name not in PUBLIC_UNDERSCORE)


def _is_pydantic_internal(name: str) -> bool:
    return name.startswith("__pydantic_") and name not in PUBLIC_PYDANTIC_DUNDERS


def _third_party(module: str) -> bool:
    top = module.split(".", 1)[0]
    return bool(top) and top not in PROJECT_MODULES and top not in sys.stdlib_module_names


def _project_names(trees: list[ast.Module]) -> set[str]:
    """Every underscore name the project defines itself."""
    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.keyword) and node.arg:
                names.add(node.arg)
            elif isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "__slots__"
                for target in node.targets
            ):
                for item in ast.walk(node.value):
                    if isinstance(item, ast.Constant) and isinstance(item.value, str):
                        names.add(item.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return {name for name in names if name.startswith("_")}


def _imported(tree: ast.Module) -> tuple[dict[str, str], dict[str, str]]:
    """Local names bound to third-party modules, and to names imported from them."""
    modules: dict[str, str] = {}
    objects: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _third_party(alias.name):
                    local = alias.asname or alias.name.split(".", 1)[0]
                    modules[local] = alias.name if alias.asname else local
        elif (isinstance(node, ast.ImportFrom) and node.module and node.level == 0
              and _third_party(node.module)):
            for alias in node.names:
                objects[alias.asname or alias.name] = f"{node.module}:{alias.name}"
    return modules, objects


def _stdlib_names(tree: ast.Module) -> set[str]:
    """Local names bound to standard-library imports (``sys._getframe`` is not a dependency's)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.asname or alias.name.split(".", 1)[0] for alias in node.names
                         if not _third_party(alias.name))
        elif (isinstance(node, ast.ImportFrom) and node.module and node.level == 0
              and node.module.split(".", 1)[0] in sys.stdlib_module_names):
            names.update(alias.asname or alias.name for alias in node.names)
    return names


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


def _findings(path: Path, tree: ast.Module, project: set[str]) -> Iterator[tuple[int, str, str]]:
    """(line, name, why) for each private use in one file."""
    modules, objects = _imported(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _third_party(alias.name) and any(map(_is_private, alias.name.split("."))):
                    yield node.lineno, alias.name, "imports a private module"
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not _third_party(node.module):
                continue
            if any(map(_is_private, node.module.split("."))):
                yield node.lineno, node.module, "imports from a private module"
            for alias in node.names:
                if _is_private(alias.name) or _is_pydantic_internal(alias.name):
                    yield node.lineno, alias.name, f"imports a private name of {node.module}"
        elif isinstance(node, ast.Attribute):
            if _is_pydantic_internal(node.attr):
                yield node.lineno, node.attr, "touches pydantic's internal state"
            elif _is_private(node.attr):
                base = _base_name(node.value)
                if base in modules or base in objects:
                    yield node.lineno, node.attr, f"private attribute of {base}"
                elif node.attr not in project and base not in _stdlib_names(tree):
                    yield node.lineno, node.attr, "private attribute the project never defines"
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
              and node.value.attr == "__dict__"
              and (_base_name(node.value.value) in objects
                   or _base_name(node.value.value) in modules)):
            yield node.lineno, "__dict__", "reaches into a dependency's class dict"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _is_pydantic_internal(node.value):
                yield node.lineno, node.value, "names pydantic's internal state"
        elif isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr == "__setattr__"
                    and isinstance(func.value, ast.Name) and func.value.id == "object"):
                yield node.lineno, "object.__setattr__", "writes past a model's own assignment"
            if (isinstance(func, ast.Name) and func.id in ("getattr", "setattr", "hasattr")
                    and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                    and isinstance(node.args[1].value, str) and _is_private(node.args[1].value)
                    and node.args[1].value not in project):
                yield node.lineno, node.args[1].value, f"{func.id} of a private name"
        elif isinstance(node, ast.ClassDef):
            yield from _private_overrides(node, modules, objects)


def _private_overrides(
    node: ast.ClassDef, modules: dict[str, str], objects: dict[str, str]
) -> Iterator[tuple[int, str, str]]:
    """Private names of a third-party base class that the subclass overrides or calls."""
    bases = []
    for base in node.bases:
        local = _base_name(base)
        if local in objects:
            target = objects[local]
        elif local in modules:
            target = modules[local]
        else:
            continue
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


def test_no_private_name_of_a_dependency_is_used() -> None:
    paths = _sources()
    trees = [ast.parse(path.read_text(encoding="utf-8"), filename=str(path)) for path in paths]
    project = _project_names(trees)
    found: list[str] = []
    pending_seen: set[tuple[str, str]] = set()
    for path, tree in zip(paths, trees, strict=True):
        relative = path.relative_to(ROOT).as_posix()
        for line, name, why in _findings(path, tree, project):
            if (relative, name) in PENDING:
                pending_seen.add((relative, name))
                continue
            found.append(f"{relative}:{line}: {name} ({why})")
    assert not found, "private names of dependencies:\n" + "\n".join(sorted(set(found)))
    stale = sorted(set(PENDING) - pending_seen)
    assert not stale, f"PENDING entries that no longer match anything (remove them): {stale}"


@pytest.mark.parametrize("source, expected", [
    ("from redis._parsers import X", "redis._parsers"),
    ("import uvicorn._types", "uvicorn._types"),
    ("from fastapi import _compat", "_compat"),
    ("import redis\nredis._secret", "_secret"),
    ("from pydantic import BaseModel\nBaseModel._hidden", "_hidden"),
    ("m.__pydantic_fields_set__ = set()", "__pydantic_fields_set__"),
    ("object.__setattr__(m, 'x', 1)", "object.__setattr__"),
    ("conn._reader", "_reader"),
    ("getattr(conn, '_reader')", "_reader"),
    ("from pydantic import BaseModel\nBaseModel.__dict__['x'].__set__", "__dict__"),
    ("from uvicorn.protocols.http.h11_impl import H11Protocol\n"
     "class P(H11Protocol):\n    def _unset_keepalive_if_required(self): pass",
     "_unset_keepalive_if_required"),
])
def test_the_scan_finds_each_kind_of_private_use(source: str, expected: str) -> None:
    """Each rule of the scan catches its case (a scan that finds nothing proves nothing)."""
    tree = ast.parse(source)
    names = [name for _line, name, _why in _findings(Path("probe.py"), tree, set())]
    assert expected in names


def test_the_scan_lets_public_and_own_names_through() -> None:
    source = (
        "import sys\nfrom pydantic import BaseModel, ConfigDict\nimport redis.asyncio as aioredis\n"
        "class M(BaseModel):\n    __pydantic_config__ = ConfigDict()\n"
        "    def _own(self): return self._cache\n"
        "sys._getframe\naioredis.Redis\nfrom agents._exceptions import ApiError\n"
        "point._replace(x=1)\n"
    )
    tree = ast.parse(source)
    project = {"_own", "_cache"}
    assert list(_findings(Path("probe.py"), tree, project)) == []
