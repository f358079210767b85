"""docs/mcp.md "Playing after admission": an MCP client that connects with no credentials
passes admission and then plays in the same connection, through tools alone and with no
reconfiguration, passing the token it earned as each tool's ``token`` argument; the token
is checked on every call, so its revocation ends what the client may do.

Driven by the official ``mcp`` client against the real gateway (uvicorn on loopback) and
Redis, as tests/agents/test_mcp.py is.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx2

from tests.agents.conftest import RunningGateway
from tests.agents.test_mcp import GAME, mcp_client, payload, problem_of


def test_a_client_without_credentials_passes_admission_and_plays_a_table_to_its_end(
    gateway: RunningGateway, oracle: Any
) -> None:
    async def run() -> None:
        async with mcp_client(gateway) as client:  # no header: no credentials at all
            refused = problem_of(await client.call_tool("create_table", {"game": GAME, "mode": "family", "seats": 2}))
            assert refused["code"] == "auth/missing" and "`token` argument" in refused["detail"]
            name = f"mcpt-{uuid.uuid4().hex[:8]}"
            challenge = payload(await client.call_tool("ask_admission_challenge", {"agent_name": name, "game": GAME}))
            answers, puzzle = oracle(name)
            passed = payload(await client.call_tool("answer_admission_challenge", {
                "challenge_id": challenge["challenge_id"], "answers": answers, "puzzle": puzzle}))
            token = passed["access_token"]
            table = payload(await client.call_tool("create_table", {
                "game": GAME, "mode": "family", "seats": 2, "house_bots": [{"seat": 1, "bot": "random"}],
                "options": {"turn_limit_per_seat": 20}, "token": token}))
            assert table["your_seat"] == 0 and table["status"] == "playing"
            moves = 0
            for _ in range(200):
                seen = payload(await client.call_tool("observe", {"table_id": table["id"], "wait_s": 5, "token": token}))
                assert seen["seat"] == 0
                if seen["status"] == "finished":
                    break
                if not seen["legal_actions"]:
                    continue
                payload(await client.call_tool("act", {
                    "table_id": table["id"], "version": seen["version"],
                    "action": seen["legal_actions"][0]["id"], "token": token}))
                moves += 1
            else:
                raise AssertionError("the table did not finish")
            assert seen["outcome"] is not None and moves > 0
            events = payload(await client.call_tool("recent_events", {"table_id": table["id"], "token": token}))
            assert events["events"]
            assert payload(await client.call_tool("my_assignments", {"wait_s": 0, "token": token}))["assignments"] == []
            # revocation ends what the token may do, from the next call
            revoked = httpx2.post(f"{gateway.base_url}/v1/auth/revoke", json={},
                                  headers={"Authorization": f"Bearer {token}"})
            assert revoked.status_code == 200, revoked.text
            after = problem_of(await client.call_tool("create_table", {
                "game": GAME, "mode": "family", "seats": 2, "token": token}))
            assert after["code"] == "auth/revoked"
            forged = problem_of(await client.call_tool("join_table", {"table_id": table["id"], "token": "not-a-token"}))
            assert forged["code"] == "auth/invalid"

    asyncio.run(run())
