"""The adversarial probes use the gateway tests' fixtures (settings, app, client, tokens)."""

from __future__ import annotations

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
