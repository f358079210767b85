"""The admission store on a real Redis: a challenge is claimed once, even by concurrent submissions."""

from __future__ import annotations

import asyncio
import time

import pytest

from gateway.store.admission import AdmissionStore
from gateway.store.connection import Keys, close_client, connect
from tests.fake_clock import FakeClock

pytestmark = pytest.mark.redis_cluster


def test_concurrent_claims_grade_exactly_once(redis_url: str, redis_namespace: str) -> None:
    async def scenario() -> list[str]:
        redis = connect(redis_url)
        try:
            store = AdmissionStore(redis, Keys.for_url(redis_namespace, redis_url))
            await store.save_challenge("chl_race", '{"x": 1}', expires_at=time.time() + 60, keep_s=60)
            claims = await asyncio.gather(*(store.claim_challenge("chl_race") for _ in range(20)))
            assert [c.payload for c in claims if c.status == "ok"] == ['{"x": 1}']
            return sorted(c.status for c in claims)
        finally:
            await close_client(redis)

    statuses = asyncio.run(scenario())
    assert statuses == ["answered"] * 19 + ["ok"]


def test_missing_late_and_window_expiry(redis_url: str, redis_namespace: str) -> None:
    async def scenario() -> None:
        redis = connect(redis_url)
        try:
            clock = FakeClock()
            store = AdmissionStore(redis, Keys.for_url(redis_namespace, redis_url), clock)
            assert (await store.claim_challenge("chl_none")).status == "missing"
            now = clock()
            await store.save_challenge("chl_late", "{}", expires_at=now + 5, keep_s=60)
            clock.advance(6)
            assert (await store.claim_challenge("chl_late")).status == "late"
            # a late claim does not use the challenge up, and the key lives past the expiry
            clock.now = now + 1
            assert (await store.claim_challenge("chl_late")).status == "ok"
            ttl = await redis.pttl(Keys.for_url(redis_namespace, redis_url).global_("admission", "challenge", "chl_late"))
            assert 60_000 < ttl <= 65_000
            clock.now = 1_000_000.0
            hits = [await store.hit("b", "s", limit=2, window_s=30) for _ in range(3)]
            assert [h.allowed for h in hits] == [True, True, False]
            assert hits[-1].retry_after == 1_000_020 - 1_000_000  # the 30 s window ends at 1,000,020
            clock.now = 1_000_020.5
            later = await store.hit("b", "s", limit=2, window_s=30)
            assert later.allowed and later.count == 1
        finally:
            await close_client(redis)

    asyncio.run(scenario())


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway.services.admission import AdmissionSettings

    monkeypatch.setenv("AGENTS_CLUB_ADMISSION_CHALLENGE_TTL_S", "90")
    monkeypatch.setenv("AGENTS_CLUB_ADMISSION_QUESTIONS_REQUIRED", "2")
    monkeypatch.setenv("AGENTS_CLUB_ADMISSION_PUZZLE_REQUIRED", "false")
    settings = AdmissionSettings()
    assert settings.challenge_ttl_s == 90
    assert settings.pass_rule.questions_required == 2 and not settings.pass_rule.puzzle_required
