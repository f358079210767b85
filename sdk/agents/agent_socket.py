"""One bot socket for all of an agent's tables and its tournament assignments: :class:`AgentSocket`.

The server's ``/v1/ws`` serves every table and the assignments of one agent on
one connection, so an agent needs only one. :class:`AgentSocket` holds it: a
reader thread takes each server message and hands it to whoever follows what
it names (a table's :class:`TableFeed`, by ``table_id``, or the assignments),
so several :class:`~agents.Runner` threads, one per table, share the
connection, and :meth:`AgentSocket.assigned_tables` reads the tournament
assignments on it too.

A lost connection is the socket's business, not the tables': the reader opens
a new one (waiting as the client's retry policy says, for at most
``max_outage_s``) and then tells every feed :data:`RECONNECTED`, on which its
follower subscribes again after what it has seen and resends an unanswered
action with its idempotency key. When the server stays away longer, or refuses
the token, every feed gets :class:`Gone` with the error; a runner then plays on
over HTTP (transport ``auto``) and the assignments are read over HTTP from where
the socket left them.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pydantic import BaseModel

from agents._client import Client
from agents._exceptions import AgentsClubError, error_from_problem
from agents._models import AssignmentOut
from agents.socket import BotSocket, SocketLost
from agents.wire.socket import (
    AssignmentsMessage,
    ProblemMessage,
    SubscribeAssignmentsMessage,
    UnsubscribeMessage,
)

__all__ = ["RECONNECTED", "AgentSocket", "Gone", "TableFeed"]

RECONNECTED = "reconnected"
"""Put in every feed when a new connection replaced a lost one: subscribe again."""


@dataclass(frozen=True)
class Gone:
    """Put in every feed when the socket is gone for good: ``error`` says why."""

    error: AgentsClubError


FeedItem = BaseModel | str | Gone
"""What a feed holds: a server message, :data:`RECONNECTED` or :class:`Gone`."""


class TableFeed:
    """The server messages of one table (or of the assignments), in the order they came."""

    def __init__(self, key: str) -> None:
        self.key = key
        self._items: queue.SimpleQueue[FeedItem] = queue.SimpleQueue()

    def put(self, item: FeedItem) -> None:
        self._items.put(item)

    def get(self) -> FeedItem:
        """The next item, waiting for it."""
        return self._items.get()


_ASSIGNMENTS = "\0assignments"
"""The feed key of the assignments (no table id looks like it)."""


class AgentSocket:
    """One connection to ``/v1/ws`` for ``client``'s agent, shared by every table it plays.

    :meth:`start` opens it (raising :class:`~agents.SocketUnavailable` where the
    server serves none, or the token's :class:`~agents.AuthError`); :meth:`follow`
    gives a table's feed; :meth:`send` sends on the live connection (raising
    :class:`~agents.SocketLost` while there is none: wait for :data:`RECONNECTED`).
    ``notice`` receives a line when the connection is lost and found again.
    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, client: Client, *, max_outage_s: float = 120.0,
                 notice: Callable[[str], None] | None = None) -> None:
        self.client = client
        self.max_outage_s = max_outage_s
        self.notice = notice
        self.reconnects = 0
        self._socket = BotSocket(client)
        self._send_lock = threading.Lock()
        self._feeds: dict[str, TableFeed] = {}
        self._feeds_lock = threading.Lock()
        self._gone: Gone | None = None
        self._closed = False
        self._reader: threading.Thread | None = None

    # ---- life -------------------------------------------------------------------

    def start(self) -> None:
        """Open the connection and start reading it (once)."""
        if self._reader is not None:
            return
        self._socket.open()
        self._reader = threading.Thread(target=self._read, name="agents-club-socket", daemon=True)
        self._reader.start()

    def close(self) -> None:
        """Close the connection; followers still waiting get :class:`Gone`."""
        self._closed = True
        with self._send_lock:
            self._socket.close()
        self._end(Gone(SocketLost("the socket was closed", code=None)))
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=5.0)

    def __enter__(self) -> AgentSocket:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # ---- following --------------------------------------------------------------

    def follow(self, table_id: str) -> TableFeed:
        """The feed of ``table_id``'s messages (then send ``subscribe`` for it)."""
        return self._feed(table_id)

    def forget(self, table_id: str, *, unsubscribe: bool = False) -> None:
        """Stop routing ``table_id``'s messages (and, asked to, tell the server)."""
        with self._feeds_lock:
            self._feeds.pop(table_id, None)
        if unsubscribe:
            with contextlib.suppress(AgentsClubError):  # gone already: the server forgets it with the connection
                self.send(UnsubscribeMessage(type="unsubscribe", table_id=table_id))

    def send(self, message: BaseModel) -> None:
        """Send one client message on the live connection.

        :raises SocketLost: while there is none (a new one is being opened: wait for
            :data:`RECONNECTED`), or for good (the feed then holds :class:`Gone`).
        """
        if self._gone is not None:
            raise SocketLost("the socket is gone", code=None)
        with self._send_lock:
            self._socket.send(message)

    def assigned_tables(self, tournament_id: str | None = None, *,
                        wait_s: float = 25.0) -> Iterator[AssignmentOut]:
        """Yield each table assigned to this agent (of ``tournament_id``, or of any
        tournament), as :meth:`agents.Client.assigned_tables` does, read on this socket;
        over HTTP (``wait_s`` per long-poll) from where it stopped if the socket goes."""
        after = "0"
        seen: set[str] = set()

        def fresh(assignments: list[AssignmentOut]) -> Iterator[AssignmentOut | None]:
            for assignment in assignments:
                if tournament_id is not None and assignment.tournament_id != tournament_id:
                    continue
                if assignment.kind == "tournament.finished":
                    if tournament_id is not None:
                        yield None  # the end
                    continue
                if assignment.table_id is not None and assignment.table_id not in seen:
                    seen.add(assignment.table_id)
                    yield assignment

        feed = self._feed(_ASSIGNMENTS)
        try:
            subscribe = True
            while True:
                if subscribe:
                    subscribe = False
                    with contextlib.suppress(SocketLost):  # a new connection comes (RECONNECTED) or never (Gone)
                        self.send(SubscribeAssignmentsMessage(type="subscribe_assignments",
                                                              after=after))
                item = feed.get()
                if isinstance(item, Gone):
                    break
                if item == RECONNECTED:
                    subscribe = True
                elif isinstance(item, ProblemMessage):
                    raise _problem_error(item)
                elif isinstance(item, AssignmentsMessage):
                    after = item.last_id
                    for found in fresh(item.assignments):
                        if found is None:
                            return
                        yield found
        finally:
            with self._feeds_lock:
                if self._feeds.get(_ASSIGNMENTS) is feed:
                    del self._feeds[_ASSIGNMENTS]
        while True:  # the socket is gone: on over HTTP, from the last id it gave
            page = self.client.assignments(after=after, wait_s=wait_s)
            after = page.last_id
            for found in fresh(page.assignments):
                if found is None:
                    return
                yield found

    # ---- the reader ---------------------------------------------------------------

    def _feed(self, key: str) -> TableFeed:
        with self._feeds_lock:
            feed = self._feeds.get(key)
            if feed is None:
                feed = self._feeds[key] = TableFeed(key)
        if self._gone is not None:
            feed.put(self._gone)
        return feed

    def _read(self) -> None:
        while not self._closed:
            try:
                message = self._socket.receive()
            except SocketLost as lost:
                if self._closed or not self._reconnect(lost):
                    return
                continue
            except AgentsClubError as refused:  # the token: revoked, or refused
                self._end(Gone(refused))
                return
            if message is not None:
                self._route(message)

    def _route(self, message: BaseModel) -> None:
        table_id = getattr(message, "table_id", None)
        key = _ASSIGNMENTS if table_id is None else str(table_id)
        with self._feeds_lock:
            feed = self._feeds.get(key)
        if feed is not None:
            feed.put(message)

    def _reconnect(self, lost: SocketLost) -> bool:
        """Open a new connection after ``lost``; tell every feed. False (every feed told
        :class:`Gone`) when the server stayed away longer than ``max_outage_s`` or refused."""
        started = time.monotonic()
        attempt = 0
        reason: AgentsClubError = lost
        while not self._closed:
            wait = self.client.retry.wait_s(min(attempt, 5), None)
            self._say(f"  ~ socket lost ({reason}); reconnecting in {wait:.1f}s")
            time.sleep(wait)
            attempt += 1
            try:
                with self._send_lock:
                    self._socket.open()
            except SocketLost as again:
                reason = again
                if time.monotonic() - started > self.max_outage_s:
                    break
                continue
            except AgentsClubError as refused:  # no socket any more, or the token refused
                self._end(Gone(refused))
                return False
            self.reconnects += 1
            with self._feeds_lock:
                feeds = list(self._feeds.values())
            for feed in feeds:
                feed.put(RECONNECTED)
            return True
        self._end(Gone(reason))
        return False

    def _end(self, gone: Gone) -> None:
        if self._gone is None:
            self._gone = gone
        with self._feeds_lock:
            feeds = list(self._feeds.values())
        for feed in feeds:
            feed.put(self._gone)

    def _say(self, line: str) -> None:
        if self.notice is not None:
            self.notice(line)


def _problem_error(message: ProblemMessage) -> AgentsClubError:
    return error_from_problem(message.problem, status=int(message.problem.get("status", 400)))
