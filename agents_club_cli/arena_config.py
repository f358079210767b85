"""``arena.toml``: the tournament, its entrants and the runner's limits, read strictly.

::

    server = "http://127.0.0.1:8000"        # optional: --server, $AGENTS_CLUB_SERVER

    [tournament]
    name = "Market Fortune arena"
    game = "market-fortune"
    mode = "family"
    seats = 2
    format = "duplicate"
    boards = 4
    options = { turn_limit_per_seat = 20 }

    [limits]                                 # all optional
    requests_per_endpoint = 4                # chat requests in flight per endpoint URL
    tables_per_entrant = 4                   # tables an entrant plays at once
    max_retries = 3                          # per chat request, with exponential backoff
    request_timeout_s = 60
    max_fallback_rate = 0.5                  # past it the entrant stops and forfeits
    dead_after = 1                           # failed decisions in a row before it does

    [prices."some-model"]                    # per million tokens
    input_per_million = 0.15
    output_per_million = 0.60
    currency = "USD"

    [[entrants]]
    name = "model-a"
    endpoint = "https://api.example.com/v1"  # OpenAI-compatible
    model = "some-model"
    api_key_env = "EXAMPLE_API_KEY"          # the variable that holds the key
    budget_tokens = 2_000_000                # optional; budget_money too

    [[entrants]]
    name = "my-bot"
    bot = "mybots.cautious:Cautious"         # a bot class, run by the arena

    [[entrants]]
    house = "greedy"                         # a house bot, played by the server

Every table and key is checked: a misspelt key is an error, not a default.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agents import CreateTournamentRequest
from tournament.report_cost import Price

__all__ = ["ArenaConfig", "ArenaError", "EntrantSpec", "Limits", "load_config"]


class ArenaError(ValueError):
    """``arena.toml`` (or the state beside it) cannot be used as it is; the message says why."""


@dataclass(frozen=True)
class EntrantSpec:
    """One entrant: an LLM endpoint (``endpoint``, ``model``, ``api_key_env``), a bot class
    (``bot``, ``module:Class``) or a house bot (``house``)."""

    name: str
    kind: str
    endpoint: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    bot: str | None = None
    house: str | None = None
    budget_tokens: int | None = None
    budget_money: float | None = None

    @property
    def entrant_id(self) -> str | None:
        """The id a house bot enters under (``bot:NAME``); agents get theirs by registering."""
        return f"bot:{self.house}" if self.house is not None else None


@dataclass(frozen=True)
class Limits:
    """How the runner drives its entrants (see the module docstring)."""

    requests_per_endpoint: int = 4
    tables_per_entrant: int = 4
    max_retries: int = 3
    request_timeout_s: float = 60.0
    max_fallback_rate: float = 0.5
    dead_after: int = 1
    max_attempts: int = 3


@dataclass(frozen=True)
class ArenaConfig:
    """A whole ``arena.toml``; ``fingerprint`` identifies its text, so a run resumed with
    a changed file is noticed."""

    path: Path
    fingerprint: str
    server: str | None
    tournament: dict[str, Any]
    entrants: list[EntrantSpec]
    limits: Limits = field(default_factory=Limits)
    prices: dict[str, Price] = field(default_factory=dict)

    @property
    def state_path(self) -> Path:
        """The resume state, next to the file: ``arena.toml`` → ``arena.state.json``."""
        return self.path.with_name(f"{self.path.stem}.state.json")

    @property
    def out_dir(self) -> Path:
        """Where transcripts, the report and the bundle go: ``arena.toml`` → ``arena/``."""
        return self.path.with_name(self.path.stem)


_ENTRANT_KEYS = {"name": str, "endpoint": str, "model": str, "api_key_env": str, "bot": str,
                 "house": str, "budget_tokens": int, "budget_money": float}
_PRICE_KEYS = {"input_per_million": float, "output_per_million": float, "currency": str}


def _checked(table: Mapping[str, Any], allowed: Mapping[str, type], where: str) -> dict[str, Any]:
    """``table`` with every key known and every value of its type (an int passes for a float)."""
    if not isinstance(table, Mapping):
        raise ArenaError(f"{where} must be a table")
    values: dict[str, Any] = {}
    for key, value in table.items():
        wanted = allowed.get(key)
        if wanted is None:
            raise ArenaError(f"{where}: unknown key {key!r} (known: {', '.join(sorted(allowed))})")
        if wanted is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
            raise ArenaError(f"{where}.{key} must be {wanted.__name__}, got {value!r}")
        values[key] = value
    return values


def _tournament(table: Any, *, default_name: str) -> dict[str, Any]:
    """The ``[tournament]`` table, checked by the server's own request model
    (:class:`agents.CreateTournamentRequest`: the same keys, types,
    bounds and defaults as ``POST /v1/tournaments``); the entrants come from
    ``[[entrants]]``, the name by default from the file's."""
    if not isinstance(table, Mapping):
        raise ArenaError("tournament must be a table")
    if "entrants" in table:
        raise ArenaError("tournament.entrants: list them as [[entrants]]")
    values = {"name": default_name, "format": "duplicate", **table}
    try:
        CreateTournamentRequest.model_validate({**values, "entrants": ["bot:random"]})
    except ValidationError as invalid:
        error = invalid.errors(include_url=False)[0]
        where = ".".join(str(part) for part in ("tournament", *error["loc"]))
        got = "" if error["type"] == "missing" else f", got {error['input']!r}"
        raise ArenaError(f"{where}: {error['msg']}{got}") from None
    return values


