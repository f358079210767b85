"""``bench/capacity.py`` judges a size by every step of it, ``--contend`` takes cores for real,
the yardstick is measured in a fresh process, and an agent's HTTP reconnect leaves its bot
socket open (:class:`bench.loadgen.AgentConnection`, which both load generators use)."""

from __future__ import annotations

import asyncio
import gc
import os
import time

from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from bench import capacity
from bench.contention import contending
from bench.loadgen import AgentConnection
from bench.yardstick import measure_here, yardstick_ms


def _step(agents: int, action_s: float) -> capacity.Step:
    return capacity.Step(agents=agents, latencies=[action_s] * 100)


def test_a_size_counts_as_held_only_when_every_step_of_it_held() -> None:
    steps = [_step(2000, 0.010), _step(3000, 0.020), _step(3000, 0.150), _step(3000, 0.030)]
    assert capacity.held_by_size(steps) == {2000: (1, 1), 3000: (2, 3)}
    assert capacity.largest_held(steps) == 2000
    assert capacity.largest_held([_step(3000, 0.020), _step(3000, 0.099)]) == 3000


def test_a_step_with_errors_is_not_held_whatever_its_latency() -> None:
    failed = _step(3000, 0.010)
    failed.measuring = True
    failed.error("act 500")
    assert capacity.largest_held([failed]) == 0


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_contending_keeps_a_core_busy_and_stops_with_the_block() -> None:
    with contending(1) as pids:
        assert len(pids) == 1
        deadline = time.monotonic() + 30
        while _cpu_seconds(pids[0]) < 0.3:  # its start-up (imports) comes first
            assert time.monotonic() < deadline, "the busy process used no CPU"
            time.sleep(0.05)
    assert not os.path.exists(f"/proc/{pids[0]}") or _state(pids[0]) == "Z"


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


def test_no_cores_asked_starts_nothing() -> None:
    with contending(0) as pids:
        assert pids == []


def test_the_yardstick_runs_in_a_process_of_its_own() -> None:
    taken = yardstick_ms()
    assert 0.1 < taken < 10_000  # milliseconds of real work, not a failure's NaN


def test_measuring_here_leaves_the_collector_as_it_found_it() -> None:
    assert gc.isenabled()
    assert measure_here(rounds=3, repeats=1) > 0
    assert gc.isenabled()


async def _answer_once_then_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """An HTTP server whose keep-alive timeout has always run out: it answers one request,
    then closes the connection, so the client's next request on it finds it closed."""
    await reader.readuntil(b"\r\n\r\n")
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    await writer.drain()
    writer.close()


async def _echo(connection: ServerConnection) -> None:
    async for message in connection:
        await connection.send(message)


async def _reconnect_beside_a_socket() -> tuple[list[int], str]:
    http_server = await asyncio.start_server(_answer_once_then_close, "127.0.0.1", 0)
    http_port = http_server.sockets[0].getsockname()[1]
    async with serve(_echo, "127.0.0.1", 0) as socket_server:
        socket_port = next(iter(socket_server.sockets)).getsockname()[1]
        agent = AgentConnection(f"http://127.0.0.1:{http_port}", {})
        agent.socket = await connect(f"ws://127.0.0.1:{socket_port}")
        statuses = []
        for _ in range(3):  # the 2nd and 3rd find the connection closed and open another
            statuses.append((await agent.request("GET", "/")).status)
            await asyncio.sleep(0.05)  # the server's close reaches the client
        await agent.socket.send("still open")
        echoed = str(await agent.socket.recv())
        await agent.close()
        assert agent.socket is None
    http_server.close()
    await http_server.wait_closed()
    return statuses, echoed


def test_an_http_reconnect_leaves_the_agents_socket_open() -> None:
    statuses, echoed = asyncio.run(_reconnect_beside_a_socket())
    assert statuses == [200, 200, 200]
    assert echoed == "still open"
