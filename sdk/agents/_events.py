"""Following a table's events: long-poll or server-sent events, resumed after drops.

:class:`EventStream` (sync) and :class:`AsyncEventStream` yield every event the
seat may see exactly once, in order, until the table has finished. They
remember :attr:`~EventStream.last_id`; when a connection breaks they wait (the
client's retry policy) and ask again from that id — ``after=`` for long-poll,
``Last-Event-ID`` for SSE — so nothing is lost or repeated.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Literal

import httpx

from agents import _endpoints as endpoints
from agents._exceptions import TransportError
from agents._models import EventOut, EventsPage
from agents._sse import ServerSentEvent, SseDecoder
from agents._transport import AgentCredentials, error_for, needs_first_token, token_expired

if TYPE_CHECKING:
    from agents._async_client import AsyncClient
    from agents._client import Client

__all__ = ["END_EVENTS", "AsyncEventStream", "EventStream"]

END_EVENTS = frozenset({"end"})
"""The SSE event type the server sends after the table's last event, before closing."""

Mode = Literal["poll", "sse"]


class _Cursor:
    """Where a stream stands: the last event id, consecutive failures, reconnects."""

    def __init__(self, after: int | None, max_failures: int) -> None:
        self.last_id = after
        self.failures = 0
        self.reconnects = 0
        self.max_failures = max_failures
        self.finished = False
        self.renewed = False

    def fresh(self, event: EventOut) -> bool:
        """True (and remembered) when ``event`` comes after everything yielded so far."""
        if self.last_id is not None and event.id <= self.last_id:
            return False
        self.last_id = event.id
        return True

    def advance(self, last_id: int | None) -> None:
        """Move past ids the server says are covered (events this seat may not see)."""
        if last_id is not None and (self.last_id is None or last_id > self.last_id):
            self.last_id = last_id

    def broke(self, failure: Exception) -> None:
        """Count a dropped connection; give up after too many in a row."""
        self.failures += 1
        self.reconnects += 1
        if self.failures > self.max_failures:
            raise TransportError(f"event stream kept failing: {failure!r}") from failure

    def page_fresh(self, page: EventsPage) -> list[EventOut]:
        """The events of a long-poll page not yielded yet; moves the cursor past the page."""
        self.failures = 0
        fresh = [event for event in page.events if self.fresh(event)]
        self.advance(page.last_id)
        return fresh

    def sse_event(self, sse: ServerSentEvent) -> EventOut | None:
        """The table event carried by ``sse``, if it is new."""
        self.failures = 0
        # The closing frame carries no event (``data: {}``); an engine event that happened to
        # be called "end" still carries its JSON and is yielded like any other.
        if sse.event in END_EVENTS and not sse.data.strip("{} \n"):
            self.finished = True
            return None
        event = EventOut.model_validate_json(sse.data)
        return event if self.fresh(event) else None

    def accepted(self) -> None:
        """The server took the stream's token: when that one expires too, it may be renewed
        again (a stream may outlive many tokens; only a token refused right after it was
        renewed is an error)."""
        self.renewed = False

    def may_renew(self, response: httpx.Response, credentials: AgentCredentials | None) -> bool:
        """True (once per token) when the token expired and credentials can renew it."""
        if credentials is None or self.renewed or not token_expired(response):
            return False
        self.renewed = True
        return True

    def sse_headers(self, token: str | None) -> dict[str, str]:
        """The headers of a (re)connecting stream request: resume after the last event seen."""
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-store"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = str(self.last_id)
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return headers


def _id_of(decoder: SseDecoder) -> int | None:
    # ASCII only: "²" passes str.isdigit() but int() refuses it.
    event_id = decoder.last_event_id
    return int(event_id) if event_id.isascii() and event_id.isdigit() else None


class _StreamState:
    """What the sync and async streams share: where they stand and how they read."""

    def __init__(self, table_id: str, *, after: int | None, mode: Mode, wait_s: float, max_failures: int) -> None:
        self.table_id = table_id
        self.mode = mode
        self.wait_s = wait_s
        self._cursor = _Cursor(after, max_failures)

    @property
    def last_id(self) -> int | None:
        """The id to resume after (``None`` before the first event)."""
        return self._cursor.last_id

    @property
    def reconnects(self) -> int:
        """How many times the stream had to reconnect."""
        return self._cursor.reconnects


