"""The AsyncAPI 3 document of the WebSocket for bots (``openapi/asyncapi.json``).

Made from the wire models themselves (:mod:`agents.wire.socket`), so it cannot
describe a message the server does not send or take: ``agents-club openapi``
writes it beside ``openapi.json``, and ``tests/gateway/test_asyncapi.py`` fails
when the committed file and the models disagree.
"""

from __future__ import annotations

from typing import Any, get_args

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

__all__ = ["ASYNCAPI_FILE", "asyncapi_document"]

ASYNCAPI_FILE = "asyncapi.json"
"""Its name, in the directory of ``openapi.json``."""

_DESCRIPTION = """\
One connection per agent at `/v1/ws` (JSON text messages, each with a `type`).

Authenticate once: send `Authorization: Bearer <token>` with the upgrade, or (a browser)
an `auth` message first. Then `subscribe` to each table you play (and
`subscribe_assignments` in a tournament): the server pushes `observation` whenever
your seat must decide, `events` when you asked for them (`events_after`), and `end`
when the table is over. Send `act` (table, version, action, idempotency key); the
answer is `accepted` (the same body as `POST /v1/tables/{id}/actions`) or `problem`
(the same problem document HTTP answers), carrying your `ref`.

Resume after a reconnect: subscribe again with `after_version` (the last version you
decided at) and `events_after` (the last event id you read); resend an unanswered
`act` with its idempotency key. Nothing is lost or told twice.

Close codes: {close_codes}.

The server pings every 20 s and closes a peer that does not answer within 20 s more;
messages are not compressed (no permessage-deflate); a client message may hold at
most 64 KiB.
"""

_SENT_SUMMARIES: dict[str, str] = {
    "auth": "Authenticate (the first message when the upgrade carried no token), or renew",
    "subscribe": "Follow a table: decisions, events and its end are pushed",
    "unsubscribe": "Stop following a table",
    "subscribe_assignments": "Follow your tournament assignments",
    "act": "Act for your seat; answered with accepted or problem",
}

_RECEIVED_SUMMARIES: dict[str, str] = {
    "welcome": "The connection is authenticated",
    "observation": "Your seat must decide",
    "events": "Events of a table you may see",
    "end": "A table you follow is over",
    "assignments": "Tournament tables you must play",
    "accepted": "Your action was applied",
    "problem": "A message was refused, or a subscription ended by an error",
}


def _members(union: Any) -> list[type[BaseModel]]:
    """The message models of a discriminated union (``ClientMessage``, ``ServerMessage``)."""
    annotated = get_args(union)
    return list(get_args(annotated[0]))


def _kind(model: type[BaseModel]) -> str:
    return str(get_args(model.model_fields["type"].annotation)[0])


def asyncapi_document() -> dict[str, Any]:
    """The AsyncAPI 3.0 document of ``/v1/ws``, as the wire models define it now."""
    from agents.wire import socket
    from gateway.app import API_VERSION

    sent, received = _members(socket.ClientMessage), _members(socket.ServerMessage)
    _, definitions = models_json_schema(
        [(model, "validation") for model in sent] + [(model, "serialization")
                                                    for model in received],
        ref_template="#/components/schemas/{model}")
    schemas: dict[str, Any] = definitions.get("$defs", {})
    for name, models in (("ClientMessage", sent), ("ServerMessage", received)):
        schemas[name] = {
            "title": name,
            "description": f"Any message the {'client' if name == 'ClientMessage' else 'server'}"
            " sends, told apart by `type`.",
            "oneOf": [{"$ref": f"#/components/schemas/{model.__name__}"} for model in models],
            "discriminator": {"propertyName": "type", "mapping": {
                _kind(model): f"#/components/schemas/{model.__name__}" for model in models}},
        }
    messages: dict[str, Any] = {}
    for model, summaries in [*((model, _SENT_SUMMARIES) for model in sent),
                             *((model, _RECEIVED_SUMMARIES) for model in received)]:
        kind = _kind(model)
        messages[kind] = {
            "name": kind,
            "title": model.__name__,
            "summary": summaries[kind],
            "description": " ".join((model.__doc__ or "").split()),
            "contentType": "application/json",
            "payload": {"$ref": f"#/components/schemas/{model.__name__}"},
        }
    channel_ref = {"$ref": "#/channels/socket"}

    def message_ref(kind: str) -> dict[str, str]:
        return {"$ref": f"#/channels/socket/messages/{kind}"}

    operations: dict[str, Any] = {}
    for model in sent:
        kind = _kind(model)
        operation: dict[str, Any] = {
            "action": "send", "channel": channel_ref, "summary": _SENT_SUMMARIES[kind],
            "messages": [message_ref(kind)],
        }
        if kind == "act":
            operation["reply"] = {"channel": channel_ref,
                                  "messages": [message_ref("accepted"), message_ref("problem")]}
        if kind == "auth":
            operation["reply"] = {"channel": channel_ref,
                                  "messages": [message_ref("welcome"), message_ref("problem")]}
        operations[f"send_{kind}"] = operation
    for model in received:
        kind = _kind(model)
        operations[f"receive_{kind}"] = {
            "action": "receive", "channel": channel_ref, "summary": _RECEIVED_SUMMARIES[kind],
            "messages": [message_ref(kind)],
        }
    close_codes = "; ".join(f"`{code}` {meaning}"
                            for code, meaning in sorted(socket.CLOSE_CODES.items()))
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Agents Club WebSocket for bots",
            "version": API_VERSION,
            "description": _DESCRIPTION.replace("{close_codes}", close_codes),
        },
        "defaultContentType": "application/json",
        "servers": {
            "local": {
                "host": "localhost:8000",
                "protocol": "ws",
                "description": "`agents-club serve` on this machine (use wss behind TLS).",
                "security": [{"$ref": "#/components/securitySchemes/bearer"}],
            },
        },
        "channels": {
            "socket": {
                "address": socket.SOCKET_PATH,
                "title": "The bot socket",
                "description": "Everything an agent sends and receives on its one connection.",
                "messages": {kind: {"$ref": f"#/components/messages/{kind}"}
                             for kind in messages},
            },
        },
        "operations": operations,
        "components": {
            "schemas": schemas,
            "messages": messages,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "JWT",
                    "description": "An access token in the upgrade's `Authorization` header, "
                    "or in an `auth` message first.",
                },
            },
        },
    }
