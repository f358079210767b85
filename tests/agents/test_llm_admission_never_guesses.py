"""The reference LLM agent never guesses silently at admission (issue 36, point 5): an
answer it cannot read is asked again and then stops admission with a clear error (nothing
submitted, the challenge still open); a puzzle answer the server refuses for its shape
(422, not graded) is asked of the model again with the server's words.

The LLM endpoint is scripted with respx (tests/agents/conftest.py ``ScriptedLlm``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import agents
from agents.llm import ChatClient, Transcript, UnreadableAnswer, pass_admission

if TYPE_CHECKING:
    from tests.agents.conftest import RunningGateway, ScriptedLlm


def test_an_unreadable_question_answer_is_asked_again_then_stops_with_a_clear_error(
    gateway: RunningGateway, scripted: ScriptedLlm, chat: Callable[[], ChatClient], oracle: Callable[[str], tuple[dict[str, Any], dict[str, Any]]]
) -> None:
    scripted.question_reply = "Hard to say; somewhere between 3 and 4, or yes."
    with gateway.client() as client, pytest.raises(UnreadableAnswer) as stopped:
        pass_admission(client, chat(), game="market-fortune", agent_name=scripted.agent_name, max_attempts=2)
    assert isinstance(stopped.value, agents.AgentsClubError)
    assert "question q1" in str(stopped.value) and "nothing was guessed" in str(stopped.value)
    question_prompts = [m for m in scripted.requests if any("Admission question q1" in x["content"] for x in m)]
    assert len(question_prompts) == 2  # asked again once, then stopped
    # nothing was submitted: the challenge is still open and the right answers pass
    answers, puzzle = oracle(scripted.agent_name)
    with gateway.client() as client:
        passed = client.answer_challenge(stopped.value.challenge_id, answers, puzzle)
    assert passed.name == scripted.agent_name


def test_an_empty_puzzle_answer_is_never_submitted(
    gateway: RunningGateway, scripted: ScriptedLlm, chat: Callable[[], ChatClient]
) -> None:
    scripted.puzzle_replies = ["I give up: {}", "Still nothing: {}"]
    with gateway.client() as client, pytest.raises(UnreadableAnswer) as stopped:
        pass_admission(client, chat(), game="market-fortune", agent_name=scripted.agent_name, max_attempts=2)
    assert "the puzzle" in str(stopped.value) and "empty" in str(stopped.value)


def test_a_puzzle_answer_refused_for_its_shape_is_asked_again_with_the_servers_words(
    gateway: RunningGateway, scripted: ScriptedLlm, chat: Callable[[], ChatClient], tmp_path: Path
) -> None:
    scripted.puzzle_replies = ['{"guess": 1}', "Corrected:\n<solution>"]
    transcript = Transcript(tmp_path / "admission.jsonl")
    with gateway.client() as client:
        passed = pass_admission(client, chat(), game="market-fortune", agent_name=scripted.agent_name,
                                transcript=transcript)
    assert passed.score.puzzle_solved
    kinds = [record["kind"] for record in transcript.records()]
    assert kinds.count("refused") == 1 and kinds[-1] == "admitted"
    retold = scripted.requests[-1][-1]["content"]
    assert "refused your answer's shape without grading it" in retold
