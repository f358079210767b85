"""The LLM agent: a :class:`~agents.Bot` whose choices come from a chat model.

Each decision is one conversation: the system message holds the rules digest,
the user message the observation's plain-text summary and the numbered legal
actions. An unusable reply (no id, an id that is not legal, several ids, an
endpoint failure) is answered with what was wrong, up to ``max_attempts``
replies; after that the agent falls back to the first legal action, counts the
fallback and records why. Everything is written to the game's transcript.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agents.bot import Bot
from agents.llm._chat import (
    ChatClient,
    ChatError,
    ChatMessage,
    ChatReply,
    ChatTimeout,
    ToolsRefused,
)
from agents.llm.parsing import parse_action_reply
from agents.llm.prompts import retry_message, rules_digest, system_message, turn_message
from agents.llm.transcript import Transcript
from agents.wire.tools import ACTION_TOOL, openai_tools

if TYPE_CHECKING:
    from agents._models import Observation
    from agents.runner import GameResult

__all__ = ["DEFAULT_MAX_ATTEMPTS", "DecisionCost", "Fallback", "LlmAgent", "cost_totals"]

DEFAULT_MAX_ATTEMPTS = 3
"""Replies asked for per decision before falling back."""

DEFAULT_MAX_FALLBACK_RATE = 0.5
"""The share of fallback decisions past which the agent stops (:class:`EndpointDead`)."""

FALLBACK_GRACE = 4
"""Decisions made before the fallback threshold applies (one early failure is no verdict)."""


class Fallback:
    """One decision the model did not make: where, and why."""

    def __init__(self, table_id: str, version: int, action_id: str, reason: str) -> None:
        self.table_id = table_id
        self.version = version
        self.action_id = action_id
        self.reason = reason

    def __repr__(self) -> str:
        return f"Fallback({self.table_id!r}, v{self.version}, {self.action_id!r}: {self.reason})"


@dataclass(frozen=True)
class DecisionCost:
    """What one decision cost: the model's tokens (as the endpoint counted them; ``None``
    when it did not say), its requests, the time spent waiting for it, and the
    decision's whole time (prompting, retries and parsing included)."""

    table_id: str
    version: int
    requests: int
    prompt_tokens: int | None
    completion_tokens: int | None
    llm_s: float
    decision_s: float
    via: str
    """``tool`` (a function call), ``text`` (an id in the reply's text), ``fallback``, or
    ``none`` (the endpoint was given up as dead: no action was played)."""
    failed_requests: int = 0
    """Asks the endpoint failed (after the chat client's own retries): they are requests
    too, counted apart, so a dead endpoint does not read as "0 requests"."""
    timed_out_requests: int = 0
    """Of the failed asks, those that failed by not answering in time."""
    refused_requests: int = 0
    """Answered requests in which the model declined (a ``refusal``, a content filter)."""


class EndpointDead(ChatError):
    """The agent's LLM endpoint is not answering: its share of fallback decisions passed
    its threshold, or its endpoint failed ``max_endpoint_failures`` decisions in a row.
    Playing on would hand the table fallback moves in its name."""


