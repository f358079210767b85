"""An LLM entrant's usage, counted from the transcripts the arena keeps for it.

The transcripts are the one record: every decision of the LLM agent writes a
``decision`` record (requests answered and failed, timeouts, refusals, tokens,
how it was decided) and every admission reply a ``reply`` record with its
tokens, each flushed as it happens. Counting from them, a resumed run counts
what was spent before the crash too, and the figures in the report can be
checked against the files.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.llm import DecisionCost
from tournament.report_cost import EntrantCost, Price, money

__all__ = ["Budget", "Usage", "usage_of"]


@dataclass
class Usage:
    """Running totals of one LLM entrant (``tokens_known`` False once an answered request
    came without its token counts)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_known: bool = True
    requests: int = 0
    failed_requests: int = 0
    timed_out_requests: int = 0
    refused_requests: int = 0
    decisions: int = 0
    fallbacks: int = 0

    def add_reply(self, fields: dict[str, Any]) -> None:
        """Count one answered request (an admission reply)."""
        self.requests += 1
        self._tokens(fields.get("prompt_tokens"), fields.get("completion_tokens"), answered=1)
        self.refused_requests += fields.get("refusal") is not None

    def add_decision(self, fields: dict[str, Any] | DecisionCost) -> None:
        """Count one decision record (or the agent's own :class:`DecisionCost`)."""
        record = vars(fields) if isinstance(fields, DecisionCost) else fields
        answered = int(record.get("requests") or 0)
        self.requests += answered
        self.failed_requests += int(record.get("failed_requests") or 0)
        self.timed_out_requests += int(record.get("timed_out_requests") or 0)
        self.refused_requests += int(record.get("refused_requests") or 0)
        self._tokens(record.get("prompt_tokens"), record.get("completion_tokens"), answered)
        if record.get("via") != "none":  # given up as dead: nothing was decided
            self.decisions += 1
            self.fallbacks += record.get("via") == "fallback"

    def _tokens(self, prompt: Any, completion: Any, answered: int) -> None:
        if not answered:
            return  # nothing answered, nothing to count
        if isinstance(prompt, int) and isinstance(completion, int):
            self.prompt_tokens += prompt
            self.completion_tokens += completion
        else:
            self.tokens_known = False

    def cost(self, model: str | None, price: Price | None, *, forfeited: int, status: str,
             error: str | None) -> EntrantCost:
        """The report's line for these totals."""
        prompt = self.prompt_tokens if self.tokens_known else None
        completion = self.completion_tokens if self.tokens_known else None
        return EntrantCost(
            kind="llm", model=model, prompt_tokens=prompt, completion_tokens=completion,
            money=money(prompt, completion, price), currency=price.currency if price else None,
            requests=self.requests, failed_requests=self.failed_requests,
            timed_out_requests=self.timed_out_requests, refused_requests=self.refused_requests,
            decisions=self.decisions, fallbacks=self.fallbacks, forfeited_tables=forfeited,
            status=status, error=error)


def _records(folder: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        with path.open(encoding="utf-8") as source:
            for line in source:
                # a line without its newline was cut short by a crash: it was never a record
                if line.strip() and line.endswith("\n"):
                    yield path.name, json.loads(line)


def usage_of(folder: Path) -> Usage:
    """The totals of every transcript in ``folder`` (one LLM entrant's)."""
    usage = Usage()
    for name, record in _records(folder):
        if name.startswith("admission-"):
            if record["kind"] == "reply":
                usage.add_reply(record)
            elif record["kind"] == "error":
                usage.failed_requests += 1
        elif record["kind"] == "decision":
            usage.add_decision(record)
    return usage


class Budget:
    """An LLM entrant's spending so far against its budget, shared by its tables' threads.

    Starts from the transcripts (what earlier runs spent) and adds each decision as it
    is made; :meth:`spent` says why the entrant must stop, or ``None``.
    """

    def __init__(self, folder: Path, tokens: int | None, money_limit: float | None,
                 price: Price | None) -> None:
        self.usage = usage_of(folder)
        self.tokens = tokens
        self.money_limit = money_limit
        self.price = price
        self._lock = threading.Lock()

    def add(self, costs: list[DecisionCost]) -> None:
        """Count decisions just made."""
        with self._lock:
            for cost in costs:
                self.usage.add_decision(cost)

    def spent(self) -> str | None:
        """Why the budget is spent (tokens or money reached), or ``None`` while it is not."""
        with self._lock:
            used = self.usage.prompt_tokens + self.usage.completion_tokens
            if self.tokens is not None and used >= self.tokens:
                return f"its token budget is spent ({used} of {self.tokens} tokens)"
            paid = money(self.usage.prompt_tokens, self.usage.completion_tokens, self.price)
            if self.money_limit is not None and paid is not None and paid >= self.money_limit:
                return (f"its money budget is spent ({paid:.4f} of {self.money_limit:g} "
                        f"{self.price.currency if self.price else ''})")
        return None
