"""Function-calling tool definitions built from an observation's legal actions.

``GET .../observation?tools=openai`` adds :func:`openai_tools` to the answer:
one OpenAI-compatible function whose only argument is an enum of the legal
action ids, so a model that calls it cannot name an illegal move (an endpoint
with strict function calling enforces the enum). Plain data, no FastAPI: the
SDK's LLM agent builds the same definition for an observation that came
without one (the answer to an action).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from agents.wire.tables import LegalActionOut

__all__ = ["ACTION_TOOL", "ToolFormat", "openai_tools"]

ToolFormat = Literal["openai"]
"""The tool-definition dialects an observation can carry."""

ACTION_TOOL = "play_action"
"""The name of the function a model calls to act."""


def openai_tools(legal_actions: Sequence[LegalActionOut]) -> list[dict[str, Any]]:
    """The ``tools`` list of an OpenAI-compatible chat request for these legal actions;
    empty when there is nothing to decide."""
    if not legal_actions:
        return []
    return [{
        "type": "function",
        "function": {
            "name": ACTION_TOOL,
            "description": "Play your move: exactly one of the legal action ids listed in the "
            "observation (each id's meaning is given there).",
            "strict": True,
            "parameters": {
                "type": "object",
                "properties": {
                    "action": {
                        "type": "string",
                        "enum": [action.id for action in legal_actions],
                        "description": "The id of the legal action to play.",
                    },
                },
                "required": ["action"],
                "additionalProperties": False,
            },
        },
    }]
