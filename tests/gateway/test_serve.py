"""``agents-club serve`` really starts: embedded Redis with an AOF, workers, clean stop."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from agents_club_cli.embedded_redis import free_port, redis_answers
from agents_club_cli.serve import wait_until_ready
from tests.prometheus_text import sample


def _clean_environment() -> dict[str, str]:
    """The test process's environment without any Redis URL or gateway setting."""
    return {
        name: value
        for name, value in os.environ.items()
        if name != "REDIS_URL" and not name.startswith("AGENTS_CLUB_")
    }


def _embedded_redis_port(data_dir: Path) -> int:
    """The port the embedded Redis listens on, from its own log file's config echo."""
    log = (data_dir / "redis" / "redis.log").read_text(encoding="utf-8", errors="replace")
    found = re.search(r"Running mode=\w+, port=(\d+)", log)
    assert found, "no port in the embedded Redis log"
    return int(found.group(1))


def _shut_down_redis(data_dir: Path) -> None:
    """Stop an embedded Redis left behind by a serve that had to be killed."""
    try:
        port = _embedded_redis_port(data_dir)
        with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
            conn.sendall(b"*2\r\n$8\r\nSHUTDOWN\r\n$6\r\nNOSAVE\r\n")
    except (OSError, AssertionError):
        pass


ROOT = Path(__file__).resolve().parents[2]
THE_README_COMMAND = [str(ROOT / "run"), "serve"]
"""The README's first set-up command: it brings .venv to the lock (``uv sync
--locked``, nothing to do where the suite already runs), then execs ``agents-club
serve``, so the signal reaches the gateway itself."""


