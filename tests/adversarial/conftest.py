"""The adversarial probes of issue 21, kept as tests: each plays the attacker (or the
careless operator) against the real app, a real ``agents-club serve`` or a real Redis, on
loopback only, and each module is bounded in time (60 s per test).

* ``test_seed_prediction`` — an agent choosing or guessing the seed of a shared table;
* ``test_redis_outage`` — Redis not listening, then stopped and started again;
* ``test_silent_redis`` — a Redis that accepts connections but never answers, a reply that
  never comes, a keyspace reader whose Redis went silent;
* ``test_request_limits`` — huge and many headers, trickling bodies, idle connections,
  heads that trickle in or never end (raw sockets through the nginx of
  ``deploy/nginx.conf`` in front of ``serve``);
* ``test_lost_reply`` — Redis's reply to a create or join lost by a proxy;
* ``test_forwarded_for`` — ``X-Forwarded-For`` spoofing from loopback;
* ``test_organiser_key_rotation`` — organiser tokens after a key rotation;
* ``test_replay_cache`` — anonymous replay readers;
* ``test_socket_attacks`` — the bot socket: other seats, bad tokens, replayed keys, racing
  sockets, stale versions, malformed frames, floods, a stranger following a table.

They use the gateway tests' fixtures (settings, app, client, tokens).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..gateway.conftest import (  # noqa: F401 - fixtures, registered by being imported here
    app,
    auth,
    client,
    mint_token,
    organiser_headers,
    settings,
    signing_key_pem,
    token_service,
)

PROBE_TIMEOUT_S = 60
HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Bound every probe here in time."""
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.timeout(PROBE_TIMEOUT_S))
