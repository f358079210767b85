"""The async client mirrors the sync one: same methods, same parameters, awaited."""

from __future__ import annotations

import inspect

from agents import AsyncClient, Client

NOT_COROUTINES = {"events", "http", "assigned_tables"}


def public_methods(cls: type) -> dict[str, object]:
    return {name: member for name, member in vars(cls).items() if not name.startswith("_")}


def test_every_sync_method_has_an_async_twin_with_the_same_parameters() -> None:
    sync_methods = public_methods(Client)
    async_methods = public_methods(AsyncClient)
    assert set(sync_methods) - {"close"} == set(async_methods) - {"aclose"}
    for name, member in sync_methods.items():
        if name == "close" or isinstance(member, property):
            continue
        twin = async_methods[name]
        assert callable(member) and callable(twin), name
        assert inspect.signature(member).parameters.keys() == inspect.signature(twin).parameters.keys(), name
        assert inspect.iscoroutinefunction(twin) == (name not in NOT_COROUTINES), name


def test_every_public_method_is_in_the_docs_methods_table() -> None:
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "sdk.md").read_text(encoding="utf-8")
    table = doc[doc.index("| area | methods |"):doc.index("`act` takes an action id")]
    names = set(public_methods(Client)) | set(public_methods(AsyncClient))
    missing = sorted(name for name in names if f"`{name}(" not in table and f"`{name}`" not in table)
    assert not missing, f"docs/sdk.md's methods table misses {missing}"
