"""The LLM agent: reads the rulebook, passes admission and plays through a chat model.

Works with any OpenAI-compatible ``/chat/completions`` endpoint; the API key
comes from the ``AGENTS_CLUB_LLM_API_KEY`` environment variable.
"""

from __future__ import annotations

from agents.llm._chat import (
    API_KEY_ENV,
    ChatClient,
    ChatError,
    ChatReply,
    ChatTimeout,
    ToolsRefused,
)
from agents.llm.admission import UnreadableAnswer, pass_admission
from agents.llm.agent import DecisionCost, EndpointDead, Fallback, LlmAgent, cost_totals
from agents.llm.parsing import ParsedChoice, parse_action_reply
from agents.llm.transcript import Transcript

__all__ = [
    "API_KEY_ENV",
    "ChatClient",
    "ChatError",
    "ChatReply",
    "ChatTimeout",
    "DecisionCost",
    "EndpointDead",
    "Fallback",
    "LlmAgent",
    "ParsedChoice",
    "ToolsRefused",
    "Transcript",
    "UnreadableAnswer",
    "cost_totals",
    "parse_action_reply",
    "pass_admission",
]