@pytest.mark.parametrize(
    ("command", "workers", "stop_signal"),
    [([sys.executable, "-m", "agents_club_cli.main", "serve"], 2, signal.SIGTERM),
     (THE_README_COMMAND, 1, signal.SIGINT)],
    ids=["2w-term", "run-serve-1w-int"],
)
def test_serve_starts_embedded_redis_and_stops_it(
    tmp_path: Path, command: list[str], workers: int, stop_signal: signal.Signals
) -> None:
    port = free_port()
    data_dir = tmp_path / "data"
    process = subprocess.Popen(
        [*command, "--port", str(port), "--workers", str(workers), "--data-dir", str(data_dir)],
        env=_clean_environment(),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(base, process)
        assert httpx.get(f"{base}/readyz").json() == {"status": "ok"}
        redis_port = _embedded_redis_port(data_dir)
        assert redis_answers("127.0.0.1", redis_port)
        organiser_key = (data_dir / "organiser-key").read_text().strip()
        minted = httpx.post(f"{base}/v1/auth/organiser/tokens",
                            headers={"X-Organiser-Key": organiser_key}, json={"name": "bob"})
        assert minted.status_code == 201
    finally:
        process.send_signal(stop_signal)
        try:
            _, stderr = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            _, stderr = process.communicate()
            _shut_down_redis(data_dir)  # the killed serve could not stop it
            raise AssertionError(
                "serve did not stop: " + stderr.decode(errors="replace")[-3000:]
            ) from None
    assert process.returncode == 0, stderr.decode(errors="replace")[-2000:]
    assert not redis_answers("127.0.0.1", redis_port), "the embedded Redis outlived serve"
    aof = data_dir / "redis"
    assert (aof / "appendonly.aof").exists() or (aof / "appendonlydir").is_dir()
    for key_file in ("signing-key.pem", "organiser-key"):
        assert (data_dir / key_file).stat().st_mode & 0o777 == 0o600
    log_text = stderr.decode(errors="replace")
    assert organiser_key not in log_text
    assert minted.json()["access_token"] not in log_text


def test_serve_refuses_production_without_secrets(tmp_path: Path) -> None:
    environment = {**_clean_environment(), "AGENTS_CLUB_ENVIRONMENT": "production"}
    finished = subprocess.run(
        [sys.executable, "-m", "agents_club_cli.main", "serve", "--data-dir", str(tmp_path)],
        env=environment, capture_output=True, timeout=60, check=False,
    )
    assert finished.returncode == 2
    message = finished.stderr.decode()
    assert "AGENTS_CLUB_SIGNING_KEY_PEM" in message and "AGENTS_CLUB_ORGANISER_KEY" in message
    assert not (tmp_path / "signing-key.pem").exists()


def test_serve_uses_redis_url_when_set(tmp_path: Path, redis_url: str, redis_namespace: str) -> None:
    port = free_port()
    data_dir = tmp_path / "data"
    environment = {**_clean_environment(), "REDIS_URL": redis_url,
                   "AGENTS_CLUB_REDIS_NAMESPACE": redis_namespace}
    process = subprocess.Popen(
        [sys.executable, "-m", "agents_club_cli.main", "serve", "--port", str(port),
         "--data-dir", str(data_dir)],
        env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_until_ready(f"http://127.0.0.1:{port}", process)
        assert not (data_dir / "redis").exists()  # no embedded server was started
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert process.returncode == 0


def _workers_of(serve_pid: int) -> list[int]:
    """The worker processes of a running serve (its children started by ``spawn``: not
    redis-server, nor multiprocessing's resource tracker)."""
    children: list[int] = []
    for task in Path(f"/proc/{serve_pid}/task").iterdir():
        # A thread of serve that ended meanwhile has no children to read.
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            children += [int(pid) for pid in (task / "children").read_text().split()]
    workers = []
    for pid in children:
        try:
            if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                workers.append(pid)
        except FileNotFoundError:  # it ended meanwhile
            pass
    return workers


ESTABLISHED, LISTEN = "01", "0A"
"""TCP states as /proc/net/tcp writes them."""


def _connections_held(pid: int, port: int, state: str = ESTABLISHED) -> int:
    """How many TCP sockets on local ``port`` in ``state`` (established connections, or
    the listening socket) process ``pid`` holds."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        target = os.readlink(fd) if fd.is_symlink() else ""
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    held = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local_port = int(fields[1].split(":")[1], 16)
        if local_port == port and fields[3] == state and fields[9] in inodes:
            held += 1
    return held


def _healthz_count(base: str) -> float:
    text = httpx.get(f"{base}/metrics").text
    return sample(text, "agents_club_http_requests_total", route="/healthz", status="200")


@pytest.mark.parametrize("loop_name", ["asyncio", "uvloop"])
def test_connections_accepted_on_a_workers_socket_get_tcp_nodelay(loop_name: str) -> None:
    """The event loop sets TCP_NODELAY on what it accepts only from a socket whose protocol
    is IPPROTO_TCP: without it, each answer's second write waited for a delayed ACK."""
    from agents_club_cli.workers import listening_socket

    nodelay: list[int] = []

    class Recorder(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            sock = transport.get_extra_info("socket")
            nodelay.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    async def accept_one() -> None:
        server = await asyncio.get_running_loop().create_server(
            Recorder, sock=listening_socket("127.0.0.1", 0))
        port = server.sockets[0].getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        while not nodelay:
            await asyncio.sleep(0.01)
        writer.close()
        server.close()
        await server.wait_closed()

    if loop_name == "uvloop":
        pytest.importorskip("uvloop").run(accept_one())
    else:
        asyncio.run(accept_one())
    assert nodelay == [1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_REUSEPORT workers are Linux's")
def test_workers_share_the_connections_and_a_dead_worker_is_replaced(
    tmp_path: Path, redis_url: str, redis_namespace: str
) -> None:
    port = free_port()
    environment = {**_clean_environment(), "REDIS_URL": redis_url,
                   "AGENTS_CLUB_REDIS_NAMESPACE": redis_namespace}
    process = subprocess.Popen(
        [sys.executable, "-m", "agents_club_cli.main", "serve", "--port", str(port),
         "--workers", "2", "--data-dir", str(tmp_path / "data")],
        env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(base, process)
        workers = _workers_of(process.pid)
        assert len(workers) == 2
        # Ready means one worker answers: a worker listens only once its app has started,
        # and until the other does, the kernel gives every connection to the first.
        deadline = time.monotonic() + 30
        while not all(_connections_held(pid, port, LISTEN) for pid in workers):
            assert time.monotonic() < deadline, "a worker never listened"
            time.sleep(0.05)
        # 40 agents connecting at once, each keeping its connection: uvicorn's shared
        # socket let one worker take most of such a burst; with a socket per worker the
        # kernel spreads them (fewer than 8 of 40 on one worker: odds about 1 in 50,000).
        clients = [httpx.Client(base_url=base) for _ in range(40)]
        try:
            for client in clients:
                assert client.get("/healthz").status_code == 200
            held = [_connections_held(pid, port) for pid in workers]
            # At least the 40: under a loaded machine a readiness probe's connection was
            # once still counted too (41).
            assert sum(held) >= 40 and min(held) >= 8, held
        finally:
            for client in clients:
                client.close()
        # Both workers answered; a scrape of either counts the requests of both.
        assert _healthz_count(base) == 40
        os.kill(workers[0], signal.SIGKILL)  # a worker dies while serving
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            current = _workers_of(process.pid)
            if len(current) == 2 and workers[0] not in current:
                break
            time.sleep(0.2)
        assert len(current) == 2 and workers[0] not in current, current
        wait_until_ready(base, process)
        # The dead worker's requests stay counted; the workers gauge counts the living.
        assert _healthz_count(base) == 40
        # (the new worker counts itself once its start-up is done; the dead one never again)
        deadline = time.monotonic() + 30
        while (serving := sample(httpx.get(f"{base}/metrics").text, "agents_club_workers")) != 2:
            assert time.monotonic() < deadline, serving
            time.sleep(0.2)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            _, stderr = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert process.returncode == 0, stderr.decode(errors="replace")[-2000:]
    assert "starting another" in stderr.decode(errors="replace")
    assert not any(Path(f"/proc/{pid}").exists() for pid in current), "a worker outlived serve"


def test_serve_reports_a_port_in_use_before_starting_workers(tmp_path: Path, redis_url: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        finished = subprocess.run(
            [sys.executable, "-m", "agents_club_cli.main", "serve", "--port", str(port),
             "--workers", "2", "--data-dir", str(tmp_path / "data")],
            env={**_clean_environment(), "REDIS_URL": redis_url},
            capture_output=True, timeout=60, check=False,
        )
    assert finished.returncode == 1
    assert f"cannot bind 127.0.0.1:{port}" in finished.stderr.decode()