class LlmAgent(Bot):
    """Plays from a chat model's replies.

    ``transcripts`` is the folder where each table's JSONL transcript goes
    (``<table id>-seat<N>.jsonl``); ``None`` keeps no transcript.

    With ``use_tools`` (the default) it asks the gateway for a function-calling
    definition of the legal actions (``tool_format``, which the runner passes as
    ``?tools=openai``) and the model for a call of it, so it cannot name an
    illegal move; an endpoint that refuses requests with tools switches the agent
    to plain text for the rest of its life. Each decision's tokens and time are
    recorded (``costs``, and a ``decision`` record in the transcript).

    Once at least :data:`FALLBACK_GRACE` decisions are made, a fallback that
    takes the share of fallback decisions above ``max_fallback_rate`` raises
    :class:`EndpointDead` instead of playing it (``None``: never), so a dead
    endpoint stops the agent with a clear error rather than playing on.
    ``max_endpoint_failures`` (``None``: no such limit) stops it sooner: after that
    many decisions in a row whose endpoint failed (after the chat client's own
    retries), :class:`EndpointDead` is raised instead of playing the last one's
    fallback. With 1, a dead endpoint plays no fallback move at all.
    """

    def __init__(
        self,
        chat: ChatClient,
        *,
        rulebook: str,
        game_title: str,
        transcripts: Path | None = None,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        printer: Callable[[str], None] | None = None,
        use_tools: bool = True,
        max_fallback_rate: float | None = DEFAULT_MAX_FALLBACK_RATE,
        max_endpoint_failures: int | None = None,
    ) -> None:
        self.chat = chat
        self.max_endpoint_failures = max_endpoint_failures
        self.endpoint_failures_in_a_row = 0
        self.max_fallback_rate = max_fallback_rate
        self.digest = rules_digest(rulebook)
        self.game_title = game_title
        self.transcripts = transcripts
        self.max_attempts = max(1, max_attempts)
        self.printer = printer
        self.fallbacks: list[Fallback] = []
        self.decisions = 0
        self.retries = 0
        self.use_tools = use_tools
        self.costs: list[DecisionCost] = []
        self._open: dict[str, Transcript] = {}

    @property
    def tool_format(self) -> str | None:
        """``openai`` while the agent plays by function calling; ``None`` in plain text."""
        return "openai" if self.use_tools else None

    def transcript_for(self, table_id: str, seat: int | None) -> Transcript | None:
        """The transcript of ``table_id`` (created on first use), or None without a folder."""
        if self.transcripts is None:
            return None
        if table_id not in self._open:
            transcript = Transcript(self.transcripts / f"{table_id}-seat{seat}.jsonl")
            transcript.record("game", table_id=table_id, seat=seat, game=self.game_title, model=self.chat.model)
            self._open[table_id] = transcript
        return self._open[table_id]

    def choose(self, observation: Observation) -> str:
        """Ask the model; retry unusable replies; fall back to the first legal action."""
        self.decisions += 1
        started = time.monotonic()
        legal = observation.legal_actions
        ids = [option.id for option in legal]
        transcript = self.transcript_for(observation.table_id, observation.seat)
        messages: list[ChatMessage] = [
            system_message(self.game_title, self.digest),
            turn_message(observation.summary, legal, seat=observation.seat or 0, version=observation.version),
        ]
        replies: list[ChatReply] = []
        failed = timed_out = 0
        reason = "no reply"
        for attempt in range(1, self.max_attempts + 1):
            _log(transcript, "prompt", version=observation.version, attempt=attempt, message=messages[-1])
            try:
                reply = self._ask(messages, observation, transcript)
            except ChatError as failure:
                failed += 1
                timed_out += isinstance(failure, ChatTimeout)
                reason = f"the LLM endpoint failed: {failure}"
                _log(transcript, "error", version=observation.version, attempt=attempt, reason=reason)
                break  # the client already retried the endpoint; asking again now rarely helps
            replies.append(reply)
            action_id, reason, said = _chosen(reply, ids)
            _log(transcript, "reply", version=observation.version, attempt=attempt, reply=said,
                 action=action_id, problem=reason or None, prompt_tokens=reply.prompt_tokens,
                 completion_tokens=reply.completion_tokens, latency_s=reply.latency_s)  # fmt: skip
            if action_id is not None:
                _log(transcript, "choice", version=observation.version, action=action_id, attempts=attempt)
                self.endpoint_failures_in_a_row = 0
                self._cost(observation, replies, started, "tool" if reply.tool_arguments is not None else "text",
                           transcript, failed, timed_out)
                return action_id
            if attempt < self.max_attempts:
                self.retries += 1
                messages += [{"role": "assistant", "content": said}, retry_message(reason, legal)]
        self.endpoint_failures_in_a_row = self.endpoint_failures_in_a_row + 1 if failed and not replies else 0
        if self.max_endpoint_failures is not None and self.endpoint_failures_in_a_row >= self.max_endpoint_failures:
            self._cost(observation, replies, started, "none", transcript, failed, timed_out)
            _log(transcript, "endpoint_dead", version=observation.version, reason=reason)
            raise EndpointDead(f"the endpoint failed {self.endpoint_failures_in_a_row} "
                               f"decision{'s' if self.endpoint_failures_in_a_row > 1 else ''} in a row; "
                               f"last: {reason}")
        fallback = Fallback(observation.table_id, observation.version, ids[0], reason)
        self.fallbacks.append(fallback)
        _log(transcript, "fallback", version=observation.version, action=fallback.action_id, reason=reason)
        self._cost(observation, replies, started, "fallback", transcript, failed, timed_out)
        if self.printer is not None:
            self.printer(f"  ? fallback to {fallback.action_id}: {reason}")
        rate = len(self.fallbacks) / self.decisions
        if (self.max_fallback_rate is not None and self.decisions >= FALLBACK_GRACE
                and rate > self.max_fallback_rate):
            raise EndpointDead(
                f"{len(self.fallbacks)} of {self.decisions} decisions fell back ({rate:.0%}, "
                f"threshold {self.max_fallback_rate:.0%}); last: {reason}")
        return fallback.action_id

    def _ask(self, messages: list[ChatMessage], observation: Observation, transcript: Transcript | None) -> ChatReply:
        """One completion: by function calling while the endpoint takes tools, else in text."""
        if self.use_tools:
            tools = observation.tools or openai_tools(observation.legal_actions)
            try:
                return self.chat.reply(messages, tools=tools)
            except ToolsRefused as refused:
                self.use_tools = False
                _log(transcript, "tools_refused", version=observation.version, reason=str(refused))
        return self.chat.reply(messages)

    def _cost(
        self, observation: Observation, replies: list[ChatReply], started: float, via: str,
        transcript: Transcript | None, failed: int = 0, timed_out: int = 0,
    ) -> None:
        """Record what the decision cost (tokens summed only when every reply counted them)."""
        def total(counts: list[int | None]) -> int | None:
            return None if not counts or any(c is None for c in counts) else sum(c for c in counts if c is not None)

        cost = DecisionCost(
            table_id=observation.table_id, version=observation.version, requests=len(replies),
            prompt_tokens=total([r.prompt_tokens for r in replies]),
            completion_tokens=total([r.completion_tokens for r in replies]),
            llm_s=round(sum(r.latency_s for r in replies), 3),
            decision_s=round(time.monotonic() - started, 3), via=via, failed_requests=failed,
            timed_out_requests=timed_out, refused_requests=sum(r.refusal is not None for r in replies),
        )
        self.costs.append(cost)
        _log(transcript, "decision", version=cost.version, via=via, requests=cost.requests,
             failed_requests=cost.failed_requests, timed_out_requests=cost.timed_out_requests,
             refused_requests=cost.refused_requests,
             prompt_tokens=cost.prompt_tokens, completion_tokens=cost.completion_tokens,
             llm_s=cost.llm_s, decision_s=cost.decision_s)

    def game_over(self, result: GameResult) -> None:
        """Close the table's transcript with the result and this game's counts."""
        transcript = self._open.pop(result.table_id, None)
        if transcript is None:
            return
        outcome = result.outcome.model_dump() if result.outcome is not None else None
        fallbacks = [f.reason for f in self.fallbacks if f.table_id == result.table_id]
        costs = [cost for cost in self.costs if cost.table_id == result.table_id]
        transcript.record(
            "result", outcome=outcome, won=result.won, actions=result.actions,
            fallbacks=len(fallbacks), fallback_reasons=fallbacks, refused=result.refused,
            decisions=len(costs), **cost_totals(costs),
        )  # fmt: skip