def _entrant(raw: Mapping[str, Any], number: int) -> EntrantSpec:
    where = f"entrants[{number}]"
    values = _checked(raw, _ENTRANT_KEYS, where)
    kinds = [kind for kind in ("endpoint", "bot", "house") if kind in values]
    if len(kinds) != 1:
        raise ArenaError(f"{where} needs exactly one of endpoint (an LLM), bot (module:Class) "
                         f"or house (a house bot), got {kinds or 'none'}")
    kind = {"endpoint": "llm", "bot": "bot", "house": "house"}[kinds[0]]
    if kind == "llm" and "model" not in values:
        raise ArenaError(f"{where}: an endpoint needs its model")
    if kind != "llm" and any(key in values for key in ("model", "api_key_env", "budget_tokens",
                                                       "budget_money")):
        raise ArenaError(f"{where}: model, api_key_env and budgets are for endpoint entrants")
    if kind == "bot" and ":" not in values["bot"]:
        raise ArenaError(f"{where}.bot must be module:Class (a house bot is house = NAME)")
    name = values.pop("name", None) or (f"{values['house']} bot" if kind == "house" else None)
    if not name:
        raise ArenaError(f"{where} needs a name")
    return EntrantSpec(name=name, kind=kind, **values)


def load_config(path: Path) -> ArenaConfig:
    """Read and check ``path``.

    :raises ArenaError: naming the first problem found.
    """
    try:
        text = path.read_bytes()
    except OSError as missing:
        raise ArenaError(f"cannot read {path}: {missing.strerror}") from None
    try:
        raw = tomllib.loads(text.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as broken:
        raise ArenaError(f"{path} is not valid TOML: {broken}") from None
    unknown = set(raw) - {"server", "tournament", "limits", "prices", "entrants"}
    if unknown:
        raise ArenaError(f"{path}: unknown top-level keys {sorted(unknown)}")
    tournament = _tournament(raw.get("tournament", {}), default_name=path.stem)
    limits = Limits(**_checked(raw.get("limits", {}), {
        name: type(value) for name, value in vars(Limits()).items()}, "limits"))
    if limits.requests_per_endpoint < 1 or limits.tables_per_entrant < 1 or limits.dead_after < 1:
        raise ArenaError("limits: requests_per_endpoint, tables_per_entrant and dead_after "
                         "must be at least 1")
    prices = {model: Price(**_checked(values, _PRICE_KEYS, f"prices.{model}"))
              for model, values in raw.get("prices", {}).items()}
    entrants = [_entrant(entry, number) for number, entry in enumerate(raw.get("entrants", []))]
    if len(entrants) < 2:
        raise ArenaError(f"{path}: an arena needs at least two [[entrants]]")
    for entrant in entrants:
        if entrant.budget_money is not None and entrant.model not in prices:
            raise ArenaError(f"entrant {entrant.name!r} has a money budget but [prices] has "
                             f"no price for its model {entrant.model!r}")
    names = [entrant.name for entrant in entrants]
    if len(set(names)) != len(names):
        raise ArenaError(f"{path}: entrant names must differ, got {names}")
    server = raw.get("server")
    if server is not None and not isinstance(server, str):
        raise ArenaError("server must be a URL string")
    return ArenaConfig(path=path, fingerprint=hashlib.sha256(text).hexdigest(), server=server,
                       tournament=tournament, entrants=entrants, limits=limits, prices=prices)
