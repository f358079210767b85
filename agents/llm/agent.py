"""The LLM agent: a :class:`~agents.Bot` whose choices come from a chat model.

Each decision is one conversation: the system message holds the rules digest,
the user message the observation's plain-text summary and the numbered legal
actions. An unusable reply (no id, an id that is not legal, several ids, an
endpoint failure) is answered with what was wrong, up to ``max_attempts``
replies; after that the agent falls back to the first legal action, counts the
fallback and records why. Everything is written to the game's transcript.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agents.bot import Bot
from agents.llm._chat import ChatClient, ChatError, ChatMessage
from agents.llm.parsing import parse_action_reply
from agents.llm.prompts import retry_message, rules_digest, system_message, turn_message
from agents.llm.transcript import Transcript

if TYPE_CHECKING:
    from agents._models import Observation
    from agents.runner import GameResult

__all__ = ["DEFAULT_MAX_ATTEMPTS", "Fallback", "LlmAgent"]

DEFAULT_MAX_ATTEMPTS = 3
"""Replies asked for per decision before falling back."""


class Fallback:
    """One decision the model did not make: where, and why."""

    def __init__(self, table_id: str, version: int, action_id: str, reason: str) -> None:
        self.table_id = table_id
        self.version = version
        self.action_id = action_id
        self.reason = reason

    def __repr__(self) -> str:
        return f"Fallback({self.table_id!r}, v{self.version}, {self.action_id!r}: {self.reason})"


class LlmAgent(Bot):
    """Plays from a chat model's replies.

    ``transcripts`` is the folder where each table's JSONL transcript goes
    (``<table id>-seat<N>.jsonl``); ``None`` keeps no transcript.
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
    ) -> None:
        self.chat = chat
        self.digest = rules_digest(rulebook)
        self.game_title = game_title
        self.transcripts = transcripts
        self.max_attempts = max(1, max_attempts)
        self.printer = printer
        self.fallbacks: list[Fallback] = []
        self.decisions = 0
        self.retries = 0
        self._open: dict[str, Transcript] = {}

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
        legal = observation.legal_actions
        ids = [option.id for option in legal]
        transcript = self.transcript_for(observation.table_id, observation.seat)
        messages: list[ChatMessage] = [
            system_message(self.game_title, self.digest),
            turn_message(observation.summary, legal, seat=observation.seat or 0, version=observation.version),
        ]
        reason = "no reply"
        for attempt in range(1, self.max_attempts + 1):
            _log(transcript, "prompt", version=observation.version, attempt=attempt, message=messages[-1])
            try:
                reply = self.chat.complete(messages)
            except ChatError as failure:
                reason = f"the LLM endpoint failed: {failure}"
                _log(transcript, "error", version=observation.version, attempt=attempt, reason=reason)
                break  # the client already retried the endpoint; asking again now rarely helps
            parsed = parse_action_reply(reply, ids)
            _log(transcript, "reply", version=observation.version, attempt=attempt, reply=reply,
                 action=parsed.action_id, problem=parsed.reason or None)  # fmt: skip
            if parsed.action_id is not None:
                _log(transcript, "choice", version=observation.version, action=parsed.action_id, attempts=attempt)
                return parsed.action_id
            reason = parsed.reason
            if attempt < self.max_attempts:
                self.retries += 1
                messages += [{"role": "assistant", "content": reply}, retry_message(reason, legal)]
        fallback = Fallback(observation.table_id, observation.version, ids[0], reason)
        self.fallbacks.append(fallback)
        _log(transcript, "fallback", version=observation.version, action=fallback.action_id, reason=reason)
        if self.printer is not None:
            self.printer(f"  ? fallback to {fallback.action_id}: {reason}")
        return fallback.action_id

    def game_over(self, result: GameResult) -> None:
        """Close the table's transcript with the result and this game's counts."""
        transcript = self._open.pop(result.table_id, None)
        if transcript is None:
            return
        outcome = result.outcome.model_dump() if result.outcome is not None else None
        fallbacks = [f.reason for f in self.fallbacks if f.table_id == result.table_id]
        transcript.record(
            "result", outcome=outcome, won=result.won, actions=result.actions,
            fallbacks=len(fallbacks), fallback_reasons=fallbacks, refused=result.refused,
        )  # fmt: skip


def _log(transcript: Transcript | None, kind: str, **fields: object) -> None:
    if transcript is not None:
        transcript.record(kind, **fields)
