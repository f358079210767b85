"""A small parser for ``text/event-stream`` (server-sent events).

Fed line by line (without line endings), it yields one :class:`ServerSentEvent`
per blank-line-terminated block, following the WHATWG rules the SDK needs:
``id``, ``event``, ``data`` (multi-line joined with newlines), ``retry``, and
comment lines (``:``, used by servers as keep-alives) ignored.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

__all__ = ["ServerSentEvent", "SseDecoder"]


@dataclass(frozen=True)
class ServerSentEvent:
    """One dispatched event: its ``id`` (may be empty), ``event`` type and ``data``."""

    data: str
    event: str = "message"
    id: str = ""
    retry_ms: int | None = None


@dataclass
class SseDecoder:
    """Turns stream lines into events; keeps the last event id across events.

    ``last_event_id`` changes only when a block is complete (as the WHATWG
    rules say): a connection cut in the middle of a block must resume before
    that block, not after it.
    """

    last_event_id: str = ""
    _id_buffer: str | None = None
    _data: list[str] = field(default_factory=list)
    _event: str = ""
    _retry_ms: int | None = None
    _seen_field: bool = False

    def feed(self, line: str) -> ServerSentEvent | None:
        """Consume one line; return an event when ``line`` ends a block."""
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        self._seen_field = True
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\x00" not in value:
            self._id_buffer = value
        elif name == "retry" and value.isdigit():
            self._retry_ms = int(value)
        return None

    def iter_events(self, lines: Iterable[str]) -> Iterator[ServerSentEvent]:
        """Every event carried by ``lines``."""
        for line in lines:
            event = self.feed(line.rstrip("\r\n"))
            if event is not None:
                yield event

    def _dispatch(self) -> ServerSentEvent | None:
        """End of a block: emit it if it carried data (per the spec, else reset)."""
        if not self._seen_field:
            return None
        if self._id_buffer is not None:
            self.last_event_id = self._id_buffer
        event = None
        if self._data:
            event = ServerSentEvent(
                data="\n".join(self._data),
                event=self._event or "message",
                id=self.last_event_id,
                retry_ms=self._retry_ms,
            )
        self._data, self._event, self._retry_ms, self._seen_field = [], "", None, False
        self._id_buffer = None
        return event
