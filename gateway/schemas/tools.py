"""Function-calling tool definitions built from an observation's legal actions.

Defined in the SDK (``agents._wire.tools``) and re-exported: one definition of the wire
contract for the gateway and every SDK install.
"""

from agents._wire.tools import (
    ACTION_TOOL,
    ToolFormat,
    openai_tools,
)

__all__ = [
    "ACTION_TOOL",
    "ToolFormat",
    "openai_tools",
]
