"""Function calling: an observation carries, on request, an OpenAI-compatible tool whose
argument is an enum of the legal action ids; the LLM agent uses it when its endpoint takes
tools and plays in text otherwise. respx mocks the LLM endpoint, nothing else; the tool
definitions come from the real gateway."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import respx

from agents import Runner
from agents.llm import LlmAgent
from agents.llm._chat import ChatClient
from agents.llm.transcript import Transcript

if TYPE_CHECKING:
    from tests.agents.conftest import RunningGateway

LLM = "https://tools.test/v1"


class ToolEndpoint:
    """A chat endpoint with function calling: it checks the request's tools and calls
    ``play_action`` with the last id of the enum it was given (and says what it used)."""

    def __init__(self, *, takes_tools: bool = True) -> None:
        self.takes_tools = takes_tools
        self.enums: list[list[str]] = []
        self.plain_requests = 0

    def reply(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        usage = {"prompt_tokens": 120, "completion_tokens": 7, "total_tokens": 127}
        if "tools" not in body:
            self.plain_requests += 1
            legal = [line.split(" ", 2)[1] for line in body["messages"][-1]["content"].splitlines()
                     if line[:1].isdigit() and ". " in line]
            return httpx.Response(200, json={"choices": [{"message": {
                "role": "assistant", "content": json.dumps({"action": legal[0]})}}], "usage": usage})
        if not self.takes_tools:
            return httpx.Response(400, json={"error": {"message": "tools are not supported"}})
        assert body["tool_choice"] == "required"
        (tool,) = body["tools"]
        function = tool["function"]
        assert tool["type"] == "function" and function["name"] == "play_action"
        parameters = function["parameters"]
        assert parameters["required"] == ["action"] and parameters["additionalProperties"] is False
        enum = parameters["properties"]["action"]["enum"]
        self.enums.append(enum)
        call = {"id": f"call_{len(self.enums)}", "type": "function",
                "function": {"name": "play_action", "arguments": json.dumps({"action": enum[-1]})}}
        return httpx.Response(200, json={"choices": [{"message": {
            "role": "assistant", "content": None, "tool_calls": [call]}}], "usage": usage})

    def chat(self) -> ChatClient:
        router = respx.Router(base_url=LLM, assert_all_called=False)
        router.post("/chat/completions").mock(side_effect=self.reply)
        return ChatClient(base_url=LLM, model="tool-caller", api_key="k",
                          transport=httpx.MockTransport(router.handler))


def test_an_observation_carries_an_enum_of_the_legal_ids_on_request(
    gateway: RunningGateway, short_game: dict[str, Any]
) -> None:
    with gateway.client(gateway.mint(games=[short_game["game"]])) as client:
        table = client.create_table(**short_game, house_bots=[{"seat": 1}])
        seen = client.observe(table.id, wait_s=5, tools="openai")
        plain = client.observe(table.id)
    assert plain.tools is None
    if seen.legal_actions:
        (tool,) = seen.tools or []
        assert tool["function"]["parameters"]["properties"]["action"]["enum"] == [
            action.id for action in seen.legal_actions]
    else:
        assert seen.tools == []
    with gateway.client() as spectator:
        assert spectator.observe(table.id, tools="openai").tools == []
    raw = httpx.get(f"{gateway.base_url}/v1/tables/{table.id}/observation", params={"tools": "anthropic"})
    assert raw.status_code == 422 and raw.json()["code"] == "request/invalid"


def _play(gateway: RunningGateway, short_game: dict[str, Any], endpoint: ToolEndpoint,
          tmp_path: Path) -> tuple[LlmAgent, Any, list[dict[str, Any]]]:
    with gateway.client(gateway.mint(games=[short_game["game"]])) as client:
        agent = LlmAgent(endpoint.chat(), rulebook=client.rulebook(short_game["game"]),
                         game_title="Market Fortune", transcripts=tmp_path)
        table = client.create_table(**short_game, house_bots=[{"seat": 1, "bot": "random"}])
        result = Runner(client, agent, printer=None).play(table.id)
    return agent, result, Transcript(tmp_path / f"{table.id}-seat0.jsonl").records()


def test_the_llm_agent_plays_by_function_calling_and_records_what_each_decision_cost(
    gateway: RunningGateway, short_game: dict[str, Any], tmp_path: Path
) -> None:
    endpoint = ToolEndpoint()
    agent, result, records = _play(gateway, short_game, endpoint, tmp_path)
    assert result.outcome is not None and result.refused == [] and agent.fallbacks == []
    assert result.actions == agent.decisions == len(endpoint.enums) > 3 and endpoint.plain_requests == 0
    assert agent.tool_format == "openai"
    decisions = [r for r in records if r["kind"] == "decision"]
    assert len(decisions) == agent.decisions
    assert all(d["via"] == "tool" and d["prompt_tokens"] == 120 and d["completion_tokens"] == 7
               and d["requests"] == 1 and d["decision_s"] >= d["llm_s"] >= 0 for d in decisions)
    final = records[-1]
    assert final["kind"] == "result" and final["prompt_tokens"] == 120 * agent.decisions
    assert final["completion_tokens"] == 7 * agent.decisions and final["decisions"] == agent.decisions


def test_an_endpoint_without_function_calling_is_played_in_text(
    gateway: RunningGateway, short_game: dict[str, Any], tmp_path: Path
) -> None:
    endpoint = ToolEndpoint(takes_tools=False)
    agent, result, records = _play(gateway, short_game, endpoint, tmp_path)
    assert result.outcome is not None and result.refused == [] and agent.fallbacks == []
    assert agent.tool_format is None  # it asks the gateway for no tools any more
    assert endpoint.plain_requests == agent.decisions > 3
    assert [r["kind"] for r in records].count("tools_refused") == 1
    assert {r["via"] for r in records if r["kind"] == "decision"} == {"text"}
