"""The LLM agent end to end: respx scripts the LLM endpoint, the gateway is the real one.

Admission is passed from scripted replies that compute the right answers on
the test side (from the server's stored challenge and the quiz's solver); the
agent itself only sees the rulebook and the model's replies.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import agents
from agents.llm import ChatClient, EndpointDead, LlmAgent, Transcript, pass_admission
from agents.llm.agent import FALLBACK_GRACE
from agents.runner import Runner

if TYPE_CHECKING:
    from tests.agents.conftest import RunningGateway, ScriptedLlm


def test_admission_passes_from_scripted_replies(
    gateway: RunningGateway, scripted: ScriptedLlm, chat: Callable[[], ChatClient], tmp_path: Path
) -> None:
    transcript = Transcript(tmp_path / "admission.jsonl")
    with gateway.client() as client:
        passed = pass_admission(
            client, chat(), game="market-fortune", agent_name=scripted.agent_name, transcript=transcript
        )
        assert passed.score.questions_correct == passed.score.questions_total == 3
        assert passed.score.puzzle_solved and passed.secret
        assert client.token == passed.access_token
        me = client.me()
        assert me.name == scripted.agent_name and "market-fortune" in me.games
        renewed = client.exchange_credentials(passed.agent_id, passed.secret)
        assert renewed.agent_id == passed.agent_id
    kinds = [record["kind"] for record in transcript.records()]
    assert kinds[0] == "challenge" and kinds[-1] == "admitted"
    assert kinds.count("prompt") == 4
    # The rulebook went into every quiz prompt; the secret never reached the transcript.
    system = scripted.requests[0][0]["content"]
    assert "Rulebook:" in system and "Market Fortune" in system
    assert passed.secret not in transcript.path.read_text()


def test_after_admission_the_client_renews_an_expired_token_by_itself(
    gateway: RunningGateway, scripted: ScriptedLlm, chat: Callable[[], ChatClient]
) -> None:
    with gateway.client() as client:
        passed = pass_admission(client, chat(), game="market-fortune", agent_name=scripted.agent_name)
        assert passed.secret is not None
        assert client.credentials == agents.AgentCredentials(passed.agent_id, passed.secret)
        # The game outlived the admission's token: the next request must renew it, not fail.
        expired = gateway.tokens.issue(agent_id=passed.agent_id, name=passed.name, scopes=passed.scopes, ttl_s=-5).token
        client.token = expired
        assert client.me().agent_id == passed.agent_id
        assert client.token not in (expired, passed.access_token)


def test_admission_fails_with_a_score_on_wrong_answers(
    gateway: RunningGateway, scripted: ScriptedLlm, chat: Callable[[], ChatClient]
) -> None:
    scripted.right_answers = False
    with gateway.client() as client, pytest.raises(agents.AdmissionFailed) as failed:
        pass_admission(client, chat(), game="market-fortune", agent_name=scripted.agent_name)
    score = failed.value.score
    assert score["questions_correct"] == 0 and score["questions_total"] == 3
    assert len(score["missed_categories"]) == 3


def test_full_game_with_malformed_illegal_replies_and_a_counted_fallback(
    gateway: RunningGateway,
    scripted: ScriptedLlm,
    chat: Callable[[], ChatClient],
    short_game: dict[str, Any],
    tmp_path: Path,
) -> None:
    scripted.turn_script = {
        # decision 1: prose without an id, then an id that is not legal, then a good one
        1: ["Let me think about the market.", '{"action": "teleport:moon"}', '{"action": "<first>"}'],
        # decision 2: three unusable replies: the agent falls back to the first legal action
        2: ["", "no idea", '{"action": 42}'],
        # decision 3: the option number on its own
        3: ["1"],
    }
    with gateway.client() as client:
        pass_admission(client, chat(), game="market-fortune", agent_name=scripted.agent_name)
        rulebook = client.rulebook("market-fortune")
        agent = LlmAgent(
            chat(), rulebook=rulebook, game_title="Market Fortune", transcripts=tmp_path, max_attempts=3
        )
        table = client.create_table(
            **{**short_game, "game": "market-fortune"},
            house_bots=[{"seat": seat, "bot": "random"} for seat in range(1, short_game["seats"])],
        )
        lines: list[str] = []
        result = Runner(client, agent, printer=lines.append).play(table.id)

    assert result.outcome is not None and result.actions == agent.decisions >= 3
    assert result.refused == []  # every choice the agent sent was legal
    assert len(agent.fallbacks) == 1
    assert agent.fallbacks[0].reason == "'42' is not one of the legal action ids"
    assert agent.retries == 4
    records = Transcript(tmp_path / f"{table.id}-seat0.jsonl").records()
    kinds = [record["kind"] for record in records]
    assert kinds[0] == "game" and kinds[-1] == "result"
    assert kinds.count("fallback") == 1 and kinds.count("choice") == agent.decisions - 1
    problems = [record["problem"] for record in records if record["kind"] == "reply" and record["problem"]]
    assert problems[:2] == ["the reply names no legal action id", "'teleport:moon' is not one of the legal action ids"]
    assert records[-1]["fallbacks"] == 1 and records[-1]["outcome"] == result.outcome.model_dump()
    # Every turn prompt carried the digest, the seat's summary and the legal actions.
    turn_prompts = [request for request in scripted.requests if "Legal actions" in request[1]["content"]]
    assert turn_prompts and all("Rules digest:" in request[0]["content"] for request in turn_prompts)
    assert any(line.startswith("table ") for line in lines)


def test_a_failing_llm_endpoint_falls_back_and_says_why(
    gateway: RunningGateway, short_game: dict[str, Any], tmp_path: Path
) -> None:
    import httpx
    import respx

    router = respx.Router(base_url="https://down.test/v1")
    route = router.post("/chat/completions").mock(return_value=httpx.Response(503, headers={"Retry-After": "0"}))
    broken = ChatClient(base_url="https://down.test/v1", model="m", api_key="k", max_retries=1,
                        transport=httpx.MockTransport(router.handler))  # fmt: skip
    with gateway.client(gateway.mint(games=[short_game["game"]])) as client:
        table = client.create_table(
            **short_game, house_bots=[{"seat": s, "bot": "random"} for s in range(1, short_game["seats"])]
        )
        observation = client.observe(table.id)
        while observation.seat not in observation.to_act:
            client.events_page(table.id, after=observation.last_event_id, wait_s=3)
            observation = client.observe(table.id)
    agent = LlmAgent(broken, rulebook="# Rules", game_title="Test", transcripts=tmp_path)
    assert agent.choose(observation) == observation.legal_actions[0].id
    assert route.call_count == 2  # the endpoint was retried once, then given up on for this decision
    assert len(agent.fallbacks) == 1 and "LLM endpoint failed" in agent.fallbacks[0].reason
    kinds = [record["kind"] for record in Transcript(tmp_path / f"{table.id}-seat0.jsonl").records()]
    assert kinds == ["game", "prompt", "error", "fallback", "decision"]
    assert agent.costs[0].requests == 0 and agent.costs[0].failed_requests == 1
    # Dead on every ask: past the grace decisions, the agent stops instead of playing on.
    for _ in range(FALLBACK_GRACE - 2):
        assert agent.choose(observation) == observation.legal_actions[0].id
    with pytest.raises(EndpointDead, match=r"4 of 4 decisions fell back \(100%, threshold 50%\)"):
        agent.choose(observation)
    patient = LlmAgent(broken, rulebook="# Rules", game_title="Test", max_fallback_rate=None)
    for _ in range(FALLBACK_GRACE + 1):
        assert patient.choose(observation) == observation.legal_actions[0].id
    assert sum(cost.failed_requests for cost in patient.costs) == FALLBACK_GRACE + 1
    # With max_endpoint_failures=1 (the arena's default) a dead endpoint plays no fallback at all.
    strict = LlmAgent(broken, rulebook="# Rules", game_title="Test", max_endpoint_failures=1)
    with pytest.raises(EndpointDead, match="the endpoint failed 1 decision in a row; last: the LLM"):
        strict.choose(observation)
    assert strict.fallbacks == [] and [cost.via for cost in strict.costs] == ["none"]
    assert strict.costs[0].failed_requests == 1
