"""Bad input never gets a 500: property-based fuzzing of every operation of the API.

Four kinds of test, each against the real app and a real Redis:

* **random** (``test_bad_input_never_gets_a_500_and_loses_nothing``): for each
  operation of ``app.openapi()`` hypothesis sends requests built from its own
  parameters and request schema, bent out of shape: unknown fields, wrong
  types, missing fields, huge strings and numbers, nulls, nested junk, bodies
  that are not JSON, wrong content types, wrong methods, unknown and strange
  path ids, junk query values and junk ``Authorization``, ``Idempotency-Key``,
  ``Last-Event-ID`` and ``X-Organiser-Key`` headers;
* **one thing wrong** (``test_each_edge_value_alone_never_gets_a_500``): a
  valid request with exactly one parameter, header or body field replaced by
  each edge value in turn (random combinations rarely reach a bad value behind
  a good token, a real id and the other fields right: this does, every time);
* **bent actions**: at the fuzzer's own table, at the current version, a legal
  action (id or structured form) with one part bent, so the game's own parsing
  and rules meet the bad input;
* **bent admission answers**: fresh challenges answered with the right keys
  and wrong values, so the graders and puzzle checkers meet them.

Every answer must be below 500, echo no credential, and every error must be a
problem+json document with ``type``, ``title``, ``status`` (equal to the HTTP
status), ``detail`` and a published ``code``.

The requests go straight to the ASGI app on the test client's own event loop
(:func:`_send`), so a Server-Sent Events stream can be read a moment past its
first frame and then disconnected, and header bytes reach the app exactly as drawn.

Before the fuzzing the module opens real tables: a started table of each game
where the owner is to act against house bots, a table the bots played to its
end, and sandbox tables the fuzzing agent may legitimately join or play at.
After each test the protected tables must read back exactly as before, through
the API (record, version, every observation, every event, the replay, the
owner's agent record) and byte for byte in Redis, and the sandbox tables'
event logs must only have grown.

Sized to run in about 20 s alone and about 45 s beside two busy loops on this
2-core machine (the limit is 60 s);
``derandomize=True`` makes every run send the same requests.
"""

from __future__ import annotations

import json
import re
import time
import urllib.parse
import uuid
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
import redis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from engine.bots import available_bots
from engine.registry import all_games
from gateway.app import create_app
from gateway.errors import PROBLEM_CONTENT_TYPE
from gateway.openapi_docs import PROBLEM_CATALOGUE

from .conftest import ORGANISER_KEY, make_settings

EXAMPLES_PER_OPERATION = 40
"""Requests drawn per operation (23 operations: about 900 random requests in all)."""

STREAM_LISTEN_S = 0.05
"""How long a Server-Sent Events stream is read past its first frame before hanging up."""

ADMISSION_EXAMPLES = 60
"""Challenges opened and answered with bent answers."""

ACTION_EXAMPLES_PER_GAME = 120
"""Bent actions tried at each game's sandbox table."""

REQUEST_TIMEOUT_S = 10.0
"""No single fuzzed request may take longer (long-polls are capped far below this)."""

OPENAPI_FILE = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
METHODS = ("get", "post", "put", "patch", "delete")
GAMES = sorted(all_games())
OWNER_NAME = "fuzz-owner-7f3a"
FUZZER_NAME = "fuzz-agent-9c1e"
PROBLEM_MEMBERS = ("type", "title", "status", "detail", "code")


def _committed_operations() -> list[tuple[str, str, str]]:
    """(operation id, method, path) of every operation in the committed OpenAPI document."""
    document = json.loads(OPENAPI_FILE.read_text())
    return sorted(
        (operation["operationId"], method, path)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    )


OPERATIONS = _committed_operations()


# -- raw ASGI requests -------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class FuzzRequest:
    """One drawn request, as bytes the app will see."""

    method: str
    raw_path: str
    query: list[tuple[str, str]]
    headers: list[tuple[bytes, bytes]]
    body: bytes
    client: str = "203.0.113.9"

    def describe(self) -> str:
        """A short text naming the request (hypothesis prints it with a failing example)."""
        def cut(text: object) -> str:
            shown = repr(text)
            return shown if len(shown) <= 300 else f"{shown[:300]}...({len(shown)} chars)"

        return (f"{self.method} {cut(self.raw_path)} query={cut(self.query)} "
                f"headers={cut(self.headers)} body={cut(self.body)}")

    __repr__ = describe


@dataclass
class Answer:
    """The status, headers and (first frame of the) body the app answered."""

    status: int
    headers: dict[str, str]
    body: bytes


def _send(client: TestClient, app: FastAPI, request: FuzzRequest) -> Answer:
    """Drive ``app`` with ``request`` on the client's event loop; stop after a complete
    body or, for a stream, after its first frame (then the client disconnects)."""

    async def exchange() -> Answer:
        start: dict[str, Any] = {}
        chunks: list[bytes] = []
        request_sent = False
        streaming = anyio.Event()
        disconnected = anyio.Event()

        async def receive() -> dict[str, Any]:
            nonlocal request_sent
            if not request_sent:
                request_sent = True
                return {"type": "http.request", "body": request.body, "more_body": False}
            await disconnected.wait()
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if message.get("more_body", False):
                    streaming.set()

        async def hang_up_on_a_stream() -> None:
            # Listen a moment past the first frame: a stream that breaks on its
            # first read of Redis must fail here, not after we hung up.
            await streaming.wait()
            await anyio.sleep(STREAM_LISTEN_S)
            disconnected.set()

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": request.method,
            "scheme": "http",
            "path": urllib.parse.unquote(request.raw_path),
            "raw_path": request.raw_path.encode("ascii"),
            "root_path": "",
            "query_string": urllib.parse.urlencode(request.query).encode("ascii"),
            "headers": [(b"host", b"testserver"), *request.headers],
            "client": (request.client, 50000),
            "server": ("testserver", 80),
            "state": {},
        }
        with anyio.fail_after(REQUEST_TIMEOUT_S):
            try:
                async with anyio.create_task_group() as listener:
                    listener.start_soon(hang_up_on_a_stream)
                    await app(scope, receive, send)
                    listener.cancel_scope.cancel()
            except BaseExceptionGroup as group:
                if len(group.exceptions) == 1:
                    raise group.exceptions[0] from None  # the app's own error, unwrapped
                raise
        headers = {
            name.decode("latin-1").lower(): value.decode("latin-1")
            for name, value in start.get("headers", [])
        }
        return Answer(int(start["status"]), headers, b"".join(chunks))

    assert client.portal is not None, "the client's lifespan must be running"
    return client.portal.call(exchange)


