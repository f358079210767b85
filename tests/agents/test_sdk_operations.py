"""The SDK covers every operation of the OpenAPI document (the browser pages aside).

Each request the SDK can make is one function of ``agents._endpoints``
returning a :class:`~agents._endpoints.Call` (method and path); both clients
send them. Called here with placeholder arguments, their paths are compared
with the document's, so a new operation without an SDK method fails here.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import agents._async_client
import agents._client
import agents._events
from agents import _endpoints as endpoints
from agents._endpoints import Call
from agents_club_cli.openapi import openapi_document

NOT_FOR_THE_SDK = {"watch_tables", "watch_table", "watch_replay", "watch_tournament",
                   "watch_leaderboard", "stream_assignments"}
"""HTML pages for people watching in a browser, and the SSE form of the assignments (the
SDK follows them by long-poll: ``Client.assigned_tables``)."""

PLACEHOLDER = "PLACEHOLDER"
ARGUMENTS = {"answers": {}, "puzzle": {}, "games": [], "version": 0, "organiser_key": None,
             "meta": {}}


def _sdk_requests() -> dict[tuple[str, str], str]:
    """``(METHOD, path with {} for parameters)`` -> the endpoint function that makes it."""
    made: dict[tuple[str, str], str] = {}
    for name, function in vars(endpoints).items():
        if not inspect.isfunction(function) or name.startswith("_"):
            continue
        if function.__module__ != endpoints.__name__:
            continue
        signature = inspect.signature(function)
        if name == "renamed_wait":
            continue  # a helper for the deprecated ``wait`` keyword, not a request
        arguments = {
            parameter.name: ARGUMENTS.get(parameter.name, PLACEHOLDER)
            for parameter in signature.parameters.values()
            if parameter.default is inspect.Parameter.empty
        }
        made_now = function(**arguments)
        if isinstance(made_now, Call):
            made[(made_now.method, made_now.path.replace(PLACEHOLDER, "{}"))] = name
        elif name == "stream_path":
            made[("GET", made_now.replace(PLACEHOLDER, "{}"))] = name
    return made


def test_every_operation_of_the_document_has_an_sdk_request() -> None:
    document = openapi_document()
    wanted = {
        (method.upper(), re.sub(r"\{[^}]+\}", "{}", path)): operation["operationId"]
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if operation["operationId"] not in NOT_FOR_THE_SDK
    }
    made = _sdk_requests()
    missing = sorted(operation_id for key, operation_id in wanted.items() if key not in made)
    assert not missing, f"the SDK has no method for {missing} (add it to sdk/agents/_endpoints.py)"
    assert set(made) <= set(wanted), "the SDK calls paths the document does not have"


def test_both_clients_send_every_sdk_request() -> None:
    """Every request is reachable from the sync and the async client (the SSE stream
    through their event streams, one class each)."""
    sync = "".join(Path(module.__file__ or "").read_text(encoding="utf-8")
                   for module in (agents._client, agents._events))
    asynchronous = "".join(Path(module.__file__ or "").read_text(encoding="utf-8")
                           for module in (agents._async_client, agents._events))
    for name in _sdk_requests().values():
        assert f"endpoints.{name}(" in sync, name
        assert f"endpoints.{name}(" in asynchronous, name
    events = Path(agents._events.__file__ or "").read_text(encoding="utf-8")
    assert events.count("endpoints.stream_path(") == 2
