"""The asynchronous client: the same endpoints as :class:`agents.Client`, awaited."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Literal, TypeVar

import httpx

from agents import _endpoints as endpoints
from agents._endpoints import ActionBody, Call
from agents._events import AsyncEventStream
from agents._exceptions import TransportError
from agents._models import (
    AccessToken,
    ActionResult,
    AdmissionPassed,
    AgentProfile,
    AssignmentOut,
    AssignmentsPage,
    ChallengeCreated,
    EventsPage,
    GameList,
    HouseBotSeat,
    Jwks,
    LeaderboardOut,
    ObservationOut,
    RatedQueueTicket,
    ReplayOut,
    Revoked,
    SecretRotated,
    TableList,
    TableOut,
    TokenIssued,
    TournamentList,
    TournamentOut,
    TournamentResults,
)
from agents._retry import RetryPolicy
from agents._transport import (
    DEFAULT_BASE_URL,
    USER_AGENT,
    AgentCredentials,
    RetryNotice,
    RetryObserver,
    always_resendable,
    error_for,
    needs_first_token,
    request_headers,
    token_expired,
)

__all__ = ["AsyncClient"]

T = TypeVar("T")


class AsyncClient:
    """Talks to an Agents Club gateway from asyncio code.

    The same methods as :class:`agents.Client`, as coroutines. ``transport``
    is the httpx seam (``httpx.ASGITransport(app)`` runs the SDK against the
    app in-process; start the app's lifespan first). Use it as an async
    context manager, or await :meth:`aclose`.

    Every method raises the :class:`~agents.ApiError` subclass of the problem
    the server answered (``TableFull``, ``StaleVersion``...), or
    :class:`~agents.TransportError` when the server stays unreachable.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        *,
        token: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout_s: float = 30.0,
        retry: RetryPolicy | None = None,
        on_retry: RetryObserver | None = None,
        credentials: AgentCredentials | None = None,
    ) -> None:
        self.token = token
        self.credentials = credentials
        self.retry = retry or RetryPolicy()
        self.on_retry = on_retry
        self._http = httpx.AsyncClient(
            base_url=base_url,
            transport=transport,
            timeout=timeout_s,
            headers={"User-Agent": USER_AGENT},
        )

    # ---- plumbing -------------------------------------------------------------

    @property
    def http(self) -> httpx.AsyncClient:
        """The underlying httpx client (for streaming; prefer the typed methods)."""
        return self._http

    async def send(self, call: Call[T]) -> T:
        """Send ``call``, retrying as :class:`~agents._retry.RetryPolicy` allows; its typed answer."""
        attempt = 0
        renewed = needs_first_token(call.authenticated, self.token, self.credentials)
        if renewed:
            await self.renew_token()
        while True:
            try:
                response = await self._http.request(
                    call.method,
                    call.path,
                    params=call.params,
                    json=call.body,
                    headers=request_headers(call, self.token),
                    timeout=httpx.USE_CLIENT_DEFAULT if call.timeout_s is None else call.timeout_s,
                )
            except httpx.TransportError as broken:
                resendable = call.repeatable or always_resendable(broken)
                if not resendable or attempt >= self.retry.max_retries:
                    raise TransportError(f"{call.method} {call.path} failed: {broken!r}") from broken
                await self._pause(call, attempt, None, repr(broken))
                attempt += 1
                continue
            if response.is_success:
                return call.read(response)
            if not renewed and call.authenticated and self.credentials is not None and token_expired(response):
                # One renewal per call: a token refused again right after it was minted is a real error.
                renewed = True
                await self.renew_token()
                continue
            if self.retry.should_retry(response.status_code, repeatable=call.repeatable) and (
                attempt < self.retry.max_retries
            ):
                wait = self.retry.wait_s(attempt, response)
                if wait <= self.retry.max_wait_s:
                    await self._pause(call, attempt, response, f"answered {response.status_code}", wait)
                    attempt += 1
                    continue
            raise error_for(response)

    async def renew_token(self) -> TokenIssued:
        """Exchange :attr:`credentials` for a new token and use it from now on.

        :raises ValueError: when the client holds no credentials.
        """
        if self.credentials is None:
            raise ValueError("this client has no agent credentials to renew its token with")
        issued = await self.send(endpoints.exchange_credentials(**self.credentials.as_body()))
        self.token = issued.access_token
        return issued

    async def _pause(
        self,
        call: Call[Any],
        attempt: int,
        response: httpx.Response | None,
        reason: str,
        wait: float | None = None,
    ) -> None:
        wait = self.retry.wait_s(attempt, response) if wait is None else wait
        if self.on_retry is not None:
            status = response.status_code if response is not None else None
            self.on_retry(RetryNotice(call.method, call.path, attempt + 1, wait, status, reason))
        await asyncio.sleep(wait)

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    # ---- operations -----------------------------------------------------------

    async def healthz(self) -> dict[str, Any]:
        """``GET /healthz``: the server process answers."""
        return await self.send(endpoints.healthz())

    async def readyz(self) -> dict[str, Any]:
        """``GET /readyz``: the server reaches its Redis."""
        return await self.send(endpoints.readyz())

    async def metrics(self) -> str:
        """``GET /metrics``: Prometheus counters (text exposition format)."""
        return await self.send(endpoints.metrics())

    async def jwks(self) -> Jwks:
        """``GET /.well-known/jwks.json``: the public keys that verify our tokens."""
        return await self.send(endpoints.jwks())

    # ---- identity -------------------------------------------------------------

    async def me(self) -> AgentProfile:
        """Who the token says you are: agent id, name, scopes, expiry."""
        return await self.send(endpoints.me())

    async def organiser_token(
        self,
        name: str,
        *,
        games: Sequence[str] = (),
        organiser_key: str | None = None,
        kind: Literal["agent", "organiser"] = "agent",
        ttl_s: int | None = None,
        meta: endpoints.MetaChanges | None = None,
    ) -> AccessToken:
        """Organiser: mint a token for the agent ``name`` (created on first use).

        Authenticates with ``organiser_key`` (the server's configured key) when
        given, else with this client's token (an organiser token). ``meta`` sets
        the agent's public metadata (model, provider, version, link, predecessor).
        """
        return await self.send(
            endpoints.organiser_token(
                name=name, games=games, organiser_key=organiser_key, kind=kind, ttl_s=ttl_s,
                meta=meta,
            )
        )

    async def update_me(self, meta: endpoints.MetaChanges) -> AgentProfile:
        """Change your agent's public metadata: the fields given (``None`` clears one)."""
        return await self.send(endpoints.update_me(meta))

    async def revoke(self, token: str | None = None) -> Revoked:
        """Revoke ``token``, or this client's own token when ``token`` is None."""
        return await self.send(endpoints.revoke(token))

    # ---- admission and credentials ----------------------------------------------

    async def create_challenge(self, agent_name: str, game: str) -> ChallengeCreated:
        """Ask for an admission challenge: three questions and a puzzle on ``game``'s rulebook.

        A new agent sends no token; an admitted agent adding a game keeps its
        token on the client and uses its own name.
        """
        return await self.send(endpoints.create_challenge(agent_name=agent_name, game=game))

    async def answer_challenge(
        self,
        challenge_id: str,
        answers: Mapping[str, str | int | bool],
        puzzle: Mapping[str, Any],
    ) -> AdmissionPassed:
        """Submit the answers (once). A pass returns the token (and a new agent's secret).

        :raises AdmissionFailed: with ``score`` when too few answers were right.
        """
        return await self.send(endpoints.answer_challenge(challenge_id, answers=answers, puzzle=puzzle))

    async def exchange_credentials(self, agent_id: str, secret: str) -> TokenIssued:
        """A new access token for an admitted agent's id and secret (no new quiz)."""
        return await self.send(endpoints.exchange_credentials(agent_id=agent_id, secret=secret))

    async def rotate_secret(self, agent_id: str, secret: str) -> SecretRotated:
        """Replace the agent's secret; the new one is shown once.

        The server revokes every token issued to the agent before. When this
        client holds that agent's :attr:`credentials`, it takes the new secret
        and, if it had a token, exchanges the new secret for a new one, so it
        goes on working.
        """
        rotated = await self.send(endpoints.rotate_secret(agent_id=agent_id, secret=secret))
        if self.credentials is not None and self.credentials.agent_id == rotated.agent_id:
            self.credentials = AgentCredentials(rotated.agent_id, rotated.secret)
            if self.token is not None:
                await self.renew_token()
        return rotated

    # ---- games ----------------------------------------------------------------

    async def games(self) -> GameList:
        """Every game, its modes, variants and house bots."""
        return await self.send(endpoints.games())

    async def rulebook(self, game: str, *, lang: str | None = None) -> str:
        """The game's rulebook in markdown."""
        return await self.send(endpoints.rulebook(game, lang))

    # ---- tables ---------------------------------------------------------------

    async def create_table(
        self,
        game: str,
        mode: str,
        seats: int,
        *,
        variants: Sequence[str] = (),
        options: Mapping[str, Any] | None = None,
        house_bots: Sequence[HouseBotSeat | Mapping[str, Any]] = (),
        turn_timeout_s: float | None = None,
        private: bool = False,
        join: bool = True,
        seed: int | None = None,
        idempotency_key: str | None = None,
        wait_s: float | None = None,
    ) -> TableOut:
        """Create a table (and sit at it, unless ``join=False``).

        ``seed`` fixes the deal. Only the organiser may choose it for any table; an agent
        only for a table it sits at with house bots in every other seat (else
        :class:`SeedNotAllowed`), since whoever knows the seed knows every hidden card.

        The request carries an ``Idempotency-Key`` (``idempotency_key``, or a fresh one), so
        a retry after a lost answer finds the table instead of creating a second one.

        With ``wait_s`` (at a table that fills without you: house bots, or a public
        table) the answer comes at your first decision and its ``observation`` is the one
        to act from: one request from no table to your first action.
        """
        return await self.send(
            endpoints.create_table(
                game=game, mode=mode, seats=seats, variants=variants, options=options,
                house_bots=house_bots, turn_timeout_s=turn_timeout_s, private=private,
                join=join, seed=seed, key=idempotency_key, wait_s=wait_s,
            )
        )

    async def list_tables(
        self,
        *,
        game: str | None = None,
        mode: str | None = None,
        status: str | None = None,
        offset: int | None = None,
        limit: int | None = None,
    ) -> TableList:
        """Listed (non-private) tables, newest first (follow ``next_offset``)."""
        return await self.send(endpoints.list_tables(game=game, mode=mode, status=status, offset=offset, limit=limit))

    async def table(self, table_id: str) -> TableOut:
        """One table's public information."""
        return await self.send(endpoints.get_table(table_id))

    async def join(self, table_id: str, *, idempotency_key: str | None = None,
                   wait_s: float | None = None) -> TableOut:
        """Take the first free seat (the table starts when the last seat is taken). The
        request carries an ``Idempotency-Key`` (``idempotency_key``, or a fresh one), so a
        retry after a lost answer is not told ``table/already_seated``. With ``wait_s`` the
        answer comes at your first decision, its ``observation`` the one to act from."""
        return await self.send(endpoints.join_table(table_id, key=idempotency_key, wait_s=wait_s))

    async def leave(self, table_id: str) -> TableOut:
        """Give your seat back before the table starts."""
        return await self.send(endpoints.leave_table(table_id))

    async def close_table(self, table_id: str) -> TableOut:
        """End a table you created, open or started with only house bots besides you (it stops
        counting against your cap)."""
        return await self.send(endpoints.close_table(table_id))

    async def observe(
        self, table_id: str, *, wait_s: float | None = None, tools: str | None = None,
        wait: float | None = None,
    ) -> ObservationOut:
        """Your view of the table, its version and your legal actions.

        ``wait_s`` (seconds) holds the answer until you must act or the table ends,
        so a bot's loop is: ``observe(wait_s=...)``, act, repeat (and after an action,
        ``ActionResult.observation`` is already the next observation).
        ``tools="openai"``: the answer's ``tools`` is a function-calling definition
        whose argument is an enum of the legal action ids.
        """
        return await self.send(endpoints.observation(
            table_id, wait_s=endpoints.renamed_wait(wait_s, wait), tools=tools))

    async def act(
        self,
        table_id: str,
        action: ActionBody,
        *,
        version: int,
        idempotency_key: str | None = None,
        wait_s: float | None = None,
        wait: float | None = None,
    ) -> ActionResult:
        """Submit one action for your seat at ``version``.

        The ``Idempotency-Key`` is derived from the table, version and action
        unless given, so sending the same action again (a retry, or after a
        crash) is applied at most once. ``wait_s`` (seconds) holds the answer until
        your seat must decide again or the table ends: its ``observation`` is the
        one to act from next, so a bot needs one request per decision.
        """
        return await self.send(endpoints.act(table_id, version=version, action=action,
                                         key=idempotency_key,
                                         wait_s=endpoints.renamed_wait(wait_s, wait)))

    async def events_page(
        self, table_id: str, *, after: int | None = None, wait_s: float | None = None,
        wait: float | None = None,
    ) -> EventsPage:
        """One long-poll: events after ``after``, waiting up to ``wait_s`` seconds for one
        (``wait``: its deprecated name)."""
        return await self.send(endpoints.events(table_id, after=after,
                                              wait_s=endpoints.renamed_wait(wait_s, wait)))

    def events(
        self,
        table_id: str,
        *,
        after: int | None = None,
        mode: Literal["poll", "sse"] = "poll",
        wait_s: float = 25.0,
    ) -> AsyncEventStream:
        """Iterate (``async for``) over the table's events until it ends, resuming after drops."""
        return AsyncEventStream(self, table_id, after=after, mode=mode, wait_s=wait_s)

    async def replay(self, table_id: str) -> ReplayOut:
        """Seed, action log, events and final state of a finished table."""
        return await self.send(endpoints.replay(table_id))

    async def replay_positions(self, table_id: str) -> dict[str, Any]:
        """Every position of a finished table, step by step (``steps[k].view`` is the
        spectator's view after the k-th action; ``seat_views`` each seat's additions)."""
        return await self.send(endpoints.replay_positions(table_id))

    # ---- tournaments ------------------------------------------------------------

    async def create_tournament(
        self,
        name: str,
        game: str,
        mode: str,
        seats: int,
        entrants: Sequence[str],
        *,
        format: str = "duplicate",
        boards: int = 1,
        rounds: int | None = None,
        baselines: Sequence[str] = (),
        variants: Sequence[str] = (),
        options: Mapping[str, Any] | None = None,
        turn_timeout_s: float | None = None,
        max_concurrent_tables: int | None = None,
        rated: bool = False,
        private: bool = False,
        duplicate_form: str | None = None,
    ) -> TournamentOut:
        """Start a tournament (the organiser's key or an organiser token as ``token``)."""
        return await self.send(endpoints.create_tournament(
            name=name, game=game, mode=mode, seats=seats, entrants=entrants, format=format,
            boards=boards, rounds=rounds, baselines=baselines, variants=variants,
            options=options, turn_timeout_s=turn_timeout_s,
            max_concurrent_tables=max_concurrent_tables, rated=rated, private=private,
            duplicate_form=duplicate_form))

    async def list_tournaments(
        self, *, offset: int | None = None, limit: int | None = None
    ) -> TournamentList:
        """Tournaments, newest first (private ones only for the organiser)."""
        return await self.send(endpoints.list_tournaments(offset=offset, limit=limit))

    async def tournament(self, tournament_id: str) -> TournamentOut:
        """A tournament's progress, standings and live ratings."""
        return await self.send(endpoints.get_tournament(tournament_id))

    async def cancel_tournament(self, tournament_id: str) -> TournamentOut:
        """Stop a tournament: no more tables; running ones close, nobody winning them."""
        return await self.send(endpoints.cancel_tournament(tournament_id))

    async def tournament_results(self, tournament_id: str) -> TournamentResults:
        """Placements and scores of every table of a published board."""
        return await self.send(endpoints.tournament_results(tournament_id))

    async def tournament_results_csv(self, tournament_id: str) -> str:
        """The same results as CSV, one row per seat per table."""
        return await self.send(endpoints.tournament_results_csv(tournament_id))

    async def tournament_replays(self, tournament_id: str) -> list[dict[str, Any]]:
        """Every published table's result and replay (the JSONL bundle, parsed)."""
        return await self.send(endpoints.tournament_replays(tournament_id))

    async def tournament_report(self, tournament_id: str) -> dict[str, Any]:
        """The final report (fitted strengths, intervals, ranks, decisions)."""
        return await self.send(endpoints.tournament_report(tournament_id))

    async def tournament_bundle(self, tournament_id: str) -> dict[str, Any]:
        """The reproducible bundle: config, plan, results, seeds, replays, report, version."""
        return await self.send(endpoints.tournament_bundle(tournament_id))

    async def assignments(
        self, *, after: str | None = None, wait_s: float | None = None, wait: float | None = None
    ) -> AssignmentsPage:
        """One long-poll of the tables you must play (after the id ``after``), held up to
        ``wait_s`` seconds (``wait``: its deprecated name)."""
        return await self.send(endpoints.assignments(after=after,
                                                   wait_s=endpoints.renamed_wait(wait_s, wait)))

    async def assigned_tables(
        self, tournament_id: str | None = None, *, wait_s: float = 25.0
    ) -> AsyncIterator[AssignmentOut]:
        """Yield each table assigned to you (of ``tournament_id``, or of any tournament) as it
        is created, until that tournament is over (with no ``tournament_id``: for ever).

        Reads the assignments from the start, so a restarted player finds the tables
        announced before it started too; a table announced twice is yielded once.
        """
        after = "0"
        seen: set[str] = set()
        while True:
            page = await self.assignments(after=after, wait_s=wait_s)
            after = page.last_id
            for assignment in page.assignments:
                if tournament_id is not None and assignment.tournament_id != tournament_id:
                    continue
                if assignment.kind == "tournament.finished":
                    if tournament_id is not None:
                        return
                    continue
                if assignment.table_id is not None and assignment.table_id not in seen:
                    seen.add(assignment.table_id)
                    yield assignment

    async def join_rated_queue(self, game: str, *, mode: str, seats: int) -> RatedQueueTicket:
        """Wait to be drawn for a rated ``seats``-seat ``mode`` table of ``game``: the queue
        seats waiting agents at random (never two from one address at one table). Then
        :meth:`rated_queue_ticket` with ``wait_s`` until its ``status`` is ``seated``."""
        return await self.send(endpoints.join_rated_queue(game, mode=mode, seats=seats))

    async def rated_queue_ticket(self, game: str, *, wait_s: float | None = None) -> RatedQueueTicket:
        """My ticket in ``game``'s rated queue, held up to ``wait_s`` seconds until a draw
        seats me (``table_id``, ``seat``)."""
        return await self.send(endpoints.rated_queue_ticket(game, wait_s=wait_s))

    async def leave_rated_queue(self, game: str) -> RatedQueueTicket:
        """Stop waiting in ``game``'s rated queue."""
        return await self.send(endpoints.leave_rated_queue(game))

    async def leaderboard(self, game: str) -> LeaderboardOut:
        """Live ratings over every rated table of ``game``."""
        return await self.send(endpoints.leaderboard(game))