class EventStream(_StreamState):
    """Iterate a table's events with a sync :class:`~agents.Client` (see the module doc)."""

    def __init__(self, client: Client, table_id: str, *, after: int | None, mode: Mode, wait_s: float) -> None:
        super().__init__(table_id, after=after, mode=mode, wait_s=wait_s, max_failures=client.retry.max_retries)
        self.client = client

    def __iter__(self) -> Iterator[EventOut]:
        return self._poll() if self.mode == "poll" else self._sse()

    def _poll(self) -> Iterator[EventOut]:
        cursor = self._cursor
        wait = self.wait_s
        while True:
            try:
                page = self.client.events_page(self.table_id, after=cursor.last_id, wait_s=wait)
            except TransportError as failure:
                cursor.broke(failure)
                time.sleep(self.client.retry.wait_s(cursor.failures, None))
                continue
            fresh = cursor.page_fresh(page)
            yield from fresh
            if page.status == "finished":
                if not fresh:
                    return
                wait = 0.0  # the end may still have events in flight: drain without waiting

    def _sse(self) -> Iterator[EventOut]:
        cursor = self._cursor
        path = endpoints.stream_path(self.table_id)
        # The stream bypasses ``send``, so it gets a credentials-only client's first token itself.
        if needs_first_token(True, self.client.token, self.client.credentials):
            self.client.renew_token()
        while not cursor.finished:
            decoder = SseDecoder()
            try:
                with self.client.http.stream("GET", path, headers=cursor.sse_headers(self.client.token)) as response:
                    if not response.is_success:
                        response.read()
                        if cursor.may_renew(response, self.client.credentials):
                            self.client.renew_token()
                            continue
                        raise error_for(response)
                    cursor.accepted()
                    for sse in decoder.iter_events(response.iter_lines()):
                        event = cursor.sse_event(sse)
                        if event is not None:
                            yield event
                        if cursor.finished:
                            return
                    cursor.advance(_id_of(decoder))
            except httpx.TransportError as failure:
                cursor.advance(_id_of(decoder))
                cursor.broke(failure)
                time.sleep(self.client.retry.wait_s(cursor.failures, None))
                continue
            # The server closed the stream cleanly: finished, or a proxy timeout?
            page = self.client.events_page(self.table_id, after=cursor.last_id, wait_s=0)
            yield from cursor.page_fresh(page)
            if page.status == "finished":
                return


class AsyncEventStream(_StreamState):
    """Iterate a table's events with an :class:`~agents.AsyncClient` (``async for``)."""

    def __init__(
        self, client: AsyncClient, table_id: str, *, after: int | None, mode: Mode, wait_s: float
    ) -> None:
        super().__init__(table_id, after=after, mode=mode, wait_s=wait_s, max_failures=client.retry.max_retries)
        self.client = client

    def __aiter__(self) -> AsyncIterator[EventOut]:
        return self._poll() if self.mode == "poll" else self._sse()

    async def _poll(self) -> AsyncIterator[EventOut]:
        cursor = self._cursor
        wait = self.wait_s
        while True:
            try:
                page = await self.client.events_page(self.table_id, after=cursor.last_id, wait_s=wait)
            except TransportError as failure:
                cursor.broke(failure)
                await asyncio.sleep(self.client.retry.wait_s(cursor.failures, None))
                continue
            fresh = cursor.page_fresh(page)
            for event in fresh:
                yield event
            if page.status == "finished":
                if not fresh:
                    return
                wait = 0.0

    async def _sse(self) -> AsyncIterator[EventOut]:
        cursor = self._cursor
        path = endpoints.stream_path(self.table_id)
        # The stream bypasses ``send``, so it gets a credentials-only client's first token itself.
        if needs_first_token(True, self.client.token, self.client.credentials):
            await self.client.renew_token()
        while not cursor.finished:
            decoder = SseDecoder()
            try:
                async with self.client.http.stream(
                    "GET", path, headers=cursor.sse_headers(self.client.token)
                ) as response:
                    if not response.is_success:
                        await response.aread()
                        if cursor.may_renew(response, self.client.credentials):
                            await self.client.renew_token()
                            continue
                        raise error_for(response)
                    cursor.accepted()
                    async for line in response.aiter_lines():
                        sse = decoder.feed(line.rstrip("\r\n"))
                        if sse is None:
                            continue
                        event = cursor.sse_event(sse)
                        if event is not None:
                            yield event
                        if cursor.finished:
                            return
                    cursor.advance(_id_of(decoder))
            except httpx.TransportError as failure:
                cursor.advance(_id_of(decoder))
                cursor.broke(failure)
                await asyncio.sleep(self.client.retry.wait_s(cursor.failures, None))
                continue
            page = await self.client.events_page(self.table_id, after=cursor.last_id, wait_s=0)
            for event in cursor.page_fresh(page):
                yield event
            if page.status == "finished":
                return
