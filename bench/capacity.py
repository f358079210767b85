"""Capacity: how many connected agents with think time 2 workers hold, as LLM agents play.

Each simulated agent plays two-seat Market Fortune tables the way the docs
advise (README, docs/sdk.md) and the SDK's ``Runner`` plays, as an LLM agent
behaves: ``observation?wait_s=30`` (held by the server until it must act), then
it *thinks* 2-6 s (a uniform random pause, its model call), then it acts;
while the action's answer shows it still to act, it thinks and acts again from
that answer, else it holds the next observation; a finished table is replaced
by a new one (``--observe-after-acting``: it observes after every action, as an
agent that ignores the action's answer would). Half the
agents open tables, the other half join them. Every agent keeps one
keep-alive connection (``bench/loadgen.py``), so most connections are either
held by the server or idle while their agent thinks.

It starts ``agents-club serve --workers 2`` on ``REDIS_URL`` (or a private
``redis-server``), then raises the number of agents step by step
(``--steps``). Each step starts its agents over ``--ramp`` seconds, lets them
settle, then measures for ``--seconds``: the action requests' p50/p99
latency, errors (a 5xx, a refused connection, any answer but 200 or a stale
``409``), the workers' Redis connections (``CLIENT LIST``, by the name each
worker gives its connections: ``agents-club:<namespace>:<pid>``; the most
seen) and each worker's RSS (the most seen). It stops at the first step that
misses the action p99 target or has errors (unless ``--keep-going``), and
prints how many steps of each size held and the largest size at which every
step held (so ``--steps 3000,3000,3000 --keep-going`` asks whether 3,000 holds
three times running):

    .venv/bin/python bench/capacity.py [--steps 1000,2000,3000,4000] [--seconds 30]
        [--ramp 10] [--settle 8] [--max-connections 16] [--keep-going] [--cluster]
        [--observe-after-acting] [--contend CORES] [--transport observe-act|act-wait|ws]

``--transport act-wait``: each agent is seated by a join with ``wait_s=30`` (the
opener creates the table unseated, hands its id to its partner, then joins too), which
answers at its first decision; each action is sent with ``wait_s=30`` and answered at
the seat's next decision point. So an agent makes exactly one request per decision
besides the join that seats it (each step prints its requests per decision, seating
excluded); a held action's latency is then its turn handover, from sending it until
the partner is told.

``--transport ws``: each agent holds one bot socket (``/v1/ws``, opened at its first
table and kept): it subscribes to each table it plays, thinks when the server pushes
its decision, then sends the action; an action's latency is from sending it until its
``accepted``. Tables are still opened and joined over HTTP; each step prints the
messages sent per decision (its "requests").

``--cluster``: after the run on one Redis, the same steps against a local Redis
Cluster (3 primaries, 3 replicas, started by :class:`agents_club_cli.local_cluster.LocalCluster`),
then the ratios cluster / single of the largest step held and of the actions per
second at each step both ran (target: cluster >= 0.8 x single). The Redis
connections are then counted on every node of the cluster.

``--contend CORES``: other processes keep that many cores busy for the whole
run (:mod:`bench.contention`), so a step that still holds shows the headroom
it had, in cores, whatever the machine's speed that hour.

Targets (issue 15), on this 2-core machine with the load client sharing it:
at least 3,000 concurrent agents, at most 64 Redis connections on a Redis
server (on a cluster: on any one node; the sum over the nodes is printed too), at
most 300 MB RSS per worker, action p99 at most 100 ms with no errors.
Loopback only; it only prints (exit status 0 unless the gateway fails to start).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path and its own name
# would hide the ``gateway`` package; put the repository root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [str(_HERE.parent), *(entry for entry in sys.path
                                     if Path(entry or ".").resolve() != _HERE)]

from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402
from websockets.asyncio.client import connect as ws_connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from agents_club_cli.embedded_redis import EmbeddedRedis, free_port  # noqa: E402
from agents_club_cli.local_cluster import LocalCluster  # noqa: E402
from bench.contention import contending  # noqa: E402
from bench.held_waits import (  # noqa: E402
    connections_by_node,
    gateway_process,
    redis_cpu_seconds,
    rss_mb,
)
from bench.loadgen import AgentConnection  # noqa: E402
from bench.yardstick import yardstick_ms  # noqa: E402
from gateway.config import Settings  # noqa: E402
from gateway.security import TokenService  # noqa: E402

GAME = "market-fortune"
MODE = "family"
THINK_S = (2.0, 6.0)
P99_TARGET_MS = 100.0
AGENTS_TARGET = 3000
REDIS_CONNECTIONS_TARGET = 64
RSS_TARGET_MB = 300.0
CLUSTER_RATIO_TARGET = 0.8
"""On a 3-primary local cluster against one Redis (the scale-out issue)."""
ORGANISER_KEY = "capacity-organiser-key-" + uuid.uuid4().hex


@dataclass
class Step:
    """What one step measured."""

    agents: int
    transport: str = "observe-act"
    act_wait: bool = False
    """``--transport act-wait``: a held action's time is its handover (see :meth:`Pairing.handover`)."""
    measuring: bool = False
    latencies: list[float] = field(default_factory=list)
    handovers: list[float] = field(default_factory=list)
    """From an action's answer to the held observation of the seat it made to act, both
    at the version the action made (0 when that observation's answer came first)."""
    actions: int = 0
    stale: int = 0
    observations: int = 0
    """Observations asked over HTTP (``ws``: subscriptions sent)."""
    errors: list[str] = field(default_factory=list)
    redis_connections: int = 0
    """The most seen at once, summed over every Redis server (a cluster's nodes)."""
    redis_on_one_node: int = 0
    """The most seen at once on any one Redis server: what its client limit meets."""
    redis_by_worker: dict[str, int] = field(default_factory=dict)
    rss_mb: dict[str, float] = field(default_factory=dict)
    cpu_s: dict[str, float] = field(default_factory=dict)
    """Each worker's CPU seconds over the measured span (from ``/proc``)."""
    client_cpu_s: float = 0.0
    """The load client's own CPU seconds over the measured span."""
    redis_cpu_s: float = 0.0
    """Redis's CPU seconds over the measured span (``INFO cpu``)."""
    load_average: float = 0.0
    """The machine's 1-minute load average at the end of the span (other work shows here)."""
    yardstick_ms: tuple[float, float] = (0.0, 0.0)
    """:func:`bench.yardstick.yardstick_ms` just before the step's agents started and just
    after they stopped: roughly how fast the machine was, apart from the gateway's code."""

    def error(self, what: str) -> None:
        if self.measuring:
            self.errors.append(what)

    def p(self, fraction: float, of: list[float] | None = None) -> float:
        """A percentile of the action latencies (or of ``of``), in ms."""
        values = self.latencies if of is None else of
        if not values:
            return float("nan")
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] * 1000

    @property
    def held(self) -> bool:
        return not self.errors and bool(self.latencies) and self.p(0.99) <= P99_TARGET_MS