def _log(transcript: Transcript | None, kind: str, **fields: object) -> None:
    if transcript is not None:
        transcript.record(kind, **fields)


def _chosen(reply: ChatReply, ids: list[str]) -> tuple[str | None, str, str]:
    """The legal id a reply names (or ``None``), why it names none, and the reply as text
    for the conversation (a tool call is written out)."""
    if reply.tool_arguments is not None:
        said = reply.text or f"(called {reply.tool_name or ACTION_TOOL} with {json.dumps(reply.tool_arguments)})"
        action = reply.tool_arguments.get("action")
        if isinstance(action, str) and action in ids:
            return action, "", said
        if reply.text:  # a model that also wrote its choice out: read the text too
            parsed = parse_action_reply(reply.text, ids)
            if parsed.action_id is not None:
                return parsed.action_id, "", said
        return None, f"the {ACTION_TOOL} call named {action!r}, which is not a legal action id", said
    parsed = parse_action_reply(reply.text, ids)
    if parsed.action_id is None and reply.refusal is not None:
        return None, f"the model declined to answer: {reply.refusal}", reply.text or reply.refusal
    return parsed.action_id, parsed.reason, reply.text


def cost_totals(costs: list[DecisionCost]) -> dict[str, float | int | None]:
    """Sums over decisions: tokens (``None`` unless every decision counted them), LLM seconds
    and decision seconds (total and slowest)."""
    def summed(values: list[int | None]) -> int | None:
        return None if not values or any(v is None for v in values) else sum(v for v in values if v is not None)

    return {
        "prompt_tokens": summed([c.prompt_tokens for c in costs]),
        "completion_tokens": summed([c.completion_tokens for c in costs]),
        "llm_s": round(sum(c.llm_s for c in costs), 3),
        "decision_s": round(sum(c.decision_s for c in costs), 3),
        "slowest_decision_s": max((c.decision_s for c in costs), default=0.0),
    }
