"""The report's cost and latency per entrant: what playing cost, as each side measured it.

Two sources, each counting what it can see, and the report says which is which:

* the **gateway** measures every seat it serves: decisions, refused or illegal
  actions, clock timeouts, and the decision time from being asked to the
  action (the report's ``decisions``, :class:`~tournament.report.DecisionStats`);
* the **runner that drove the entrant** (``agents-club arena run``) knows its
  model's usage: tokens in and out as the endpoint reported them, the money
  they cost at the configured prices, requests answered and failed, refusals,
  fallbacks and forfeited tables. It adds them as the report's ``cost``, one
  :class:`EntrantCost` per entrant. The gateway never sees a model, so a report
  made without the arena has no ``cost``.

:func:`cost_markdown` renders both in one table; a figure nobody measured is
shown as ``–``, never as 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["COST_NOTES", "EntrantCost", "Price", "cost_markdown", "money"]


@dataclass(frozen=True)
class Price:
    """A model's price per million tokens, in ``currency``."""

    input_per_million: float
    output_per_million: float
    currency: str = "USD"


def money(prompt_tokens: int | None, completion_tokens: int | None, price: Price | None) -> float | None:
    """What the tokens cost at ``price``; ``None`` without a price or without token counts."""
    if price is None or prompt_tokens is None or completion_tokens is None:
        return None
    return (prompt_tokens * price.input_per_million
            + completion_tokens * price.output_per_million) / 1_000_000


@dataclass(frozen=True)
class EntrantCost:
    """One entrant's usage as the runner that drove it counted it (see the module docstring).

    ``kind`` is ``llm``, ``bot`` (a bot class run by the arena) or ``house`` (a house
    bot the gateway plays). The token counts are ``None`` when the endpoint did not
    report them for every answered request (a partial sum would read as a cost).
    ``requests`` are answered chat completions; ``failed_requests`` asks that failed
    after the client's retries with backoff (``timed_out_requests`` of them by not
    answering in time); ``refused_requests`` answered requests in which the model
    declined. ``fallbacks`` are decisions the model did not make, played as the first
    legal action; ``forfeited_tables`` tables the entrant gave up; ``status`` says why
    (``played``, ``endpoint dead``, ``budget spent``), ``error`` the error in full.
    """

    kind: str
    model: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    money: float | None = None
    currency: str | None = None
    requests: int = 0
    failed_requests: int = 0
    timed_out_requests: int = 0
    refused_requests: int = 0
    decisions: int = 0
    fallbacks: int = 0
    forfeited_tables: int = 0
    status: str = "played"
    error: str | None = None

    @property
    def fallback_rate(self) -> float | None:
        """The share of the model's decisions that fell back (``None`` before any)."""
        return self.fallbacks / self.decisions if self.decisions else None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the report's ``cost`` values)."""
        return {
            "kind": self.kind, "model": self.model, "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens, "money": self.money,
            "currency": self.currency, "requests": self.requests,
            "failed_requests": self.failed_requests, "timed_out_requests": self.timed_out_requests,
            "refused_requests": self.refused_requests, "decisions": self.decisions,
            "fallbacks": self.fallbacks, "fallback_rate": self.fallback_rate,
            "forfeited_tables": self.forfeited_tables, "status": self.status, "error": self.error,
        }


COST_NOTES = (
    "Tokens, money, requests, refusals and fallbacks are counted by the arena runner from "
    "its entrants' transcripts (admission included): tokens as the endpoint reported them, "
    "money at the prices configured in arena.toml, requests as answered + failed after "
    "retries (timed out in brackets), refusals as replies in which the model declined. "
    "Fallbacks: decisions the model did not make, played as the first legal action "
    "(their share of the model's decisions in brackets). Forfeits: tables the entrant gave "
    "up (a dead endpoint, a spent budget). Refused actions, clock timeouts and decision "
    "times are the gateway's: a decision is timed from the previous action at its table "
    "to its own, so it includes the network and the runner. – means not measured: house "
    "bots use no model, and bots send no requests."
)
"""What each column of :func:`cost_markdown` counts (printed under the table)."""


def _figure(value: Any, digits: int = 0) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def cost_markdown(report: Mapping[str, Any], shown: Callable[[str], str]) -> list[str]:
    """The "Cost and latency" section's lines: one row per entrant of ``decisions`` or
    ``cost``, ``shown`` giving an entrant's display name. Empty when the report has
    neither."""
    costs: Mapping[str, Mapping[str, Any]] = report.get("cost") or {}
    decisions: Mapping[str, Mapping[str, Any]] = report.get("decisions") or {}
    entrants = list(dict.fromkeys([*costs, *decisions]))
    if not entrants:
        return []
    header = ["entrant", "tokens in", "tokens out", "cost", "requests", "refusals",
              "fallbacks", "forfeits", "refused actions", "clock timeouts", "mean s", "p95 s"]
    rows = []
    for entrant in entrants:
        cost = costs.get(entrant, {})
        seen = decisions.get(entrant, {})
        llm = cost.get("kind") == "llm"
        price = (f"{cost['money']:.4f} {cost.get('currency') or ''}".strip()
                 if cost.get("money") is not None else "–")
        requests = (f"{cost.get('requests', 0)} + {cost.get('failed_requests', 0)} failed "
                    f"({cost.get('timed_out_requests', 0)})" if llm else "–")
        rate = cost.get("fallback_rate")
        fallbacks = (f"{cost.get('fallbacks', 0)} ({rate:.0%})" if llm and rate is not None
                     else _figure(cost.get("fallbacks")) if llm else "–")
        status = cost.get("status")
        # the gateway reports 0 s for an entrant that never decided (one that forfeited all)
        timed = bool(seen.get("decisions"))
        name = shown(entrant) + (f" ({status})" if status and status != "played" else "")
        rows.append([
            name, _figure(cost.get("prompt_tokens")), _figure(cost.get("completion_tokens")),
            price, requests, _figure(cost.get("refused_requests")) if llm else "–", fallbacks,
            _figure(cost.get("forfeited_tables")) if cost else "–",
            _figure(seen.get("refused")), _figure(seen.get("timeouts")),
            _figure(seen.get("mean_s") if timed else None, 3),
            _figure(seen.get("p95_s") if timed else None, 3)])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    errors = [(entrant, costs[entrant]["error"]) for entrant in entrants
              if costs.get(entrant, {}).get("error")]
    lines += [""] + [f"- {shown(entrant)}: {error}" for entrant, error in errors] + (
        [""] if errors else [])
    lines.append(COST_NOTES if costs else
                 "Refused actions, clock timeouts and decision times as the gateway measured "
                 "them (no runner reported its entrants' model usage).")
    return lines
