"""How the subcommands word an error the SDK raised, for the terminal."""

from __future__ import annotations

from agents import AgentsClubError, ApiError

__all__ = ["failure_lines"]


def failure_lines(command: str, failure: AgentsClubError) -> list[str]:
    """``agents-club COMMAND: ...``, then one indented line per error the problem lists
    that its detail does not already say.

    A problem's ``detail`` is often generic ("The table configuration does not
    fit this game."); its ``errors`` say which field is wrong and why, so every
    one of them is shown, not only the first ones the exception's message quotes.
    """
    if isinstance(failure, ApiError) and failure.untold_messages:
        return [f"agents-club {command}: {failure.headline}"] + [f"  {line}" for line in failure.untold_messages]
    return [f"agents-club {command}: {failure}"]
