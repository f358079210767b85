"""Engine values are built through their types' public APIs (issue 15).

pydantic models are copied with ``model_copy`` and built with their
constructors or ``model_construct``; frozen dataclasses with their
constructors or ``dataclasses.replace``. Nothing in engine/ writes an
instance's slots or pydantic's internals directly.
"""

from __future__ import annotations

import re
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"

FORBIDDEN = re.compile(
    r"object\.__setattr__|object\.__new__|\.__set__\b|__pydantic_(?:fields_set|extra|private|fields)__|_object_setattr"
)


def test_no_engine_module_writes_slots_or_pydantic_internals() -> None:
    found = [
        f"{path.relative_to(ENGINE.parent)}:{number}: {line.strip()}"
        for path in sorted(ENGINE.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if FORBIDDEN.search(line)
    ]
    assert not found, found


def test_the_scan_sees_a_slot_write() -> None:
    assert FORBIDDEN.search('_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__')
    assert FORBIDDEN.search("object.__setattr__(copy, 'hand', hand)")