class Pairing:
    """Hands each opened table to the partner agent that joins it, and times its handovers."""

    def __init__(self) -> None:
        self.ids: asyncio.Queue[str] = asyncio.Queue()
        self.passed: tuple[int, float] | None = None
        """The version an action's answer passed the turn at, and when that answer came."""
        self.seen: tuple[int, float] | None = None
        """The version the partner's held observation was answered at (its turn), and when."""
        self.acted: dict[int, float] = {}
        """``ws``: when an action was sent, by the version it makes."""

    def turn_passed(self, step: Step, version: int) -> None:
        """An action's answer came, the turn passed to the partner at ``version``."""
        now = time.perf_counter()
        if self.seen is not None and self.seen[0] == version:
            # The partner's answer was read first (both come to this one client): no wait.
            self.handover(step, 0.0)
        else:
            self.passed = (version, now)

    def partner_told(self, step: Step, version: int) -> None:
        """The partner's held observation came, its turn at ``version``."""
        now = time.perf_counter()
        if self.passed is not None and self.passed[0] == version:
            self.handover(step, now - self.passed[1])
        else:
            self.seen = (version, now)

    def handover(self, step: Step, seconds: float) -> None:
        self.passed = self.seen = None
        if step.measuring:
            step.handovers.append(seconds)
            if step.act_wait:  # from sending the action to the partner told: its latency
                step.latencies.append(seconds)