def _sent_secrets(request: FuzzRequest) -> list[bytes]:
    """The credentials a request carried: none may come back in the answer."""
    secrets = [ORGANISER_KEY.encode()]
    for name, value in request.headers:
        if name == b"authorization" and len(value) > 40:
            secrets.append(value.split(b" ", 1)[-1])
    return secrets


def check_answer(request: FuzzRequest, answer: Answer) -> None:
    """Below 500; an error is problem+json with the five members and a published code;
    no credential the request carried is echoed; a JSON answer parses."""
    context = f"{answer.status} {answer.body[:500]!r} for {request.describe()}"
    assert answer.status < 500, context
    for secret in _sent_secrets(request):
        assert secret not in answer.body, f"a credential was echoed: {context}"
    if request.method == "HEAD":  # answered like GET, without a body
        assert answer.body == b"", context
        if answer.status >= 400:
            assert answer.headers.get("content-type") == PROBLEM_CONTENT_TYPE, context
        return
    if answer.status < 400:
        if answer.headers.get("content-type", "").startswith("application/json"):
            json.loads(answer.body)
        return
    assert answer.headers.get("content-type") == PROBLEM_CONTENT_TYPE, context
    document = json.loads(answer.body)
    assert isinstance(document, dict), context
    for member in PROBLEM_MEMBERS:
        assert member in document, f"no {member!r}: {context}"
    assert document["status"] == answer.status, context
    assert document["code"] in PROBLEM_CATALOGUE, f"unpublished code: {context}"
    assert document["type"].endswith("/" + document["code"]), context
    assert isinstance(document["title"], str) and isinstance(document["detail"], str), context


# -- the world the fuzzing runs in -------------------------------------------------


@dataclass(repr=False)
class World:
    """The app, its client, the tokens and the tables the fuzzing aims at."""

    app: FastAPI
    client: TestClient
    owner: dict[str, str]
    fuzzer_id: str
    protected: list[str]
    finished: str
    sandboxes: list[str]
    challenge_id: str
    legal_ids: list[str]
    legal_by_game: dict[str, list[str]]
    redis_url: str
    baseline: dict[str, Any] = field(default_factory=dict)
    stored: dict[bytes, bytes] = field(default_factory=dict)
    sandbox_events: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"World(protected={self.protected}, sandboxes={self.sandboxes})"

    def fuzzer_token(self) -> str:
        """A fresh, valid token of the fuzzing agent (a revoked one must not end the fuzzing)."""
        return str(self.app.state.tokens.issue(
            agent_id=self.fuzzer_id, name=FUZZER_NAME,
            scopes={f"game:{game}" for game in GAMES},
        ).token)

    def expired_token(self) -> str:
        """A token of the fuzzing agent that expired a while ago."""
        return str(self.app.state.tokens.issue(
            agent_id=self.fuzzer_id, name=FUZZER_NAME, scopes=set(), ttl_s=-3600,
        ).token)

    @property
    def table_ids(self) -> list[str]:
        """Every real table id."""
        return [*self.protected, self.finished, *self.sandboxes]


def _organiser_token(client: TestClient, name: str) -> dict[str, Any]:
    answer = client.post(
        "/v1/auth/organiser/tokens", headers={"X-Organiser-Key": ORGANISER_KEY},
        json={"name": name, "games": GAMES, "ttl_s": 6 * 3600},
    )
    assert answer.status_code == 201, answer.text
    issued: dict[str, Any] = answer.json()
    return issued


