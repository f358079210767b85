"""A throwaway local Redis Cluster: 3 primaries and 3 replicas on free ports.

For the test suite (the ``redis_cluster_url`` fixture), ``bench/gateway.py``
and the failover test. Each node is a ``redis-server --cluster-enabled yes``
in a temporary directory, without persistence; ``redis-cli --cluster create
--cluster-replicas 1`` joins them, and the cluster is ready once every node
reports ``cluster_state:ok``. ``node_timeout_ms`` is small so that a killed
primary's replica is promoted within about a second.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

from agents_club_cli.embedded_redis import dies_with

__all__ = ["LocalCluster", "cluster_tools_missing"]


def cluster_tools_missing() -> str | None:
    """Why a local cluster cannot start here (``None``: it can)."""
    for tool in ("redis-server", "redis-cli"):
        if shutil.which(tool) is None:
            return f"{tool} is not on PATH"
    return None


START_ATTEMPTS = 3
"""Ports a node is started on before the cluster gives up (see :meth:`LocalCluster.__enter__`)."""


def _free_ports(count: int, *, besides: list[int] | None = None) -> list[int]:
    """``count`` free TCP ports whose cluster bus ports (+10000) are free too, none of
    ``besides``."""
    taken = list(besides or ())
    ports: list[int] = []
    while len(ports) < count:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port + 10000 > 65535 or port in ports or port in taken:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        ports.append(port)
    return ports


class LocalCluster:
    """Start with ``with LocalCluster(directory) as cluster:``; ``cluster.url`` names it."""

    def __init__(self, directory: Path, *, primaries: int = 3, node_timeout_ms: int = 1000,
                 server_args: tuple[str, ...] = ()) -> None:
        """``server_args``: more ``redis-server`` options for every node."""
        self.directory = directory
        self.server_args = server_args
        self.primaries = primaries
        self.node_timeout_ms = node_timeout_ms
        self.ports: list[int] = []
        self.processes: dict[int, subprocess.Popen[bytes]] = {}

    @property
    def url(self) -> str:
        """``redis+cluster://`` URL of the first running node (the client discovers the rest)."""
        running = [port for port in self.ports
                   if port not in self.processes or self.processes[port].poll() is None]
        return f"redis+cluster://127.0.0.1:{running[0]}/0"

    def _cli(self, port: int, *args: str) -> str:
        done = subprocess.run(["redis-cli", "-p", str(port), *args], capture_output=True,
                              text=True, timeout=30, check=False)
        return done.stdout

    def start_node(self, port: int) -> None:
        """Start (or restart) the node on ``port``."""
        node_dir = self.directory / str(port)
        node_dir.mkdir(parents=True, exist_ok=True)
        self.processes[port] = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1",
             "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
             "--cluster-node-timeout", str(self.node_timeout_ms),
             "--cluster-replica-validity-factor", "0",
             "--appendonly", "no", "--save", "", "--dir", str(node_dir),
             *self.server_args,
             "--logfile", str(node_dir / "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=dies_with(os.getpid()),  # a killed test run leaves no node behind
        )

    def __enter__(self) -> LocalCluster:
        self.ports = _free_ports(self.primaries * 2)
        try:
            for port in self.ports:
                self.start_node(port)
            for index in range(len(self.ports)):
                self._wait_started(index)
            created = subprocess.run(
                ["redis-cli", "--cluster", "create",
                 *(f"127.0.0.1:{port}" for port in self.ports),
                 "--cluster-replicas", "1", "--cluster-yes"],
                capture_output=True, text=True, timeout=60, check=False)
            if created.returncode != 0:
                raise RuntimeError(f"redis-cli --cluster create failed: {created.stdout}{created.stderr}")
            self.wait_ok()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_started(self, index: int) -> None:
        """Wait until the node on ``self.ports[index]`` answers.

        A port found free can be taken before the node binds it: another process's
        outgoing connection may get it (or its bus port) as its local port, since
        both come from the same range. A node that exits instead of answering is
        started again on other free ports, up to :data:`START_ATTEMPTS` in all.

        :raises RuntimeError: naming the last port tried and the end of its node's log.
        """
        for attempt in range(START_ATTEMPTS):
            if attempt:  # the last node exited: start it on another port
                del self.processes[self.ports[index]]
                self.ports[index] = _free_ports(1, besides=self.ports)[0]
                self.start_node(self.ports[index])
            port = self.ports[index]
            process = self.processes[port]
            self._wait(lambda p=port, node=process: node.poll() is not None
                       or self._cli(p, "PING").strip() == "PONG", "a node to start")
            if process.poll() is None:
                return
        log = self.directory / str(port) / "redis.log"
        tail = log.read_text(errors="replace").splitlines()[-5:] if log.exists() else []
        raise RuntimeError(f"the node on port {port} exited at each of {START_ATTEMPTS} "
                           f"starts: {' | '.join(tail)}")

    def wait_ok(self, timeout_s: float = 30.0) -> None:
        """Wait until every running node reports ``cluster_state:ok`` (the joining is
        gossip: ``create`` returns before all nodes agree) and every primary has an
        online replica."""
        def ok() -> bool:
            for port, process in self.processes.items():
                if process.poll() is not None:
                    continue
                info = self._cli(port, "CLUSTER", "INFO")
                if "cluster_state:ok" not in info:
                    return False
                replication = self._cli(port, "INFO", "replication")
                if "role:master" in replication and "state=online" not in replication:
                    return False  # a primary whose replica has not synced yet (WAIT 1 would fail)
            return True
        self._wait(ok, "cluster_state:ok", timeout_s)

    def _wait(self, ready: object, what: str, timeout_s: float = 30.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if callable(ready) and ready():
                return
            time.sleep(0.05)
        raise RuntimeError(f"timed out waiting for {what}")

    def kill(self, port: int) -> None:
        """SIGKILL the node on ``port`` (a crash: no goodbye to the cluster)."""
        process = self.processes[port]
        process.kill()
        process.wait(timeout=10)

    def primary_of(self, slot: int) -> int:
        """The port of the primary serving ``slot``, as a running node sees it
        (``CLUSTER NODES``: ``<id> <host>:<port>@<bus> <flags> ... <slot ranges>``)."""
        for port, process in self.processes.items():
            if process.poll() is not None:
                continue
            for line in self._cli(port, "CLUSTER", "NODES").splitlines():
                fields = line.split()
                if len(fields) < 8 or "master" not in fields[2] or "fail" in fields[2]:
                    continue
                for served in fields[8:]:
                    first, _, last = served.partition("-")
                    if first.isdigit() and int(first) <= slot <= int(last or first):
                        return int(fields[1].split("@")[0].rsplit(":", 1)[1])
            break
        raise RuntimeError(f"slot {slot} is not served")

    def stop(self) -> None:
        """Kill every node."""
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
        for process in self.processes.values():
            process.wait(timeout=10)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