async def agent(http: AgentConnection, index: int, pair: Pairing, step: Step,
                stop: asyncio.Event, rng: random.Random, *, observe_after_acting: bool) -> None:
    """Play tables until ``stop``: observe (held), think, act."""
    while not stop.is_set():
        try:
            # Act-and-wait agents are seated by a join that brings their first decision:
            # the creator opens the table unseated, hands the id over, then joins too.
            seated_by_join = step.act_wait
            first: dict[str, Any] | None = None
            if index % 2 == 0:
                created = await http.request("POST", "/v1/tables", json_body={
                    "game": GAME, "mode": MODE, "seats": 2, "turn_timeout_s": 600,
                    "join": not seated_by_join})
                if created.status != 201:
                    step.error(f"create {created.status}")
                    await asyncio.sleep(1)
                    continue
                table_id = created.json()["id"]
                await pair.ids.put(table_id)
            else:
                getting = asyncio.ensure_future(pair.ids.get())
                stopping = asyncio.ensure_future(stop.wait())
                await asyncio.wait({getting, stopping}, return_when=asyncio.FIRST_COMPLETED)
                stopping.cancel()
                if not getting.done():
                    getting.cancel()
                    return
                table_id = getting.result()
            if index % 2 == 1 or seated_by_join:
                joined = await http.request("POST", f"/v1/tables/{table_id}/join",
                                            params={"wait_s": 30} if seated_by_join else None)
                if joined.status != 200:
                    step.error(f"join {joined.status}")
                    continue
                first = joined.json().get("observation")
            if step.transport == "ws":
                await play_ws(http, table_id, step, stop, rng, pair)
            else:
                await play(http, table_id, step, stop, rng, pair, first,
                           observe_after_acting=observe_after_acting)
        except (OSError, asyncio.IncompleteReadError, ConnectionClosed) as failure:
            step.error(f"connection: {failure!r}")
            if isinstance(failure, ConnectionClosed):
                http.socket = None  # the server closed it: the next table opens another
            await asyncio.sleep(1)


