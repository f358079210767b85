"""A gateway process holding many bot sockets is SIGKILLed mid-game: no acknowledged action
is lost or applied twice, and every agent resumes on the other process (the protocol's
resume: subscribe after the last version decided, resend the unanswered action with its
idempotency key). ``bench/socket_failover.py`` runs the same with 500 sockets."""

from __future__ import annotations

import os
import signal
import uuid
from pathlib import Path

from bench.socket_failover import (
    failures,
    gateway_processes,
    new_agents,
    play_all,
    table_logs,
)
from gateway.config import Settings
from gateway.security import TokenService
from tests.conftest import drop_namespace, server_env

AGENTS = 60
"""Sockets on the process that is killed: enough for many to be mid-action when it dies,
few enough for a shared two-core machine."""


def test_a_killed_worker_loses_no_acknowledged_action(
    redis_url: str, signing_key_pem: str, tmp_path: Path,
) -> None:
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    settings = Settings.model_validate({
        "environment": "test", "redis_url": redis_url, "redis_namespace": namespace,
        "data_dir": tmp_path, "signing_key_pem": signing_key_pem,
    })
    env = server_env(redis_url, namespace, tmp_path, signing_key_pem)
    tokens = TokenService(settings)

    def mint(agent_id: str) -> str:
        return tokens.issue(agent_id=agent_id, name=agent_id, scopes={"game:market-fortune"}).token

    try:
        with gateway_processes(env, 2) as (urls, processes):
            agents = new_agents(urls[1], mint, AGENTS)
            _seconds, killed_at = play_all(
                agents, urls, kill_after=AGENTS,
                kill=lambda: os.kill(processes[0].pid, signal.SIGKILL))
            logs = table_logs(urls[1], agents)
        assert processes[0].returncode == -signal.SIGKILL
        assert failures(agents, logs, killed_at) == []
        resumed = [agent for agent in agents if agent.finished_at > killed_at]
        assert len(resumed) > AGENTS // 2  # the kill came mid-game for most of them
        assert all(agent.workers[0] == 0 for agent in agents)
        assert sum(len(agent.acknowledged) for agent in agents) > AGENTS
    finally:
        drop_namespace(redis_url, namespace)
