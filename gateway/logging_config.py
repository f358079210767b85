"""Structured logging that never writes a secret.

:func:`configure_logging` installs one handler on the root logger (JSON lines
or plain text) carrying a :class:`SecretFilter`. The filter is attached to the
*handler*, not to a logger, because logger filters do not see records that
propagate from child loggers (uvicorn's, httpx's, ours). It renders each
record's message with its arguments, then scrubs:

* ``Authorization`` / ``X-Organiser-Key`` header values and ``Bearer <...>``;
* anything shaped like a JWT (three base64url parts, the first ``eyJ``);
* agent secrets (``acs_...``) and ``secret=``, ``password=``, ``access_token=``,
  ``token=``, ``organiser_key=`` style pairs (query strings, reprs, JSON);
* the exact values of the configured secrets (organiser key, signing key PEM).

Tracebacks are scrubbed too (their text is rendered before filtering).
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from collections.abc import Iterable
from typing import IO, Any

__all__ = ["REDACTED", "JsonFormatter", "SecretFilter", "configure_logging", "scrub"]

REDACTED = "[redacted]"

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"), REDACTED),
    (re.compile(r"(?i)\bbearer\s+[^\s'\",;]+"), f"Bearer {REDACTED}"),
    (re.compile(r"(?i)(authorization|x-organiser-key)(['\"]?\s*[:=,]\s*\(?\s*b?['\"]?)[^'\"\s,)]+(\s+[^'\"\s,)]+)?"),
     rf"\1\2{REDACTED}"),
    (re.compile(r"\bacs_[A-Za-z0-9_-]+"), REDACTED),
    (re.compile(r"(?i)\b(secret|password|access_token|refresh_token|token|organiser_key|api_key)"
                r"(['\"]?\s*[:=]\s*['\"]?)[^'\"\s&,}]+"),
     rf"\1\2{REDACTED}"),
)


def scrub(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every token, key or secret replaced by ``[redacted]``."""
    for secret in secrets:
        if secret and len(secret) >= 8:
            text = text.replace(secret, REDACTED)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class SecretFilter(logging.Filter):
    """Rewrites each record so its message, arguments and traceback carry no secret."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets: list[str] = []
        for secret in filter(None, secrets):
            # The exact value, and each long line of it (a PEM key may be logged by line).
            self.secrets += [secret, *(line for line in secret.splitlines() if len(line) >= 16)]

    def filter(self, record: logging.LogRecord) -> bool:
        """Scrub ``record`` in place; always lets it through."""
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            message = str(record.msg)
        record.msg = scrub(message, self.secrets)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = scrub(record.exc_text, self.secrets)
        # The traceback is now in exc_text; dropping exc_info stops a formatter
        # from rendering the unscrubbed original again.
        record.exc_info = None
        for name, value in list(vars(record).items()):
            if name.startswith("ctx_") and isinstance(value, str):
                setattr(record, name, scrub(value, self.secrets))
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``ts``, ``level``, ``logger``, ``msg``, context, ``exc``.

    Context comes from ``extra={"ctx_<name>": value}`` and appears as ``<name>``.
    """

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for name, value in vars(record).items():
            if name.startswith("ctx_"):
                entry[name[4:]] = value
        if record.exc_text:
            entry["exc"] = record.exc_text
        return json.dumps(entry, default=str)


def configure_logging(
    *,
    level: str = "INFO",
    fmt: str = "json",
    secrets: Iterable[str] = (),
    stream: IO[str] | None = None,
) -> logging.Handler:
    """Route every log record through one scrubbing handler on the root logger.

    Replaces a handler this function installed before (so calling it again,
    for example in each app created by the tests, does not duplicate lines)
    and makes uvicorn's loggers propagate to it. Returns the handler.
    """
    root = logging.getLogger()
    for existing in list(root.handlers):
        if getattr(existing, "agents_club", False):
            root.removeHandler(existing)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.agents_club = True  # type: ignore[attr-defined]
    handler.addFilter(SecretFilter(secrets))
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(level.upper())
    # gateway.access replaces uvicorn's access log, which would print query strings.
    for name, propagate in (("uvicorn", True), ("uvicorn.error", True), ("uvicorn.access", False)):
        uvicorn_logger = logging.getLogger(name)
        uvicorn_logger.handlers.clear()
        uvicorn_logger.propagate = propagate
    return handler