def _settle(client: TestClient, table_id: str, headers: dict[str, str], *, until: str) -> None:
    """Wait until the house bots are done: the caller is to act, or the table is finished."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        seen = client.get(f"/v1/tables/{table_id}/observation", headers=headers).json()
        if until == "finished" and seen["status"] == "finished":
            return
        if until == "my_turn" and seen["seat"] in seen["to_act"] and seen["legal_actions"]:
            return
        time.sleep(0.02)
    raise AssertionError(f"table {table_id} did not settle ({until})")


def _all_events(
    client: TestClient, table_id: str, headers: dict[str, str], *, hidden: bool = False
) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    after = 0
    while True:
        page = client.get(f"/v1/tables/{table_id}/events", headers=headers, params={"after": after})
        if hidden:  # a private table does not exist for outsiders
            assert page.status_code == 404, page.text
            return events
        assert page.status_code == 200, page.text
        body = page.json()
        events += body["events"]
        if body["last_id"] == after:
            return events
        after = body["last_id"]


def _listed_ids(client: TestClient) -> set[str]:
    listed: set[str] = set()
    offset: int | None = 0
    while offset is not None:
        page = client.get("/v1/tables", params={"offset": offset, "limit": 200}).json()
        listed |= {table["id"] for table in page["tables"]}
        offset = page["next_offset"]
    return listed


def protected_facts(world: World) -> dict[str, Any]:
    """Everything stored about the protected tables and the owner, as the API shows it."""
    client, owner = world.client, world.owner
    facts: dict[str, Any] = {"me": client.get("/v1/agents/me", headers=owner).json()}
    for table_id in [*world.protected, world.finished]:
        base = f"/v1/tables/{table_id}"
        table = client.get(base, headers=owner).json()
        facts[table_id] = {
            "table": table,
            "owner_view": client.get(f"{base}/observation", headers=owner).json(),
            "spectator_view": client.get(f"{base}/observation").json(),
            "owner_events": _all_events(client, table_id, owner),
            "spectator_events": _all_events(client, table_id, {}, hidden=table["private"]),
        }
    # The owner's token: anonymous replay reads are rate-limited per address, and this
    # check runs after every fuzz case.
    facts[world.finished]["replay"] = client.get(f"/v1/tables/{world.finished}/replay",
                                                 headers=owner).json()
    facts["listed"] = sorted(set(world.table_ids) & _listed_ids(client))
    return facts


def stored_bytes(world: World) -> dict[bytes, bytes]:
    """Every Redis key of the protected tables, serialised by ``DUMP``: what is stored,
    byte for byte, beneath what the API shows."""
    keys = world.app.state.keys
    reader = redis.Redis.from_url(world.redis_url)
    try:
        dumped: dict[bytes, bytes] = {}
        for table_id in [*world.protected, world.finished]:
            pattern = keys.table(table_id, "*")
            for key in sorted(reader.scan_iter(match=pattern, count=1000)):
                # An undecoding client's DUMP is bytes (None, kept as such, if the key went since the scan).
                dumped[key] = cast(bytes, reader.dump(key))
        return dumped
    finally:
        reader.close()


def check_nothing_lost(world: World) -> None:
    """Protected tables read back exactly (through the API and byte for byte in Redis);
    sandbox tables only grew, and still load."""
    assert stored_bytes(world) == world.stored
    assert protected_facts(world) == world.baseline
    for table_id in world.sandboxes:
        events = _all_events(world.client, table_id, {})
        before = world.sandbox_events[table_id]
        assert events[: len(before)] == before, f"sandbox {table_id} lost or changed events"
        ids = [event["id"] for event in events]
        assert ids == sorted(set(ids))
        seen = world.client.get(f"/v1/tables/{table_id}/observation")
        assert seen.status_code == 200, seen.text


@pytest.fixture(scope="module")
def world(
    redis_url: str, signing_key_pem: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[World]:
    """The app on its own namespace of the real Redis, with the tables to fuzz around."""
    namespace = f"test-fuzz-{uuid.uuid4().hex[:12]}"
    settings = make_settings(
        redis_url=redis_url, redis_namespace=namespace,
        data_dir=tmp_path_factory.mktemp("fuzz") / "data", signing_key_pem=signing_key_pem,
        long_poll_max_wait_s=0.05, house_bot_delay_s=0.0, default_turn_timeout_s=86_400.0,
        # The fuzzer opens hundreds of tables; the per-agent cap has its own tests.
        max_active_tables_per_agent=1_000_000,
    )
    app = create_app(settings)
    try:
        with TestClient(app) as client:
            yield _build_world(app, client, redis_url)
    finally:
        cleaner = redis.Redis.from_url(redis_url)
        try:
            batch = list(cleaner.scan_iter(match=f"{namespace}:*", count=1000))
            if batch:
                cleaner.delete(*batch)
        finally:
            cleaner.close()


def open_sandbox(client: TestClient, headers: dict[str, str], game: str, *, seed: int) -> str:
    """A started table of ``game`` where the caller sits in seat 0 against house bots."""
    mode = all_games()[game].info.modes[-1]
    seats = max(mode.min_seats, 2)
    answer = client.post("/v1/tables", headers=headers, json={
        "game": game, "mode": mode.name, "seats": seats, "seed": seed, "turn_timeout_s": 86_400,
        "house_bots": [{"seat": seat} for seat in range(1, seats)],
    })
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


def _build_world(app: FastAPI, client: TestClient, redis_url: str) -> World:
    owner_token = _organiser_token(client, OWNER_NAME)
    owner = {"Authorization": f"Bearer {owner_token['access_token']}"}
    fuzzer_id = _organiser_token(client, FUZZER_NAME)["agent_id"]
    fuzzer = {"Authorization": "Bearer " + app.state.tokens.issue(
        agent_id=fuzzer_id, name=FUZZER_NAME, scopes={f"game:{game}" for game in GAMES}).token}
    # Only the organiser may choose the seed of a table the owner does not sit at alone
    # with house bots.
    organiser = {"Authorization": "Bearer " + app.state.tokens.issue(
        agent_id="org", name="org", scopes=(), kind="organiser").token}

    def open_table(headers: dict[str, str], **body: Any) -> str:
        answer = client.post("/v1/tables", headers=headers, json={"turn_timeout_s": 86_400, **body})
        assert answer.status_code == 201, answer.text
        return str(answer.json()["id"])

    protected = []
    for number, game in enumerate(GAMES):
        mode = all_games()[game].info.modes[0]
        seats = max(mode.min_seats, 3)
        protected.append(open_table(
            owner, game=game, mode=mode.name, seats=seats, seed=100 + number, private=number == 1,
            house_bots=[{"seat": seat, "bot": "random"} for seat in range(1, seats)],
        ))
    for table_id in protected:
        _settle(client, table_id, owner, until="my_turn")

    first = all_games()[GAMES[0]].info.modes[0]
    finished = open_table(
        organiser, game=GAMES[0], mode=first.name, seats=first.min_seats, seed=7, join=False,
        house_bots=[{"seat": seat, "bot": "greedy"} for seat in range(first.min_seats)],
    )
    _settle(client, finished, owner, until="finished")

    sandboxes = []
    for number, game in enumerate(GAMES):
        mode = all_games()[game].info.modes[-1]
        sandboxes.append(open_sandbox(client, fuzzer, game, seed=200 + number))
        sandboxes.append(open_table(
            organiser, game=game, mode=mode.name, seats=mode.max_seats, seed=300 + number,
            join=False,
        ))
    legal_by_game: dict[str, list[str]] = {}
    for game, table_id in zip(GAMES, sandboxes[::2], strict=True):
        _settle(client, table_id, fuzzer, until="my_turn")
        seen = client.get(f"/v1/tables/{table_id}/observation", headers=fuzzer).json()
        legal_by_game[game] = [action["id"] for action in seen["legal_actions"]]
    legal_ids = [legal for ids in legal_by_game.values() for legal in ids]

    challenge = client.post("/v1/admission/challenges",
                            json={"agent_name": "fuzz-candidate", "game": GAMES[-1]})
    assert challenge.status_code == 201, challenge.text

    world = World(
        app=app, client=client, owner=owner, fuzzer_id=fuzzer_id, protected=protected,
        finished=finished, sandboxes=sandboxes, challenge_id=challenge.json()["challenge_id"],
        legal_ids=sorted(set(legal_ids)), legal_by_game=legal_by_game, redis_url=redis_url,
    )
    world.baseline = protected_facts(world)
    world.stored = stored_bytes(world)
    assert len(world.stored) >= 2 * (len(world.protected) + 1)  # a hash and events each (a log once played)
    world.sandbox_events = {table_id: _all_events(client, table_id, {}) for table_id in sandboxes}
    return world


# -- strategies ---------------------------------------------------------------------

EDGE_INTEGERS = (-1, 0, 1, 2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30, -(10**30))
EDGE_TEXTS = (
    "", " ", "null", "0", "-1", "1e309", "NaN", "Infinity", "-0", "0x10", "１２", "²", "١٢",
    "../../etc/passwd", "%00", "%2F", "{tag}", "*", "?", "#", "a" * 300, "\u202e", "💥",
    "' OR 1=1 --", "<script>", "\\", "\t",
)
HUGE_TEXT = "Z" * 100_000

junk_text = st.one_of(
    st.sampled_from(EDGE_TEXTS),
    st.text(max_size=30),
    st.just(HUGE_TEXT),
)
junk_number = st.one_of(
    st.sampled_from(EDGE_INTEGERS),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
)
junk_scalar = st.one_of(st.none(), st.booleans(), junk_number, junk_text)
junk_json = st.recursive(
    junk_scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=12), inner, max_size=4),
    ),
    max_leaves=12,
)


def hints(world: World) -> dict[str, st.SearchStrategy[Any]]:
    """Real values for names the API uses, so requests also get past the first check."""
    modes = sorted({mode.name for game in all_games().values() for mode in game.info.modes})
    bots = sorted({bot for game in GAMES for bot in available_bots(game)})
    names = st.sampled_from(["fuzz-new-1", "fuzz-new-2", "fuzz_x.y", "fuzz-candidate"])
    return {
        "table_id": st.sampled_from(world.table_ids),
        "challenge_id": st.just(world.challenge_id),
        "game": st.sampled_from(GAMES),
        "games": st.lists(st.sampled_from(GAMES), max_size=3),
        "mode": st.sampled_from(modes),
        "bot": st.sampled_from(bots),
        "agent_name": names,
        "name": names,
        "agent_id": st.just(world.fuzzer_id),
        "action": st.sampled_from(world.legal_ids or ["pass"]),
        "version": st.integers(min_value=0, max_value=40),
        "seat": st.integers(min_value=0, max_value=6),
        "seats": st.integers(min_value=1, max_value=7),
        "status": st.sampled_from(["open", "playing", "finished"]),
        "after": st.integers(min_value=0, max_value=400),
        "token": st.builds(world.fuzzer_token),
        "lang": st.sampled_from(["en", "de"]),
    }


def from_schema(
    schema: dict[str, Any], components: dict[str, Any], hinted: dict[str, st.SearchStrategy[Any]],
    name: str = "", depth: int = 0,
) -> st.SearchStrategy[Any]:
    """Values shaped like ``schema`` most of the time, any junk some of the time."""
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    right = _shaped(schema, components, hinted, name, depth)
    if name in hinted:
        right = st.one_of(hinted[name], right)
    return st.one_of(right, right, right, junk_json)


def _shaped(
    schema: dict[str, Any], components: dict[str, Any], hinted: dict[str, st.SearchStrategy[Any]],
    name: str, depth: int,
) -> st.SearchStrategy[Any]:
    choices = schema.get("anyOf") or schema.get("oneOf")
    if choices:
        return st.one_of([from_schema(choice, components, hinted, name, depth) for choice in choices])
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return _object(schema, components, hinted, depth)
    if kind == "array":
        items = schema.get("items", {})
        return st.lists(from_schema(items, components, hinted, name, depth + 1), max_size=4)
    if kind == "string":
        return st.one_of(st.text(max_size=20), junk_text)
    if kind == "integer":
        return st.one_of(st.integers(min_value=-5, max_value=100), st.sampled_from(EDGE_INTEGERS))
    if kind == "number":
        return st.one_of(st.integers(min_value=-5, max_value=100), junk_number)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    return junk_json


@st.composite
def _object(
    draw: st.DrawFn, schema: dict[str, Any], components: dict[str, Any],
    hinted: dict[str, st.SearchStrategy[Any]], depth: int,
) -> dict[str, Any]:
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    built: dict[str, Any] = {}
    if depth > 3:
        return built
    for prop, prop_schema in properties.items():
        keep = draw(st.integers(0, 9)) < (9 if prop in required else 5)
        if keep:
            built[prop] = draw(from_schema(prop_schema, components, hinted, prop, depth + 1))
    if draw(st.integers(0, 5)) == 3:
        built[draw(st.sampled_from(["extra", "admin", "__proto__", "seed ", "Version"]))] = draw(junk_json)
    return built


def body_bytes(
    schema: dict[str, Any] | None, components: dict[str, Any], hinted: dict[str, st.SearchStrategy[Any]],
) -> st.SearchStrategy[tuple[bytes, bytes | None]]:
    """(body, content type): JSON of the request shape or junk, raw junk, strange content types."""
    shaped = from_schema(schema, components, hinted) if schema else junk_json
    as_json = shaped.map(lambda value: json.dumps(value, allow_nan=True).encode())
    raw = st.one_of(
        as_json,
        st.binary(max_size=64),
        st.sampled_from([
            b"", b"{", b'{"version": NaN, "action": "pass"}', b"[" * 50_000 + b"]" * 50_000,
            b"[" * 900 + b"0" + b"]" * 900, b'{"a":' * 900 + b"0" + b"}" * 900, b'{"a": 1, "a": 2}', b"\xff\xfe{}", b"null",
            b"0" * 10_000, json.dumps({"game": HUGE_TEXT, "agent_name": HUGE_TEXT}).encode(),
        ]),
    )
    content_type = st.sampled_from([
        b"application/json", b"application/json", b"application/json", None, b"text/plain",
        b"application/x-www-form-urlencoded", b"multipart/form-data; boundary=zz",
        b"application/json; charset=latin-1", b"application/problem+json", b"\xff junk",
    ])
    return st.tuples(raw, content_type)


latin1_text = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"),
    max_size=40,
)


def header_value(special: list[str]) -> st.SearchStrategy[bytes | None]:
    """None (not sent) or a value: real ones, junk, latin-1 bytes, very long."""
    return st.one_of(
        st.none(),
        st.sampled_from(special).map(str.encode),
        latin1_text.map(lambda text: text.encode("latin-1")),
        st.sampled_from(["", "9" * 40, "-1", "1-0", "0", "²", "٣", "x" * 201, "y" * 20_000])
        .map(lambda text: text.encode("utf-8")),
    )


@st.composite
def authorization(draw: st.DrawFn, world: World) -> bytes | None:
    """No token, a valid token, or broken ones (junk, expired, tampered, ``alg: none``)."""
    choice = draw(st.integers(0, 9))
    if choice <= 5:
        return ("Bearer " + world.fuzzer_token()).encode()
    if choice == 4:
        return None
    token = world.fuzzer_token()
    header, payload, signature = token.split(".")
    broken = draw(st.sampled_from([
        "Bearer", "Bearer ", "bearer " + token, "Basic ZnV6ejpmdXp6", "Bearer " + ORGANISER_KEY,
        "Bearer " + world.expired_token(), f"Bearer {header}.{payload}x.{signature}",
        f"Bearer {header}.{payload[:-4]}AAAA.{signature}",
        "Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJ4In0.",
        "Bearer " + "A" * 20_000, "Bearer a.b.c", "Bearer ...", "Token x",
    ]))
    junk = draw(st.one_of(st.just(broken), latin1_text.map(lambda text: "Bearer " + text)))
    return junk.encode("latin-1", errors="replace")


@dataclass(frozen=True, repr=False)
class Target:
    """One operation of the OpenAPI document, with what its requests are drawn from."""

    method: str
    path: str
    operation: dict[str, Any]
    components: dict[str, Any]
    hinted: dict[str, st.SearchStrategy[Any]]

    def __repr__(self) -> str:
        return f"Target({self.method.upper()} {self.path})"


@st.composite
def fuzzed_request(draw: st.DrawFn, world: World, target: Target) -> FuzzRequest:
    """One request to ``target``: its own parameters, bodies and headers, bent."""
    method, path, operation = target.method, target.path, target.operation
    components, hinted = target.components, target.hinted
    raw_path = path
    query: list[tuple[str, str]] = []
    headers: list[tuple[bytes, bytes]] = []
    for parameter in operation.get("parameters", []):
        name, where = parameter["name"], parameter["in"]
        real = hinted.get(name, st.text(max_size=10)).map(str)
        junk = st.one_of(junk_text, junk_number.map(str))
        edge = st.sampled_from(EDGE_INTEGERS).map(str)
        if where == "path":
            value = draw(st.one_of(real, real, real, st.just(uuid.uuid4().hex[:16]), junk))
            raw_path = raw_path.replace("{" + name + "}", urllib.parse.quote(value, safe=""))
        elif where == "query":
            for _repeat in range(draw(st.sampled_from([0, 1, 1, 1, 2]))):
                query.append((name, draw(st.one_of(real, edge, junk))))
        elif where == "header":
            value_bytes = draw(header_value([uuid.uuid4().hex, "0", "12"]))
            if value_bytes is not None:
                headers.append((name.lower().encode(), value_bytes))
    if draw(st.integers(0, 4)) == 2:
        query.append((draw(st.sampled_from(["unknown", "limit", "after", "wait", "game"])),
                      draw(junk_text)))
    token = draw(authorization(world))
    if token is not None:
        headers.append((b"authorization", token))
    organiser = draw(st.sampled_from([None, None, None, ORGANISER_KEY.encode(), b"wrong-key", b""]))
    if organiser is not None:
        headers.append((b"x-organiser-key", organiser))
    for extra in (b"idempotency-key", b"last-event-id"):
        if not any(name == extra for name, _ in headers) and draw(st.integers(0, 3)) == 2:
            value_bytes = draw(header_value(["1", "0"]))
            if value_bytes is not None:
                headers.append((extra, value_bytes))
    body = b""
    request_body = operation.get("requestBody")
    if request_body is not None or draw(st.integers(0, 5)) == 3:
        schema = None
        if request_body is not None:
            schema = request_body.get("content", {}).get("application/json", {}).get("schema")
        body, content_type = draw(body_bytes(schema, components, hinted))
        if content_type is not None:
            headers.append((b"content-type", content_type))
        headers.append((b"content-length", str(len(body)).encode()))
    # Rare branches test a middle value: hypothesis favours zeros (its simplest choices).
    if draw(st.integers(0, 11)) == 6:  # the right path with a method it does not take
        method = draw(st.sampled_from(
            ["put", "patch", "delete", "options", "get", "post", "head", "trace", "brew"]))
    return FuzzRequest(method.upper(), raw_path, query, headers, body)


# -- the tests ----------------------------------------------------------------------


def test_every_operation_of_the_app_is_fuzzed(world: World) -> None:
    """The committed operations (which parametrise the fuzzing) are the app's own."""
    served = sorted(
        (operation["operationId"], method, path)
        for path, item in world.app.openapi()["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    )
    assert served == OPERATIONS


@pytest.mark.parametrize(("operation_id", "method", "path"), OPERATIONS, ids=[o[0] for o in OPERATIONS])
def test_bad_input_never_gets_a_500_and_loses_nothing(
    world: World, operation_id: str, method: str, path: str
) -> None:
    """Fuzz one operation, then check the stored tables are intact."""
    document = world.app.openapi()
    operation = document["paths"][path][method]
    components = document.get("components", {}).get("schemas", {})
    target = Target(method, path, operation, components, hints(world))

    @hypothesis_settings(
        derandomize=True, database=None, deadline=None, max_examples=EXAMPLES_PER_OPERATION,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(request=fuzzed_request(world, target))
    def fuzz(request: FuzzRequest) -> None:
        check_answer(request, _send(world.client, world.app, request))

    fuzz()
    check_nothing_lost(world)


def test_the_checks_themselves_catch_a_500(world: World) -> None:
    """``check_answer`` refuses a 500 and a non-problem error (so a pass means something)."""
    request = FuzzRequest("GET", "/x", [], [], b"")
    with pytest.raises(AssertionError):
        check_answer(request, Answer(500, {"content-type": PROBLEM_CONTENT_TYPE}, b"{}"))
    with pytest.raises(AssertionError):
        check_answer(request, Answer(404, {"content-type": "application/json"}, b'{"detail": "x"}'))
    answer = _send(world.client, world.app, FuzzRequest("GET", "/v1/no/such/route", [], [], b""))
    check_answer(request, answer)
    assert answer.status == 404



# -- one bad thing at a time ----------------------------------------------------------

EDGE_JSON: tuple[Any, ...] = (
    None, True, False, -1, 0, 2**63, 2**64, -(2**63) - 1, 10**30, 1.5, 1e308, -0.0, "", " ",
    "²", HUGE_TEXT, [], {}, [None], {"kind": None}, [[[[[]]]]], {"extra": {"extra": []}},
)
EDGE_BODIES: tuple[bytes, ...] = (
    b"", b"{", b"null", b"[]", b"0", b'"text"', b"\xff\xfe{}", b'{"a": 1, "a": 2}',
    b'{"version": NaN, "action": "pass"}', b'{"version": Infinity}', b"[" * 50_000 + b"]" * 50_000,
    b"[" * 900 + b"0" + b"]" * 900, b'{"version": ' + b"9" * 5_000 + b', "action": "pass"}',
)
EDGE_CONTENT_TYPES: tuple[bytes | None, ...] = (
    None, b"text/plain", b"application/x-www-form-urlencoded", b"multipart/form-data; boundary=zz",
    b"application/json; charset=latin-1", b"\xff junk",
)
EDGE_HEADERS: tuple[bytes, ...] = (
    b"", b"-1", b"0", b"1-0", b"9" * 19, b"9" * 20, b"9" * 40, b"\xb2", b"\xb2\xb3", b"1.5",
    b" 1", b"x" * 201, b"y" * 20_000, b"\xe9t\xe9",
)
EDGE_QUERY: tuple[str, ...] = (
    *EDGE_TEXTS, *(str(number) for number in EDGE_INTEGERS), "nan", "inf", "-inf", "1e400", "1.5",
)


def _base_table(world: World, method: str, path: str) -> str:
    """The real table a one-thing-wrong request aims at: where the fuzzer sits for
    posts, the finished one for the replay, a protected one otherwise."""
    if path.endswith("/replay"):
        return world.finished
    return world.sandboxes[0] if method == "post" else world.protected[0]


def _example_body(operation: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    for example in content.get("examples", {}).values():
        if isinstance(example.get("value"), dict):
            return dict(example["value"])
    ref = content.get("schema", {}).get("$ref", "")
    listed = components.get(ref.rsplit("/", 1)[-1], {}).get("examples", [{}]) if ref else [{}]
    return dict(listed[0]) if isinstance(listed[0], dict) else {}


def one_thing_wrong(world: World, method: str, path: str, operation: dict[str, Any],
                    components: dict[str, Any]) -> Iterator[FuzzRequest]:
    """A valid-looking request with exactly one edge value, for every place and edge value."""
    table_id = _base_table(world, method, path)
    values = {"table_id": table_id, "challenge_id": world.challenge_id, "game": GAMES[0]}
    parameters = operation.get("parameters", [])
    body = _example_body(operation, components) if "requestBody" in operation else None

    def build(
        path_values: dict[str, str] | None = None, query: list[tuple[str, str]] | None = None,
        headers: dict[bytes, bytes] | None = None, raw_body: bytes | None = None,
        raw_segments: dict[str, str] | None = None,
    ) -> FuzzRequest:
        raw_path = path
        for parameter in parameters:
            if parameter["in"] == "path":
                name = parameter["name"]
                value = (path_values or {}).get(name, values.get(name, "x"))
                segment = (raw_segments or {}).get(name, urllib.parse.quote(value, safe=""))
                raw_path = raw_path.replace("{" + name + "}", segment)
        sent = {b"authorization": ("Bearer " + world.fuzzer_token()).encode()}
        sent.update(headers or {})
        content = raw_body if raw_body is not None else (
            json.dumps(body, allow_nan=True).encode() if body is not None else b""
        )
        if body is not None and b"content-type" not in sent:
            sent[b"content-type"] = b"application/json"
        sent = {name: value for name, value in sent.items() if value is not None}
        sent[b"content-length"] = str(len(content)).encode()
        return FuzzRequest(method.upper(), raw_path, query or [], list(sent.items()), content)

    yield build()
    for parameter in parameters:
        name, where = parameter["name"], parameter["in"]
        if where == "path":
            for text in (*EDGE_TEXTS, uuid.uuid4().hex[:16], "x" * 20_000):
                yield build(path_values={name: text})
            for segment in ("%ff", "%00", "%2F", "..", ".", "%", "%zz", "a%2Fb%2F..%2F.."):
                yield build(raw_segments={name: segment})  # as sent, not quoted again
        elif where == "query":
            for text in EDGE_QUERY:
                yield build(query=[(name, text)])
            yield build(query=[(name, "1"), (name, "2")])
        elif where == "header":
            for raw in EDGE_HEADERS:
                yield build(headers={name.lower().encode(): raw})
    # Declared headers (Idempotency-Key, Last-Event-ID) were bent above; credentials here.
    for header in (b"authorization", b"x-organiser-key"):
        for raw in (b"", b"\xb2", b"y" * 20_000, b"Bearer", b"Bearer " + b"A" * 20_000, b"Basic eDp5"):
            yield build(headers={header: raw})
    if body is None:
        return
    for prop in [*body, "extra"]:
        for junk in EDGE_JSON:
            yield build(raw_body=json.dumps({**body, prop: junk}).encode())
        yield build(raw_body=json.dumps({k: v for k, v in body.items() if k != prop}).encode())
    for raw_body in EDGE_BODIES:
        yield build(raw_body=raw_body)
    for content_type in EDGE_CONTENT_TYPES:
        yield build(headers={b"content-type": content_type} if content_type else {b"content-type": b""})


@pytest.mark.parametrize(("operation_id", "method", "path"), OPERATIONS, ids=[o[0] for o in OPERATIONS])
def test_each_edge_value_alone_never_gets_a_500(
    world: World, operation_id: str, method: str, path: str
) -> None:
    """Every parameter, header and body field of the operation, bent one at a time."""
    document = world.app.openapi()
    operation = document["paths"][path][method]
    components = document.get("components", {}).get("schemas", {})
    failures = []
    for request in one_thing_wrong(world, method, path, operation, components):
        try:
            check_answer(request, _send(world.client, world.app, request))
        except Exception as failure:  # collect them all: one run names every bug
            failures.append(
                f"{request.describe()[:400]}\n  -> {type(failure).__name__}: {str(failure)[:300]}"
            )
    assert not failures, "\n".join(failures)
    check_nothing_lost(world)


# -- regressions: what the fuzzing found --------------------------------------------


def _problem_of(world: World, request: FuzzRequest) -> dict[str, Any]:
    answer = _send(world.client, world.app, request)
    check_answer(request, answer)
    assert answer.status == 422, answer.body[:300]
    document: dict[str, Any] = json.loads(answer.body)
    return document


@pytest.mark.parametrize("cursor", [str(2**63), str(2**64), str(10**30)])
def test_an_event_cursor_past_redis_range_is_request_invalid(world: World, cursor: str) -> None:
    """``after`` past 2**63 - 1 was sent to ``XREAD`` as is: Redis refused the id, a 500."""
    table_id = world.protected[0]
    for operation in ("events", "events/stream"):
        request = FuzzRequest("GET", f"/v1/tables/{table_id}/{operation}", [("after", cursor)], [], b"")
        assert _problem_of(world, request)["code"] == "request/invalid"
    largest = FuzzRequest("GET", f"/v1/tables/{table_id}/events", [("after", str(2**63 - 1))], [], b"")
    answer = _send(world.client, world.app, largest)
    assert answer.status == 200 and json.loads(answer.body)["events"] == []


@pytest.mark.parametrize("resume", [b"\xb2", b"\xb2\xb3", b"9" * 20, b"9" * 40, b"-1", b""])
def test_a_last_event_id_that_is_not_an_event_id_is_request_invalid(
    world: World, resume: bytes
) -> None:
    """``Last-Event-ID: ²`` passed ``str.isdigit`` and broke ``int`` (a 500); twenty nines
    passed both and broke the stream's first ``XREAD`` after the 200 had gone out."""
    request = FuzzRequest("GET", f"/v1/tables/{world.protected[0]}/events/stream", [],
                          [(b"last-event-id", resume)], b"")
    assert _problem_of(world, request)["code"] == "request/invalid"


def test_a_last_event_id_resumes_the_stream_after_it(world: World) -> None:
    """A good ``Last-Event-ID`` still resumes (the stricter parsing kept the feature)."""
    table_id = world.finished
    last = world.baseline[table_id]["spectator_events"][-1]["id"]
    request = FuzzRequest("GET", f"/v1/tables/{table_id}/events/stream", [],
                          [(b"last-event-id", str(last).encode())], b"")
    answer = _send(world.client, world.app, request)
    assert answer.status == 200
    assert answer.body.endswith(b"event: end\ndata: {}\n\n") and b"id: " not in answer.body


@pytest.mark.parametrize("offset", [str(2**53 + 1), str(2**63), str(2**70)])
def test_a_listing_offset_past_redis_range_is_request_invalid(world: World, offset: str) -> None:
    """``offset`` of 2**63 went to ``ZREVRANGE`` as is: Redis refused it, a 500."""
    request = FuzzRequest("GET", "/v1/tables", [("offset", offset)], [], b"")
    assert _problem_of(world, request)["code"] == "request/invalid"
    far = _send(world.client, world.app, FuzzRequest("GET", "/v1/tables", [("offset", str(2**53))], [], b""))
    assert far.status == 200 and json.loads(far.body) == {"tables": [], "next_offset": None}


# -- actions at the fuzzer's own tables: past the schema, into the rules ----------------


def _my_turn(world: World, table_id: str, headers: dict[str, str]) -> dict[str, Any]:
    """The fuzzer's observation once the house bots have moved (or the table is over)."""
    deadline = time.monotonic() + 5
    while True:
        seen: dict[str, Any] = world.client.get(
            f"/v1/tables/{table_id}/observation", headers=headers).json()
        if seen["status"] != "playing" or seen["legal_actions"] or time.monotonic() > deadline:
            return seen
        time.sleep(0.01)


@dataclass(frozen=True)
class Bend:
    """How to bend a legal action, drawn before the table is read (so hypothesis can
    replay it): which action, which form, where, and with what."""

    pick: int
    form: str
    where: int
    delete: bool
    replacement: Any

    def apply(self, game_name: str, legal_ids: list[str]) -> Any:
        """The bent action, built from the legal actions of now."""
        game = all_games()[game_name]
        base_id = legal_ids[self.pick % len(legal_ids)]
        structured = game.parse_action(base_id).model_dump(mode="json")
        if self.form == "id":
            return base_id
        if self.form == "structured":
            return structured
        if self.form == "bent id":
            parts = base_id.split(":")
            where = self.where % (len(parts) + 1)
            if where == len(parts):
                parts.append(str(self.replacement))  # one part too many
            elif self.delete:
                del parts[where]
            else:
                parts[where] = str(self.replacement)
            return ":".join(parts)
        fields = sorted(structured)
        structured[fields[self.where % len(fields)]] = self.replacement
        return structured


def bends(game_name: str, seen_ids: list[str]) -> st.SearchStrategy[Bend]:
    """Bends whose replacements come from the parts of actions seen at setup, or junk."""
    game = all_games()[game_name]
    pieces = sorted({piece for legal in seen_ids for piece in legal.split(":")})
    values = [value for legal in seen_ids
              for value in game.parse_action(legal).model_dump(mode="json").values()]
    return st.builds(
        Bend,
        pick=st.integers(0, 2**16),
        form=st.sampled_from(["id", "bent id", "structured", "bent structured"]),
        where=st.integers(0, 2**16),
        delete=st.booleans(),
        replacement=st.one_of(st.sampled_from(pieces), st.sampled_from(values), junk_json),
    )


@pytest.mark.parametrize("game_index", range(len(GAMES)), ids=GAMES)
def test_bent_actions_at_my_own_table_never_get_a_500(world: World, game_index: int) -> None:
    """At the current version, on the fuzzer's turn: legal actions with one part bent,
    some under an idempotency key already used (a replay, or a conflict).

    Well-formed but wrong actions reach the game's own parsing and rules, the
    deepest path bad input can take. A legal one is applied (the table moves on,
    legitimately); anything else is a problem, and never a 500.
    """
    tables = [world.sandboxes[2 * game_index]]
    game_name = GAMES[game_index]

    @hypothesis_settings(
        derandomize=True, database=None, deadline=None, max_examples=ACTION_EXAMPLES_PER_GAME,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(
        bend=bends(game_name, world.legal_by_game[game_name]),
        key=st.one_of(st.builds(lambda: uuid.uuid4().hex), st.builds(lambda: uuid.uuid4().hex),
                      st.sampled_from(["k1", "k2", "k3"])),
    )
    def act(bend: Bend, key: str) -> None:
        headers = {"Authorization": "Bearer " + world.fuzzer_token()}
        seen = _my_turn(world, tables[-1], headers)
        if seen["status"] != "playing":  # played to the end: sit down at a new table
            tables.append(open_sandbox(world.client, headers, game_name, seed=400 + len(tables)))
            seen = _my_turn(world, tables[-1], headers)
        table_id = tables[-1]
        legal_ids = [action["id"] for action in seen["legal_actions"]]
        action = bend.apply(game_name, legal_ids or world.legal_by_game[game_name])
        body = json.dumps({"version": seen["version"], "action": action}, allow_nan=True).encode()
        request = FuzzRequest(
            "POST", f"/v1/tables/{table_id}/actions", [],
            [(b"authorization", headers["Authorization"].encode()),
             (b"content-type", b"application/json"),
             (b"idempotency-key", key.encode())], body,
        )
        answer = _send(world.client, world.app, request)
        check_answer(request, answer)

    act()
    check_nothing_lost(world)


# -- admission answers: right keys, wrong everything else --------------------------------

CARD_LIKE = ("S.energy.5", "R.energy.4", "X.correction.1", "S.banking.2", "R.retail.4", "S.", "X..",
             "coal", "salt", "tea", "A", "B", "q1")
plausible_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 300), st.sampled_from(CARD_LIKE), junk_scalar,
)
plausible = st.recursive(
    plausible_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.dictionaries(st.sampled_from(["0", "1", "2", "3", "-1", "99", "x", "coal", "investments",
                                         "hand", "strategies", ""]), inner, max_size=5),
    ),
    max_leaves=14,
)


@dataclass(frozen=True)
class AnswerPlan:
    """Answers drawn before the challenge exists; laid onto its question ids and the
    keys its puzzle's ``answer_format`` names."""

    game: int
    questions: list[Any]
    puzzle_values: list[Any]
    drop_key: int | None
    extra_key: bool

    def body(self, challenge: dict[str, Any]) -> dict[str, Any]:
        """The answers body for ``challenge``."""
        answers = {
            question["id"]: self.questions[number % len(self.questions)]
            for number, question in enumerate(challenge["questions"])
        }
        keys = list(dict.fromkeys(re.findall(r'"(\w+)":', challenge["puzzle"]["answer_format"])))
        puzzle = {key: self.puzzle_values[number % len(self.puzzle_values)]
                  for number, key in enumerate(keys)}
        if self.drop_key is not None and keys:
            puzzle.pop(keys[self.drop_key % len(keys)])
        if self.extra_key:
            puzzle["extra"] = True
        return {"answers": answers, "puzzle": puzzle}


answer_plans = st.builds(
    AnswerPlan,
    game=st.integers(0, len(GAMES) - 1),
    questions=st.lists(st.one_of(st.sampled_from(["A", "B", "C", "D", "E", ""]), st.integers(-1, 100),
                                 st.booleans(), junk_json), min_size=1, max_size=3),
    puzzle_values=st.lists(plausible, min_size=1, max_size=4),
    drop_key=st.one_of(st.none(), st.integers(0, 5)),
    extra_key=st.booleans(),
)


def test_bent_admission_answers_never_get_a_500(world: World) -> None:
    """Fresh challenges, answered with the right keys and bent values: the graders and
    the puzzle checkers meet wrong types and shapes, and must fail the answer, not crash."""
    opened = iter(range(10**6))

    @hypothesis_settings(
        derandomize=True, database=None, deadline=None, max_examples=ADMISSION_EXAMPLES,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(plan=answer_plans)
    def answer(plan: AnswerPlan) -> None:
        number = next(opened)
        client = f"198.51.100.{number % 250}"  # the per-address limit is not under test here
        ask = FuzzRequest(
            "POST", "/v1/admission/challenges", [], [(b"content-type", b"application/json")],
            json.dumps({"agent_name": f"fz{number}-cand", "game": GAMES[plan.game]}).encode(),
            client=client,
        )
        created = _send(world.client, world.app, ask)
        check_answer(ask, created)
        assert created.status == 201, created.body[:300]
        challenge = json.loads(created.body)
        reply = FuzzRequest(
            "POST", f"/v1/admission/challenges/{challenge['challenge_id']}/answers", [],
            [(b"content-type", b"application/json")],
            json.dumps(plan.body(challenge), allow_nan=True).encode(), client=client,
        )
        check_answer(reply, _send(world.client, world.app, reply))

    answer()
    check_nothing_lost(world)


def test_options_may_lower_a_game_cap_but_never_raise_it(world: World) -> None:
    """``options: {"turn_limit_per_seat": 10**30}`` was accepted: a table of house bots
    then played on for ever (about 1,700 actions a second, its event stream growing
    without end). Caps may be lowered, as tests and short games do, never raised."""
    headers = {"Authorization": "Bearer " + world.fuzzer_token()}
    game = "market-fortune"
    caps = ("turn_limit_per_seat", "match_game_limit", "match_target")
    fields = all_games()[game].config_model.model_fields
    base = {"game": game, "mode": "championship", "seats": 2, "house_bots": [{"seat": 1}],
            "turn_timeout_s": 86_400}
    for cap in caps:
        rulebook = fields[cap].default
        for too_many in (rulebook + 1, 10**30):
            refused = world.client.post("/v1/tables", headers=headers,
                                        json={**base, "options": {cap: too_many}})
            assert refused.status_code == 422, refused.text
            assert refused.json()["code"] == "table/invalid_config"
            assert len(refused.content) < 2_000
        for allowed in (1, rulebook):
            opened = world.client.post("/v1/tables", headers=headers,
                                       json={**base, "options": {cap: allowed}})
            assert opened.status_code == 201, opened.text