async def play_ws(http: AgentConnection, table_id: str, step: Step, stop: asyncio.Event,
                  rng: random.Random, pair: Pairing) -> None:
    """One table over the agent's bot socket: subscribe, and on each pushed decision think,
    then act; until the table's ``end`` (or ``stop``). An action's latency, as
    act-and-wait's, is from sending it until the next decision is pushed (to the
    partner, or to this seat when it is still to act)."""
    if http.socket is None:
        http.socket = await ws_connect(http.socket_url, compression=None, proxy=None,
                                       additional_headers=http.auth, max_queue=None)
        await http.socket.recv()  # welcome
    socket = http.socket
    pair.acted.clear()  # a new table: its versions start again (nobody acted at it yet)
    await socket.send(json.dumps({"type": "subscribe", "table_id": table_id}))
    step.observations += step.measuring
    sent: dict[str, float] = {}
    decided: set[int] = set()  # a decision comes in an answer and as a push: taken once
    while not stop.is_set():
        receiving = asyncio.ensure_future(socket.recv())
        stopping = asyncio.ensure_future(stop.wait())
        await asyncio.wait({receiving, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if not receiving.done():
            receiving.cancel()
            return
        message = json.loads(receiving.result())
        kind = message.get("type")
        if kind in ("accepted", "problem") and message.get("ref") in sent:
            sent.pop(message["ref"])
            if kind == "problem":
                pair.acted.pop(int(message["ref"]) + 1, None)
            if kind == "problem" and message["problem"].get("status") != 409:
                step.error(f"act {message['problem'].get('code')}")
            elif step.measuring:
                step.actions += kind == "accepted"
                step.stale += kind == "problem"
            if kind == "accepted":  # a second decision in a row comes in the answer
                message = {"type": "observation", "observation": message["result"]["observation"]}
                kind = "observation" if message["observation"] is not None else "accepted"
        if (kind == "observation" and message["observation"]["legal_actions"]
                and message["observation"]["version"] not in decided):
            observation = message["observation"]
            decided.add(observation["version"])
            acted = pair.acted.pop(observation["version"], None)
            if acted is not None and step.measuring:
                step.latencies.append(time.perf_counter() - acted)
            await asyncio.sleep(rng.uniform(*THINK_S))  # the agent's model thinks
            if stop.is_set():
                return
            ref = str(observation["version"])
            sent[ref] = pair.acted[observation["version"] + 1] = time.perf_counter()
            await socket.send(json.dumps({
                "type": "act", "ref": ref, "table_id": table_id,
                "version": observation["version"],
                "action": rng.choice(observation["legal_actions"])["id"],
                "idempotency_key": uuid.uuid4().hex}))
        elif kind == "problem" and message.get("ref") is None:
            step.error(f"socket {message['problem'].get('code')}")
            return
        elif kind == "end":
            return


async def play(http: AgentConnection, table_id: str, step: Step, stop: asyncio.Event,
               rng: random.Random, pair: Pairing, first: dict[str, Any] | None, *,
               observe_after_acting: bool) -> None:
    """One table, as the docs' loop and the SDK's ``Runner`` play it: while the seat is
    to act it decides from the observation its last request's answer carried (``first``:
    the join's); when another seat is, it holds ``observation?wait_s=30``.
    ``observe_after_acting``: an agent that ignores the action's answer and observes after
    every action."""
    base = f"/v1/tables/{table_id}"
    observation = first
    if observation is not None and observation["legal_actions"]:
        pair.partner_told(step, observation["version"])
    while not stop.is_set():
        if observation is None or not observation["legal_actions"]:
            answer = await http.request("GET", f"{base}/observation", params={"wait_s": 30})
            if answer.status != 200:
                step.error(f"observe {answer.status}")
                return
            step.observations += step.measuring
            observation = answer.json()
            if observation["status"] == "finished":
                return
            if not observation["legal_actions"]:
                continue  # the wait ran out: observe again, held
            pair.partner_told(step, observation["version"])
        await asyncio.sleep(rng.uniform(*THINK_S))  # the agent's model thinks
        if stop.is_set():
            return
        action = rng.choice(observation["legal_actions"])["id"]
        version = observation["version"]
        if step.act_wait:  # the partner may be told before this held answer comes
            pair.turn_passed(step, version + 1)
        started = time.perf_counter()
        acted = await http.request("POST", f"{base}/actions", json_body={
            "version": version, "action": action},
            params={"wait_s": 30} if step.act_wait else None,
            headers={"Idempotency-Key": uuid.uuid4().hex})
        elapsed = time.perf_counter() - started
        observation = None
        if acted.status == 200:
            following = acted.json()["observation"]
            if step.measuring:
                step.actions += 1
                if not step.act_wait or following["version"] == version + 1:
                    step.latencies.append(elapsed)  # (else it was held: see its handover)
            if following["status"] == "finished":
                return  # (--observe-after-acting's next observation would say so too)
            if step.act_wait and following["version"] > version + 1:
                pair.partner_told(step, following["version"])  # held until its turn came
            elif not following["legal_actions"]:
                pair.turn_passed(step, following["version"])  # to the partner
            if not observe_after_acting:
                observation = following
        elif acted.status == 409:
            step.stale += step.measuring  # a turn clock or a retry got there first
        else:
            step.error(f"act {acted.status}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds process ``pid`` used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker_pids(server_pid: int) -> list[int]:
    """The gateway's worker processes: the children of ``agents-club serve``."""
    children = Path(f"/proc/{server_pid}/task/{server_pid}/children").read_text().split()
    return [int(pid) for pid in children] or [server_pid]


def sample(step: Step, redis_url: str, namespace: str, server_pid: int) -> None:
    """Note the workers' Redis connections and RSS now, keeping the most seen."""
    by_node = connections_by_node(redis_url, namespace)
    counts = sum(by_node, Counter[str]())
    step.redis_connections = max(step.redis_connections, sum(counts.values()))
    step.redis_on_one_node = max(step.redis_on_one_node, *(sum(node.values()) for node in by_node))
    for pid, count in counts.items():
        step.redis_by_worker[pid] = max(step.redis_by_worker.get(pid, 0), count)
    for worker in worker_pids(server_pid):
        with contextlib.suppress(OSError):
            step.rss_mb[str(worker)] = max(step.rss_mb.get(str(worker), 0.0), rss_mb(worker))


async def run_step(url: str, tokens: TokenService, agents: int, args: argparse.Namespace,
                   redis_url: str, namespace: str, server_pid: int) -> Step:
    step = Step(agents, transport=args.transport, act_wait=args.transport == "act-wait")
    yardstick_before = await asyncio.to_thread(yardstick_ms)
    stop = asyncio.Event()
    pairs = [Pairing() for _ in range(agents // 2)]
    connections = [
        AgentConnection(url, {"Authorization": "Bearer " + tokens.issue(
            agent_id=f"cap-{agents}-{i}", name=f"cap{agents}x{i}", scopes={f"game:{GAME}"}).token})
        for i in range(agents)
    ]
    tasks = []
    for start in range(0, agents, 2):  # a pair at a time, spread over the ramp
        for i in (start, start + 1):
            tasks.append(asyncio.create_task(
                agent(connections[i], i, pairs[i // 2], step, stop, random.Random(i),
                      observe_after_acting=args.observe_after_acting)))
        await asyncio.sleep(args.ramp / (agents / 2))
    await asyncio.sleep(args.settle)
    step.measuring = True
    measure_until = time.monotonic() + args.seconds
    cpu_before: dict[str, float] = {}
    client_before = time.process_time()
    redis_before = await asyncio.to_thread(redis_cpu_seconds, redis_url)
    while time.monotonic() < measure_until:
        await asyncio.to_thread(sample, step, redis_url, namespace, server_pid)
        for pid in step.rss_mb:
            if pid not in cpu_before:
                cpu_before[pid] = cpu_seconds(int(pid))
        await asyncio.sleep(2)
    step.measuring = False
    step.client_cpu_s = time.process_time() - client_before
    step.redis_cpu_s = await asyncio.to_thread(redis_cpu_seconds, redis_url) - redis_before
    step.load_average = os.getloadavg()[0]
    for pid, worker_before in cpu_before.items():
        step.cpu_s[pid] = cpu_seconds(int(pid)) - worker_before
    stop.set()
    await asyncio.wait(tasks, timeout=40)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.gather(*(connection.close() for connection in connections))
    step.yardstick_ms = (yardstick_before, await asyncio.to_thread(yardstick_ms))
    return step


def report(step: Step) -> None:
    workers = ", ".join(f"{pid}: {rss:.0f} MB" for pid, rss in sorted(step.rss_mb.items()))
    redis_split = ", ".join(f"{pid}: {n}" for pid, n in sorted(step.redis_by_worker.items()))
    requests = step.actions + step.observations
    cpu = sum(step.cpu_s.values())
    print(f"{step.agents:>6} agents: {step.actions} actions (p50 {step.p(0.5):.1f} ms, "
          f"p99 {step.p(0.99):.1f} ms), {step.observations} observations, "
          f"{requests / max(step.actions, 1):.2f} requests per decision (seating excluded), "
          f"turn handover "
          f"p50 {step.p(0.5, step.handovers):.1f} ms p99 {step.p(0.99, step.handovers):.1f} ms, "
          f"{step.stale} stale, {len(step.errors)} errors; Redis connections <= "
          f"{step.redis_connections} ({redis_split}; {step.redis_on_one_node} on one server); RSS {workers}; workers' CPU "
          f"{cpu:.1f} s ({cpu / max(requests, 1) * 1000:.2f} ms per request), client's CPU "
          f"{step.client_cpu_s:.1f} s, Redis's CPU {step.redis_cpu_s:.1f} s, load average {step.load_average:.1f} on "
          f"{os.cpu_count()} cores; yardstick {step.yardstick_ms[0]:.1f} ms before, "
          f"{step.yardstick_ms[1]:.1f} after"
          + (f"; first errors: {step.errors[:3]}" if step.errors else ""), flush=True)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


async def measure(url: str, tokens: TokenService, args: argparse.Namespace, redis_url: str,
                  namespace: str, server_pid: int) -> list[Step]:
    steps = []
    for agents in args.steps:
        # The load client's own collector stays off while a step runs: its young and middle
        # collections paused it for 20-95 ms at 3,000 agents (gc.callbacks), and every
        # answer that came meanwhile was timed late, as if the server had been slow. The
        # step's cyclic garbage waits for the collection between steps.
        gc.collect()
        gc.disable()
        try:
            step = await run_step(url, tokens, agents - agents % 2, args, redis_url, namespace,
                                  server_pid)
        finally:
            gc.enable()
        report(step)
        steps.append(step)
        if not step.held and not args.keep_going:
            break
    return steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=lambda text: [int(n) for n in text.split(",")],
                        default=[1000, 2000, 3000, 4000], help="agents per step, comma-separated")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds per step")
    parser.add_argument("--ramp", type=float, default=10.0, help="seconds to start a step's agents")
    parser.add_argument("--settle", type=float, default=8.0,
                        help="unmeasured seconds after the ramp")
    parser.add_argument("--max-connections", type=int, default=16,
                        help="AGENTS_CLUB_REDIS_MAX_CONNECTIONS of each worker")
    parser.add_argument("--observe-after-acting", action="store_true",
                        help="agents observe again after every action, even while still to "
                             "act, instead of going on from the action's answer (more "
                             "requests per action)")
    parser.add_argument("--transport", choices=["observe-act", "act-wait", "ws"],
                        default="observe-act",
                        help="act-wait: each action is sent with wait_s=30 and answered at the "
                             "seat's next decision, one request per decision (its latency: "
                             "from sending it until the partner is told); ws: over the bot "
                             "socket, one held per agent")
    parser.add_argument("--keep-going", action="store_true",
                        help="run every step even after one missed the targets (to see the "
                             "Redis connections and RSS at the larger sizes too)")
    parser.add_argument("--server-root", type=Path, default=None,
                        help="serve another checkout's code (with its .venv), to compare")
    parser.add_argument("--cluster", action="store_true",
                        help="then the same on a local 3-primary Redis Cluster, and the ratios")
    parser.add_argument("--contend", type=int, default=0, metavar="CORES",
                        help="keep this many cores busy with other processes throughout "
                             "(bench/contention.py): the headroom a step has to spare")
    args = parser.parse_args(argv)
    with contending(args.contend) as busy:
        if busy:
            print(f"competing load: {len(busy)} busy process(es), one core each "
                  f"(pids {', '.join(map(str, busy))})", flush=True)
        return _both(args)


def _both(args: argparse.Namespace) -> int:
    """On one Redis, then (``--cluster``) on a local cluster, and the ratios."""
    signing_key = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()).decode()
    namespace = f"capacity-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="agents-club-capacity-") as scratch:
        data_dir = Path(scratch)
        embedded: EmbeddedRedis | None = None
        redis_url = os.environ.get("REDIS_URL")
        if not redis_url:
            embedded = EmbeddedRedis(data_dir / "redis", persistent=False).start()
            redis_url = embedded.url
        try:
            single = _capacity(args, redis_url, namespace, data_dir, signing_key)
        finally:
            if embedded is not None:
                embedded.stop()
        _summary(single)
        if not args.cluster:
            return 0
        with LocalCluster(data_dir / "cluster") as cluster:
            print(f"\n-- the same on a local Redis Cluster ({cluster.primaries} primaries)",
                  flush=True)
            on_cluster = _capacity(args, cluster.url, namespace + "-c", data_dir, signing_key)
        _summary(on_cluster)
    _ratios(single, on_cluster)
    return 0


def _capacity(args: argparse.Namespace, redis_url: str, namespace: str, data_dir: Path,
              signing_key: str) -> list[Step]:
    """Every step against a fresh 2-worker gateway on ``redis_url``."""
    env = {
        "AGENTS_CLUB_ENVIRONMENT": "test", "REDIS_URL": redis_url,
        "AGENTS_CLUB_REDIS_NAMESPACE": namespace, "AGENTS_CLUB_DATA_DIR": str(data_dir),
        "AGENTS_CLUB_SIGNING_KEY_PEM": signing_key, "AGENTS_CLUB_ORGANISER_KEY": ORGANISER_KEY,
        "AGENTS_CLUB_REDIS_MAX_CONNECTIONS": str(args.max_connections),
        "AGENTS_CLUB_LOG_LEVEL": "WARNING",
    }
    settings = Settings.model_validate({
        "environment": "test", "redis_url": redis_url, "redis_namespace": namespace,
        "data_dir": data_dir, "signing_key_pem": signing_key, "organiser_key": ORGANISER_KEY,
    })
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = data_dir / f"gateway-{namespace}.log"
    with gateway_process(port, env, workers=2, log_path=log_path,
                         root=args.server_root) as server:
        steps = _run(measure(url, TokenService(settings), args, redis_url, namespace, server.pid))
    _tell_log(log_path)
    return steps


def _tell_log(log_path: Path, lines: int = 20) -> None:
    """Print the last ``lines`` of what the gateway logged (it logs warnings and errors
    only here): a step that missed may have a reason there."""
    with contextlib.suppress(OSError):
        logged = log_path.read_text(errors="replace").splitlines()
        if logged:
            print(f"the gateway logged {len(logged)} lines; the last ones:", flush=True)
            for line in logged[-lines:]:
                print("  " + line[:300], flush=True)


def held_by_size(steps: list[Step]) -> dict[int, tuple[int, int]]:
    """Agents per step -> (steps of that size held, steps of that size run)."""
    tally: dict[int, tuple[int, int]] = {}
    for step in steps:
        held, ran = tally.get(step.agents, (0, 0))
        tally[step.agents] = (held + step.held, ran + 1)
    return tally


def largest_held(steps: list[Step]) -> int:
    """The most agents at which every step run held: a size repeated (``--steps
    3000,3000,3000``) counts only if none of its steps missed."""
    return max((agents for agents, (held, ran) in held_by_size(steps).items() if held == ran),
               default=0)


def _summary(steps: list[Step]) -> None:
    best = largest_held(steps)
    print()
    for agents, (held, ran) in sorted(held_by_size(steps).items()):
        print(f"  {agents:>6} agents: {held} of {ran} step{'s' if ran > 1 else ''} held")
    print(f"largest step held (every step of that size: action p99 <= {P99_TARGET_MS:.0f} ms, "
          f"no errors): {best} agents   target >= {AGENTS_TARGET}: "
          f"{verdict(best >= AGENTS_TARGET)}")
    most_redis = max((step.redis_connections for step in steps), default=0)
    most_on_node = max((step.redis_on_one_node for step in steps), default=0)
    print(f"Redis connections in use (most seen, both workers): {most_on_node} on one Redis "
          f"server ({most_redis} over all)   target <= {REDIS_CONNECTIONS_TARGET} on one: "
          f"{verdict(most_on_node <= REDIS_CONNECTIONS_TARGET)}")
    most_rss = max((rss for step in steps for rss in step.rss_mb.values()), default=0.0)
    print(f"worker RSS (most seen): {most_rss:.0f} MB   target <= {RSS_TARGET_MB:.0f} MB: "
          f"{verdict(most_rss <= RSS_TARGET_MB)}", flush=True)


def _ratios(single: list[Step], on_cluster: list[Step]) -> None:
    """Cluster against one Redis: the largest step held, and actions/s per step."""
    print()
    held_single, held_cluster = largest_held(single), largest_held(on_cluster)
    if held_single:
        ratio = held_cluster / held_single
        print(f"cluster / single largest step held: {held_cluster} / {held_single} = {ratio:.2f}"
              f"   target >= {CLUSTER_RATIO_TARGET}: {verdict(ratio >= CLUSTER_RATIO_TARGET)}")
    by_agents = {step.agents: step for step in single}
    for step in on_cluster:
        alone = by_agents.get(step.agents)
        if alone is None or not alone.actions:
            continue
        ratio = step.actions / alone.actions  # the same measured seconds
        print(f"  {step.agents:>6} agents: actions {step.actions} / {alone.actions} = {ratio:.2f}, "
              f"action p99 {step.p(0.99):.1f} / {alone.p(0.99):.1f} ms, Redis connections "
              f"{step.redis_connections} / {alone.redis_connections}", flush=True)


def _run(main: Any) -> list[Step]:
    """Run the load generator on uvloop when installed (it shares the machine with the
    server, so every cycle it saves is the server's)."""
    try:
        import uvloop
    except ImportError:
        result: list[Step] = asyncio.run(main)
        return result
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        ran: list[Step] = runner.run(main)
        return ran


if __name__ == "__main__":
    raise SystemExit(main())
