"""Every module and every public class, function and method of the project's packages has a docstring.

The style rule is "a docstring on every public name"; this keeps it true as
code is added. Private names (a leading underscore) and dunder methods are
exempt: their callers are in the same file.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "gateway", "agents", "agents_club_cli", "quiz", "bench", "tournament")


def _undocumented(path: Path) -> list[str]:
    """The names in one file that should have a docstring and have none."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    missing = [] if ast.get_docstring(tree) else ["<module>"]

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if not child.name.startswith("_") and not ast.get_docstring(child):
                missing.append(prefix + child.name)
            if isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")

    walk(tree, "")
    return missing


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_has_a_docstring(package: str) -> None:
    """No module, public class or public function of the package lacks a docstring."""
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"no Python files under {package}/"
    missing = [f"{path.relative_to(ROOT)}: {name}"
               for path in files for name in _undocumented(path)]
    assert not missing, "public names without a docstring:\n" + "\n".join(missing)
