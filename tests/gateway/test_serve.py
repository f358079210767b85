"""``agents-club serve`` really starts: embedded Redis with an AOF, workers, clean stop."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from agents_club_cli.serve import wait_until_ready
from gateway.embedded_redis import free_port, redis_answers


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


@pytest.mark.parametrize(
    ("workers", "stop_signal"), [(2, signal.SIGTERM), (1, signal.SIGINT)], ids=["2w-term", "1w-int"]
)
def test_serve_starts_embedded_redis_and_stops_it(
    tmp_path: Path, workers: int, stop_signal: signal.Signals
) -> None:
    port = free_port()
    data_dir = tmp_path / "data"
    process = subprocess.Popen(
        [sys.executable, "-m", "agents_club_cli.main", "serve", "--port", str(port),
         "--workers", str(workers), "--data-dir", str(data_dir)],
        env=_clean_environment(),
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
