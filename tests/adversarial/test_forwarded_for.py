"""Forwarded-for spoofing: a client picks the address ``X-Forwarded-For`` claims, and so
its own subject of the per-address rate limits, unless the server trusts no proxy but the
ones the operator names (``AGENTS_CLUB_FORWARDED_ALLOW_IPS``, empty by default)."""

from __future__ import annotations

from pathlib import Path

import httpx

from .servers import served

LIMIT = {"AGENTS_CLUB_ADMISSION_CHALLENGES_PER_ADDRESS": "2"}


def ask(base_url: str, number: int, forwarded_for: str) -> int:
    answer = httpx.post(
        f"{base_url}/v1/admission/challenges",
        json={"agent_name": f"probe-{number}", "game": "market-fortune"},
        headers={"X-Forwarded-For": forwarded_for}, timeout=10,
    )
    return answer.status_code


def test_a_client_on_loopback_cannot_choose_its_address_by_default(
    redis_url: str, signing_key_pem: str, tmp_path: Path
) -> None:
    with served(redis_url, signing_key_pem, tmp_path, **LIMIT) as (base_url, _):
        codes = [ask(base_url, number, f"203.0.113.{number}") for number in range(3)]
    assert codes == [201, 201, 429]


def test_a_named_proxy_is_believed(redis_url: str, signing_key_pem: str, tmp_path: Path) -> None:
    settings = {**LIMIT, "AGENTS_CLUB_FORWARDED_ALLOW_IPS": "127.0.0.1"}
    with served(redis_url, signing_key_pem, tmp_path, **settings) as (base_url, _):
        spread = [ask(base_url, number, f"203.0.113.{number}") for number in range(3)]
        one_client = [ask(base_url, 10 + number, "198.51.100.7") for number in range(3)]
    assert spread == [201, 201, 201]
    assert one_client == [201, 201, 429]
