"""Schemathesis against the real app: what the document says is what the server does.

Every operation of the committed-equivalent document (built from the app) is
fuzzed with schema-valid and schema-breaking requests, and every one of
schemathesis's checks runs on each answer: status codes, content types,
headers and bodies as documented, schema-valid data accepted, invalid data
refused, no 500, authentication not ignored. The run is bounded (5
examples per operation, derandomized so CI sees the same ones, no shrinking,
a time budget per operation) so it stays a unit test; ``bench/`` is the place
for a long sweep.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import redis
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis import checks as st_checks
from schemathesis.config import SchemathesisConfig

from agents_club_cli.openapi import openapi_document
from engine.registry import all_games
from gateway.app import create_app
from gateway.security import TokenService
from tests.agents.conftest import sdk_settings, serve_app

ALL_CHECKS = [
    st_checks.not_a_server_error,
    st_checks.status_code_conformance,
    st_checks.content_type_conformance,
    st_checks.response_headers_conformance,
    st_checks.response_schema_conformance,
    st_checks.negative_data_rejection,
    st_checks.positive_data_acceptance,
    st_checks.missing_required_header,
    st_checks.unsupported_method,
    st_checks.use_after_free,
    st_checks.ensure_resource_availability,
    st_checks.ignored_auth,
]
"""`--checks all`, named one by one so a new check in a schemathesis upgrade is a
decision, not a surprise."""

OPERATION_BUDGET_S = 60
"""The time budget of one operation's run (5 examples, each with its checks' own
requests): well over what it takes (about a second), under what a hang would."""

CONFIG = Path(__file__).resolve().parents[2] / "bench" / "schemathesis.toml"
"""The long sweep's configuration (bench/schemathesis.sh): which operations may refuse a
schema-valid request for what the server holds, and with which statuses."""

schema = schemathesis.openapi.from_dict(
    openapi_document(), config=SchemathesisConfig.from_path(CONFIG))


class Gateway(NamedTuple):
    url: str
    token: str


@pytest.fixture(scope="module")
def gateway(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    """The app under uvicorn on a loopback port (long polls held briefly), and an agent's
    token admitted to every game, so the fuzz reaches past authentication."""
    namespace = f"ac-test-st-{uuid.uuid4().hex[:8]}"
    app = create_app(sdk_settings(redis_url, namespace, tmp_path_factory.mktemp("st"),
                                  long_poll_max_wait_s=0.2, assignment_stream_max_s=0.5))
    tokens: TokenService = app.state.tokens
    token = tokens.issue(agent_id="fuzzer", name="fuzzer",
                        scopes={f"game:{game}" for game in all_games()}, kind="agent").token
    try:
        with serve_app(app) as url:
            yield Gateway(url, token)
    finally:
        with redis.Redis.from_url(redis_url) as cleanup:
            for key in cleanup.scan_iter(match=f"{namespace}:*", count=1000):
                cleanup.delete(key)


@pytest.mark.timeout(OPERATION_BUDGET_S)
@schema.parametrize()
@settings(max_examples=5, deadline=None, derandomize=True, database=None,
          phases=[Phase.explicit, Phase.generate],
          suppress_health_check=list(HealthCheck))
def test_the_server_does_what_the_document_says(case: schemathesis.Case[Any], gateway: Gateway) -> None:
    case.call_and_validate(base_url=gateway.url, checks=ALL_CHECKS,
                           headers=_credentials(case, gateway.token))


def _credentials(case: schemathesis.Case[Any], token: str) -> dict[str, str]:
    """The agent's token as the bearer, so the fuzz reaches past authentication; but not
    where a schema-breaking case left its headers without credentials on purpose (the
    bearer scheme is a required header to schemathesis): sending them would make that
    case a valid request, which the negative-data check would then count as accepted."""
    headers_broken = case.meta is not None and any(
        location.value == "header" and component.mode.is_negative
        for location, component in case.meta.components.items())
    if headers_broken and "Authorization" not in (case.headers or {}):
        return {}
    return {"Authorization": f"Bearer {token}"}
