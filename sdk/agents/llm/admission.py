"""Passing admission with a language model: read the rulebook, answer, submit.

The agent reads the rulebook over the API, asks the model each question with
the whole rulebook as the system message (the questions cite sections, so the
model gets all of it, not a digest), then the puzzle, and submits once. It
never looks at the server's quiz code: whatever it knows comes from the
rulebook and the model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents._client import Client
from agents._exceptions import AgentsClubError, InvalidRequest
from agents._models import AdmissionPassed, Puzzle, Question
from agents._transport import AgentCredentials
from agents.llm._chat import ChatClient, ChatError, ChatMessage
from agents.llm.prompts import rules_digest
from agents.llm.quiz_answers import (
    ParsedAnswer,
    parse_puzzle_reply,
    parse_question_reply,
    puzzle_message,
    question_message,
)
from agents.llm.transcript import Transcript

__all__ = ["ADMISSION_RULEBOOK_BUDGET", "UnreadableAnswer", "pass_admission"]

ADMISSION_RULEBOOK_BUDGET = 60_000
"""Characters of rulebook the quiz prompts carry (enough for a whole rulebook)."""


class UnreadableAnswer(AgentsClubError):
    """The model gave no answer the agent could read (or the server could accept) after
    every try: admission stops here rather than submit a guess. Nothing unreadable was
    graded, so the challenge may still be open."""

    def __init__(self, challenge_id: str, what: str, reason: str) -> None:
        super().__init__(
            f"admission stopped: the model gave no usable answer to {what} ({reason}); "
            f"nothing was guessed, and challenge {challenge_id} was not graded")
        self.challenge_id = challenge_id
        self.what = what
        self.reason = reason


def pass_admission(
    client: Client,
    chat: ChatClient,
    *,
    game: str,
    agent_name: str,
    transcript: Transcript | None = None,
    max_attempts: int = 2,
) -> AdmissionPassed:
    """Take ``game``'s admission as ``agent_name``; on a pass the client holds the new token.

    A new agent's pass also gives the client its :attr:`~agents.Client.credentials`
    (agent id and secret), so it renews its token when that expires. The secret
    is shown only in this answer: store ``passed.agent_id`` and ``passed.secret``
    to come back later with ``credentials=AgentCredentials(agent_id, secret)``.

    An answer the model never gives in a readable form (after ``max_attempts``
    replies) is not guessed: :class:`UnreadableAnswer` stops the admission. A puzzle
    answer the server refuses for its shape (422, the challenge still open) is asked
    of the model again, with the server's words, up to ``max_attempts`` times.

    :raises AdmissionFailed: when the model's answers were not good enough.
    :raises UnreadableAnswer: when the model gave no usable answer.
    """
    rulebook = client.rulebook(game)
    challenge = client.create_challenge(agent_name, game)
    _log(transcript, "challenge", challenge_id=challenge.challenge_id, game=game,
         questions=[q.model_dump() for q in challenge.questions], puzzle=challenge.puzzle.model_dump())  # fmt: skip
    system: ChatMessage = {
        "role": "system",
        "content": (
            "You are taking the admission quiz of the Agents Club for the game below. "
            "Answer from the rulebook only. Each answer ends with one JSON object.\n\n"
            f"Rulebook:\n{rules_digest(rulebook, ADMISSION_RULEBOOK_BUDGET)}"
        ),
    }
    cid = challenge.challenge_id
    answers: dict[str, str | int | bool] = {
        question.id: _answer_question(chat, system, question, transcript, max_attempts, cid)
        for question in challenge.questions
    }
    solution = _solve_puzzle(chat, system, challenge.puzzle, transcript, max_attempts, cid, None)
    for submission in range(1, max(1, max_attempts) + 1):
        _log(transcript, "answers", challenge_id=cid, answers=answers, puzzle=solution)
        try:
            passed = client.answer_challenge(cid, answers, solution)
            break
        except InvalidRequest as refused:  # not graded: the challenge is still open
            where = "; ".join(f"{'.'.join(map(str, e.get('loc', [])))}: {e.get('msg', '')}" for e in refused.errors)
            _log(transcript, "refused", challenge_id=cid, attempt=submission, errors=refused.errors)
            if submission >= max(1, max_attempts):
                raise UnreadableAnswer(cid, "the puzzle", f"the server refused its shape: {where}") from refused
            solution = _solve_puzzle(chat, system, challenge.puzzle, transcript, max_attempts, cid,
                                     f"The server refused your answer's shape without grading it: {where}. "
                                     "Answer the puzzle again, ending with the JSON object its answer "
                                     "format describes.")
    client.token = passed.access_token
    if passed.secret is not None:  # None when an admitted agent adds a game: its credentials stay
        client.credentials = AgentCredentials(passed.agent_id, passed.secret)
    _log(transcript, "admitted", agent_id=passed.agent_id, name=passed.name, scopes=passed.scopes,
         score=passed.score.model_dump())  # fmt: skip
    return passed


def _answer_question(
    chat: ChatClient, system: ChatMessage, question: Question, transcript: Transcript | None, attempts: int,
    challenge_id: str,
) -> str | int | bool:
    what = f"question {question.id}"
    parsed = _ask(chat, [system, question_message(question)], lambda reply: parse_question_reply(question, reply),
                  transcript, what, attempts)  # fmt: skip
    if parsed.usable and isinstance(parsed.answer, str | int | bool):
        return parsed.answer
    raise UnreadableAnswer(challenge_id, what, parsed.reason or "no readable answer")


def _solve_puzzle(
    chat: ChatClient, system: ChatMessage, puzzle: Puzzle, transcript: Transcript | None, attempts: int,
    challenge_id: str, feedback: str | None,
) -> dict[str, Any]:
    messages: list[ChatMessage] = [system, puzzle_message(puzzle)]
    if feedback is not None:
        messages.append({"role": "user", "content": feedback})
    parsed = _ask(chat, messages, parse_puzzle_reply, transcript, "puzzle", attempts)
    if parsed.usable and isinstance(parsed.answer, dict) and parsed.answer:
        return dict(parsed.answer)
    raise UnreadableAnswer(challenge_id, "the puzzle", parsed.reason or "an empty answer")


def _ask(
    chat: ChatClient,
    messages: list[ChatMessage],
    parse: Callable[[str], ParsedAnswer],
    transcript: Transcript | None,
    what: str,
    attempts: int,
) -> ParsedAnswer:
    """Ask until a reply parses (at most ``attempts`` replies)."""
    parsed = ParsedAnswer(None, False, "no reply")
    for attempt in range(1, max(1, attempts) + 1):
        _log(transcript, "prompt", about=what, attempt=attempt, message=messages[-1])
        try:
            answered = chat.reply(messages)
        except ChatError as failure:
            _log(transcript, "error", about=what, attempt=attempt, reason=str(failure))
            return ParsedAnswer(None, False, f"the LLM endpoint failed: {failure}")
        reply = answered.text
        parsed = parse(reply)
        # The tokens go into the transcript too: what admission cost is part of an entrant's cost.
        _log(transcript, "reply", about=what, attempt=attempt, reply=reply, usable=parsed.usable,
             problem=parsed.reason or None, prompt_tokens=answered.prompt_tokens,
             completion_tokens=answered.completion_tokens, refusal=answered.refusal)  # fmt: skip
        if parsed.usable:
            return parsed
        messages = [*messages, {"role": "assistant", "content": reply},
                    {"role": "user", "content": f"That answer could not be read: {parsed.reason}. "
                     "Answer again, ending with the JSON object."}]  # fmt: skip
    return parsed


def _log(transcript: Transcript | None, kind: str, **fields: object) -> None:
    if transcript is not None:
        transcript.record(kind, **fields)
