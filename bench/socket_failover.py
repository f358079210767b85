"""A gateway worker holding many bot sockets is SIGKILLed: no acknowledged action is lost,
none is applied twice, and every agent resumes on another worker.

Two gateway processes (uvicorn, each on its own port) share one Redis namespace.
Every agent plays its own two-seat Market Fortune table against a house bot over
its own socket, all of them opened on the first process. Once the agents have had
``--kill-after`` actions acknowledged, the first process is killed with SIGKILL;
each agent then reconnects to the second, subscribes again after the last version
it decided at, and sends its unanswered action again with the same idempotency
key, as the protocol says (``docs/agents.md``). At the end every table's log is
read: each acknowledged action is in it, at its version, and each version once.

    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/socket_failover.py \\
        [--agents 500] [--kill-after 500]

``tests/gateway/test_socket_failover.py`` runs the same with fewer agents.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path and bench/gateway.py
# would hide the ``gateway`` package; put the repository root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [str(_HERE.parent), *(entry for entry in sys.path
                                     if Path(entry or ".").resolve() != _HERE)]

import httpx  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidHandshake  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

__all__ = ["Agent", "failures", "gateway_processes", "main", "new_agents", "play", "play_all",
           "table_logs"]

GAME = "market-fortune"
TABLE = {"game": GAME, "mode": "family", "seats": 2, "house_bots": [{"seat": 1}],
         "options": {"turn_limit_per_seat": 8}}
"""A short table against one house bot (a few dozen decisions)."""

MESSAGE_WAIT_S = 60.0
"""How long an agent waits for a message before it counts as stuck (a failure)."""


@dataclass
class Agent:
    """One agent: its table, its token's headers, and what happened to its actions."""

    table_id: str
    headers: dict[str, str]
    sent: dict[int, str] = field(default_factory=dict)
    """Action id sent, by the version it decided at."""
    acknowledged: dict[int, str] = field(default_factory=dict)
    """Action id the server answered ``accepted`` for, by version."""
    workers: list[int] = field(default_factory=list)
    """The index of the worker of each connection it opened, in order."""
    finished: bool = False
    finished_at: float = 0.0
    """When it saw its table's end (``time.monotonic``)."""
    error: str | None = None


def _socket_url(base_url: str) -> str:
    return base_url.replace("http://", "ws://") + "/v1/ws"


def play(agent: Agent, urls: list[str], on_ack: Callable[[], None]) -> None:
    """Play ``agent``'s table to its end over the socket: the first worker while it lives,
    then the next; resume after each lost connection."""
    decided = -1
    pending: dict[str, Any] | None = None
    worker = 0
    while not agent.finished:
        try:
            with connect(_socket_url(urls[worker]), additional_headers=agent.headers,
                         compression=None, proxy=None, open_timeout=30) as socket:
                agent.workers.append(worker)
                socket.send(json.dumps({"type": "subscribe", "table_id": agent.table_id,
                                        "after_version": decided}))
                if pending is not None:
                    socket.send(json.dumps(pending))  # the same idempotency key: applied once
                while True:
                    message = json.loads(socket.recv(timeout=MESSAGE_WAIT_S))
                    kind = message["type"]
                    if kind == "observation":
                        observation = message["observation"]
                        version = observation["version"]
                        if observation["legal_actions"] and version > decided:
                            action = observation["legal_actions"][0]["id"]
                            pending = {"type": "act", "ref": str(version),
                                       "table_id": agent.table_id, "version": version,
                                       "action": action, "idempotency_key": uuid.uuid4().hex}
                            agent.sent[version] = action
                            decided = version
                            socket.send(json.dumps(pending))
                    elif kind in ("accepted", "problem") and pending is not None and (
                            message.get("ref") == pending["ref"]):
                        if kind == "accepted":
                            agent.acknowledged[pending["version"]] = pending["action"]
                            on_ack()
                        elif message["problem"]["status"] >= 500:
                            raise ConnectionError(message["problem"]["code"])  # resend it
                        pending = None
                    elif kind == "end":
                        agent.finished, agent.finished_at = True, time.monotonic()
                        return
        except (ConnectionClosed, OSError, InvalidHandshake):
            # Lost, or cut during the upgrade by the worker's death: the next worker.
            worker = min(worker + 1, len(urls) - 1)
            time.sleep(0.05)


def play_all(agents: list[Agent], urls: list[str], *, kill_after: int,
             kill: Callable[[], None]) -> tuple[float, float]:
    """Play every agent's table in its own thread; call ``kill`` once ``kill_after`` actions
    were acknowledged. Returns the seconds it all took and when the kill came
    (``time.monotonic``; infinity when it never did)."""
    acknowledged = [0]
    killed_at = [float("inf")]
    lock = threading.Lock()
    killed = threading.Event()

    def on_ack() -> None:
        with lock:
            acknowledged[0] += 1
            if acknowledged[0] >= kill_after and not killed.is_set():
                killed.set()
                killed_at[0] = time.monotonic()
                kill()

    def run(agent: Agent) -> None:
        try:
            play(agent, urls, on_ack)
        except Exception as failure:  # reported by failures()
            agent.error = repr(failure)

    started = time.monotonic()
    threads = [threading.Thread(target=run, args=(agent,), daemon=True) for agent in agents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    return time.monotonic() - started, killed_at[0]


def failures(agents: list[Agent], logs: dict[str, list[dict[str, Any]]],
             killed_at: float) -> list[str]:
    """What went wrong, one line each: an agent that did not finish, or that played on after
    the kill but never moved to the second worker, an acknowledged action missing from its
    table's log, or a version applied twice."""
    found: list[str] = []
    for agent in agents:
        if agent.error is not None or not agent.finished:
            found.append(f"{agent.table_id}: did not finish ({agent.error})")
            continue
        if agent.finished_at > killed_at and agent.workers[-1] == 0:
            found.append(f"{agent.table_id}: never resumed on another worker")
        mine = [entry for entry in logs[agent.table_id] if entry["seat"] == 0]
        applied = [entry["version"] - 1 for entry in mine]
        if len(applied) != len(set(applied)):
            found.append(f"{agent.table_id}: a version applied twice")
        by_version = {entry["version"] - 1: entry["action"] for entry in mine}
        for version, action in agent.acknowledged.items():
            if by_version.get(version) != action:
                found.append(f"{agent.table_id}: acknowledged {action!r} at {version} is lost")
        for version in by_version:
            if version not in agent.sent:
                found.append(f"{agent.table_id}: version {version} applied but never sent")
    return found


def new_agents(base_url: str, mint: Callable[[str], str], count: int) -> list[Agent]:
    """``count`` agents, each at a new table against a house bot."""
    agents = []
    with httpx.Client(base_url=base_url, timeout=30) as http:
        for index in range(count):
            headers = {"Authorization": f"Bearer {mint(f'failover-{index}')}"}
            created = http.post("/v1/tables", headers=headers, json=TABLE)
            created.raise_for_status()
            agents.append(Agent(table_id=created.json()["id"], headers=headers))
    return agents


def table_logs(base_url: str, agents: list[Agent]) -> dict[str, list[dict[str, Any]]]:
    """Each finished table's action log (from its replay)."""
    logs = {}
    with httpx.Client(base_url=base_url, timeout=30) as http:
        for agent in agents:
            replay = http.get(f"/v1/tables/{agent.table_id}/replay", headers=agent.headers)
            logs[agent.table_id] = replay.json().get("log", []) if replay.is_success else []
    return logs


@contextmanager
def gateway_processes(env: dict[str, str], count: int) -> Iterator[tuple[list[str], list[Any]]]:
    """``count`` gateway processes (uvicorn, each on its own free loopback port, the socket
    served as ``agents-club serve`` serves it) started with ``env``; yields their base URLs
    and processes once each answers ``/readyz``, and stops those still running afterwards
    (a caller may have killed some). The multi-process tests use it too."""
    from agents_club_cli.embedded_redis import free_port
    from agents_club_cli.serve import wait_until_ready

    ports = [free_port() for _ in range(count)]
    processes = [subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "gateway.app:create_app", "--factory", "--host",
         "127.0.0.1", "--port", str(port), "--log-level", "warning",
         "--ws", "websockets-sansio", "--ws-per-message-deflate", "false"],
        env=env, cwd=Path(__file__).resolve().parents[1]) for port in ports]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for url, process in zip(urls, processes, strict=True):
            wait_until_ready(url, process, 30)
        yield urls, processes
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=15)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=500)
    parser.add_argument("--kill-after", type=int, default=None,
                        help="acknowledged actions before the kill (default: one per agent)")
    args = parser.parse_args(argv)
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from gateway.config import Settings
    from gateway.security import TokenService

    key = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()).decode()
    namespace = f"bench-failover-{uuid.uuid4().hex[:8]}"
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    env = {**os.environ, "AGENTS_CLUB_ENVIRONMENT": "test", "REDIS_URL": redis_url,
           "AGENTS_CLUB_REDIS_NAMESPACE": namespace, "AGENTS_CLUB_SIGNING_KEY_PEM": key,
           "AGENTS_CLUB_ORGANISER_KEY": "bench-failover-organiser-key-0123456789",
           "AGENTS_CLUB_DATA_DIR": f"/tmp/{namespace}", "AGENTS_CLUB_LOG_LEVEL": "WARNING",
           "AGENTS_CLUB_MAX_ACTIVE_TABLES_PER_AGENT": "1000"}
    tokens = TokenService(Settings.model_validate({
        "environment": "test", "redis_url": redis_url, "redis_namespace": namespace,
        "signing_key_pem": key, "data_dir": f"/tmp/{namespace}"}))

    def mint(agent_id: str) -> str:
        return tokens.issue(agent_id=agent_id, name=agent_id, scopes={f"game:{GAME}"}).token

    with gateway_processes(env, 2) as (urls, processes):
        agents = new_agents(urls[1], mint, args.agents)
        seconds, killed_at = play_all(agents, urls, kill_after=args.kill_after or args.agents,
                                      kill=lambda: os.kill(processes[0].pid, signal.SIGKILL))
        found = failures(agents, table_logs(urls[1], agents), killed_at)
    acknowledged = sum(len(agent.acknowledged) for agent in agents)
    resumed = sum(agent.workers[-1] == 1 for agent in agents
                  if agent.workers and agent.finished_at > killed_at)
    print(f"{args.agents} agents, {acknowledged} actions acknowledged in {seconds:.1f} s; "
          f"{resumed} resumed on the second worker; {len(found)} failures")
    for line in found[:20]:
        print("  " + line)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
