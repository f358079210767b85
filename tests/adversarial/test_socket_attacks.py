"""The bot socket (``/v1/ws``) under attack, as the HTTP probes here attack HTTP: on a real
uvicorn server (its frame limits, bounded waits), each attack is answered with the problem
document HTTP answers (less ``instance``, HTTP's request path) or closed with a documented
close code, and the table, read over HTTP afterwards, lost nothing and applied nothing
twice.

* acting for a seat that is not to act, at a table the token is not seated at, or naming
  a seat in the message;
* forged (payload swapped, ``alg: none``, another key), expired and revoked tokens, at the
  upgrade, as the first message and as a renewal of an open connection;
* an idempotency key replayed with another action; the same action sent at once from two
  sockets of one agent, with a key and without; stale versions;
* malformed frames (not JSON, not an object, nested past the parser's limit, binary, over
  64 KiB) and a flood of messages;
* a stranger following a table it is not seated at: the spectator view, no hidden card.

The replayed key and the racing sockets run on the Redis Cluster too: there the
idempotency record and the compare-and-set live in the table's slot.
"""

from __future__ import annotations

import base64
import json
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import httpx
import pytest
from fastapi import FastAPI
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from agents.wire.socket import CLOSE_AUTH_FAILED, CLOSE_PROTOCOL
from gateway.config import Settings
from gateway.routes import ws
from gateway.security import TokenService
from tests.agents.conftest import serve_app
from tests.gateway.conftest import new_signing_key_pem
from tests.gateway.test_leaks import _TOKEN, audit_of, leaked_in, read_state

GAME = "market-fortune"
RECEIVE_S = 10.0
"""How long an answer may take (a failure past it, not a pace)."""

Message = dict[str, Any]


@pytest.fixture()
def url(app: FastAPI) -> Iterator[str]:
    with serve_app(app) as base_url:
        yield base_url


@pytest.fixture()
def http(url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, timeout=RECEIVE_S) as client:
        yield client


class Peer:
    """One client socket: what it sends, and the server's messages as they come."""

    def __init__(self, url: str, token: str | None = None, *, welcome: bool = True) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        self.socket: ClientConnection = connect(
            url.replace("http://", "ws://") + "/v1/ws", additional_headers=headers,
            compression=None, proxy=None).__enter__()  # a context manager, closed by close()
        if welcome:
            assert self.receive()["type"] == "welcome"

    def send(self, message: Message | str | bytes) -> None:
        self.socket.send(json.dumps(message) if isinstance(message, dict) else message)

    def receive(self) -> Message:
        message: Message = json.loads(self.socket.recv(timeout=RECEIVE_S))
        return message

    def until(self, kind: str, *, skip: tuple[str, ...] = ("observation", "events")) -> Message:
        """The next message of ``kind``; pushes (``skip``) before it are passed over, any
        other message is a failure."""
        while True:
            message = self.receive()
            if message["type"] == kind:
                return message
            assert message["type"] in skip, message

    def act(self, ref: str, table_id: str, version: int, action: str,
            key: str | None = None) -> None:
        self.send({"type": "act", "ref": ref, "table_id": table_id, "version": version,
                   "action": action, **({"idempotency_key": key} if key else {})})

    def answer(self) -> Message:
        """The answer to an act (``accepted`` or ``problem``), pushes passed over."""
        while True:
            message = self.receive()
            if message["type"] in ("accepted", "problem"):
                return message
            assert message["type"] in ("observation", "events"), message

    def closed(self) -> tuple[int | None, str]:
        """The close code and reason the server ends the connection with (nothing else may
        come first)."""
        with pytest.raises(ConnectionClosed) as ended:
            message = self.socket.recv(timeout=RECEIVE_S)
            raise AssertionError(f"a message before the close: {message!r}")
        close = ended.value.rcvd
        return (close.code, close.reason) if close is not None else (None, "")

    def close(self) -> None:
        self.socket.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def without_instance(problem: Message) -> Message:
    return {key: value for key, value in problem.items() if key != "instance"}


def two_seat_table(http: httpx.Client, mint_token: Callable[..., str], seats: list[str], *,
                   seed: int) -> str:
    """A started two-seat Market Fortune table (family mode, dealt from ``seed``): the
    organiser opens it, the agent of ``seats[0]`` sits at seat 0, ``seats[1]`` at seat 1."""
    organiser = mint_token(agent_id="org", name="org", kind="organiser")
    created = http.post("/v1/tables", headers=bearer(organiser), json={
        "game": GAME, "mode": "family", "seats": 2, "seed": seed, "join": False})
    assert created.status_code == 201, created.text
    table_id = str(created.json()["id"])
    for token in seats:
        assert http.post(f"/v1/tables/{table_id}/join", headers=bearer(token)).status_code == 200
    return table_id


def agent(mint_token: Callable[..., str], name: str) -> str:
    return mint_token(agent_id=name, name=name, games=(GAME,))


class Duel(NamedTuple):
    """Two agents at a started table, which of them acts first, and its decision."""

    tokens: list[str]
    table_id: str
    actor: int
    decision: dict[str, Any]


def duel(http: httpx.Client, mint_token: Callable[..., str], name: str, *, seed: int) -> Duel:
    """Agents ``{name}0`` and ``{name}1`` seated at a :func:`two_seat_table` dealt from
    ``seed``, and the decision of the one to act."""
    tokens = [agent(mint_token, f"{name}0"), agent(mint_token, f"{name}1")]
    table_id = two_seat_table(http, mint_token, tokens, seed=seed)
    actor = observe(http, table_id)["to_act"][0]
    return Duel(tokens, table_id, actor, observe(http, table_id, tokens[actor]))


def observe(http: httpx.Client, table_id: str, token: str | None = None) -> Message:
    answer = http.get(f"/v1/tables/{table_id}/observation",
                      headers=bearer(token) if token else {})
    assert answer.status_code == 200, answer.text
    observation: Message = answer.json()
    return observation


def version_of(http: httpx.Client, table_id: str) -> int:
    return int(http.get(f"/v1/tables/{table_id}").json()["version"])


def post_action(http: httpx.Client, table_id: str, token: str, version: int, action: str,
                key: str | None = None) -> httpx.Response:
    headers = {**bearer(token), **({"Idempotency-Key": key} if key else {})}
    return http.post(f"/v1/tables/{table_id}/actions", headers=headers,
                     json={"version": version, "action": action})


def test_a_socket_acts_only_for_its_own_seat(
    url: str, http: httpx.Client, mint_token: Callable[..., str],
) -> None:
    tokens = [agent(mint_token, "seat0"), agent(mint_token, "seat1")]
    stranger = agent(mint_token, "stranger")
    table_id = two_seat_table(http, mint_token, tokens, seed=21)
    now = observe(http, table_id)
    actor = now["to_act"][0]
    version = now["version"]
    action = observe(http, table_id, tokens[actor])["legal_actions"][0]["id"]
    # The seat not to act, and an agent seated elsewhere (nowhere), each on its own socket.
    for token, code in ((tokens[1 - actor], "action/not_your_turn"), (stranger, None)):
        peer = Peer(url, token)
        peer.act("theirs", table_id, version, action, key="k")
        refused = peer.answer()
        over_http = post_action(http, table_id, token, version, action, key="k")
        assert over_http.status_code >= 400
        assert refused["type"] == "problem" and refused["ref"] == "theirs"
        assert refused["problem"] == without_instance(over_http.json())
        assert code is None or refused["problem"]["code"] == code
        # The message names no seat: a socket cannot say whose decision it sends.
        peer.send({"type": "act", "ref": "named", "table_id": table_id, "version": version,
                   "action": action, "seat": actor})
        named = peer.answer()
        assert named["ref"] == "named" and named["problem"]["code"] == "request/invalid"
        peer.close()
    assert is_a_spectator(http, table_id, stranger)
    assert version_of(http, table_id) == version  # nothing applied
    owner = Peer(url, tokens[actor])
    owner.act("mine", table_id, version, action, key="k")  # the same key: its own scope
    accepted = owner.answer()
    owner.close()
    assert accepted["type"] == "accepted", accepted
    assert accepted["result"]["version"] == version + 1 == version_of(http, table_id)


def is_a_spectator(http: httpx.Client, table_id: str, token: str) -> bool:
    """Whether ``token``'s view of the table over HTTP is a spectator's (nothing to decide)."""
    seen = observe(http, table_id, token)
    return seen["spectator_reason"] == "not_seated" and not seen["legal_actions"]


def _b64(part: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(part).encode()).rstrip(b"=").decode()


def _claims(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    decoded: dict[str, Any] = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return decoded


def bad_tokens(http: httpx.Client, settings: Settings, token_service: TokenService,
               mint_token: Callable[..., str]) -> dict[str, tuple[str, str]]:
    """Tokens the gateway must refuse, each with the code HTTP refuses it with."""
    genuine = agent(mint_token, "genuine")
    header, _payload, signature = genuine.split(".")
    swapped = _b64({**_claims(genuine), "sub": "victim", "name": "victim"})
    unsigned_header = {**json.loads(base64.urlsafe_b64decode(header + "==")), "alg": "none"}
    elsewhere = TokenService(settings.model_copy(update={"signing_key_pem": new_signing_key_pem()}))
    revoked = agent(mint_token, "revoked")
    assert http.post("/v1/auth/revoke", headers=bearer(revoked), json={}).status_code == 200
    return {
        "payload swapped": (f"{header}.{swapped}.{signature}", "auth/invalid"),
        "alg none": (f"{_b64(unsigned_header)}.{_b64(_claims(genuine))}.", "auth/invalid"),
        "another key": (elsewhere.issue(agent_id="genuine", name="genuine",
                                        scopes=(f"game:{GAME}",)).token, "auth/unknown_key"),
        "expired": (token_service.issue(agent_id="genuine", name="genuine",
                                        scopes=(f"game:{GAME}",), ttl_s=-600).token,
                    "auth/expired"),
        "revoked": (revoked, "auth/revoked"),
    }


def test_a_token_http_refuses_is_refused_at_the_upgrade_as_first_message_and_as_renewal(
    url: str, http: httpx.Client, settings: Settings, token_service: TokenService,
    mint_token: Callable[..., str],
) -> None:
    holder = agent(mint_token, "holder")
    table_id = two_seat_table(http, mint_token, [holder, agent(mint_token, "other")], seed=22)
    renewing = Peer(url, holder)
    for kind, (token, code) in bad_tokens(http, settings, token_service, mint_token).items():
        over_http = http.get("/v1/agents/me", headers=bearer(token))
        assert (over_http.status_code, over_http.json()["code"]) == (401, code), kind
        upgrade = Peer(url, token, welcome=False)
        assert upgrade.closed() == (CLOSE_AUTH_FAILED, code), kind
        first = Peer(url, welcome=False)
        first.send({"type": "auth", "token": token})
        assert first.closed() == (CLOSE_AUTH_FAILED, code), kind
        renewing.send({"type": "auth", "token": token})
        refused = renewing.until("problem")
        assert refused["problem"] == without_instance(over_http.json()), kind
    # Another agent's genuine token does not take the connection over either.
    renewing.send({"type": "auth", "token": agent(mint_token, "intruder")})
    assert renewing.until("problem")["problem"]["code"] == "auth/invalid"
    # The connection still serves its own agent, and only it: its seat's view.
    renewing.send({"type": "subscribe", "table_id": table_id})
    pushed = renewing.until("observation", skip=())
    renewing.close()
    assert pushed["observation"] == observe(http, table_id, holder)
    assert pushed["observation"]["seat"] == 0


@pytest.mark.redis_cluster
def test_an_idempotency_key_replayed_with_another_action_is_refused_like_http(
    url: str, http: httpx.Client, mint_token: Callable[..., str],
) -> None:
    tokens, table_id, actor, decision = duel(http, mint_token, "replay", seed=23)
    version, legal = decision["version"], [entry["id"] for entry in decision["legal_actions"]]
    assert len(legal) >= 2, "the attack needs a second action to swap in"
    peer = Peer(url, tokens[actor])
    peer.act("first", table_id, version, legal[0], key="once")
    accepted = peer.answer()
    assert accepted["type"] == "accepted", accepted
    for ref, action in (("swapped", legal[-1]), ("same", legal[0])):
        peer.act(ref, table_id, version, action, key="once")
        answered = peer.answer()
        if action == legal[0]:  # the same body: told again, not applied again
            assert answered["type"] == "accepted" and answered["result"] == accepted["result"]
            continue
        over_http = post_action(http, table_id, tokens[actor], version, action, key="once")
        assert over_http.status_code == 409, over_http.text
        assert answered["type"] == "problem" and answered["ref"] == ref
        assert answered["problem"] == without_instance(over_http.json())
        assert answered["problem"]["code"] == "idempotency/conflict"
    # A key first used over HTTP is the same key over the socket.
    following = observe(http, table_id)
    turn = following["to_act"][0]
    moves = observe(http, table_id, tokens[turn])["legal_actions"]
    assert len(moves) >= 2
    first_http = post_action(http, table_id, tokens[turn], following["version"], moves[0]["id"],
                             key="shared")
    assert first_http.status_code == 200, first_http.text
    other = peer if turn == actor else Peer(url, tokens[turn])
    other.act("cross", table_id, following["version"], moves[-1]["id"], key="shared")
    crossed = other.answer()
    assert crossed["type"] == "problem" and crossed["problem"]["code"] == "idempotency/conflict"
    peer.close()
    other.close()
    # Each action applied once: the table moved on by exactly the two accepted ones.
    assert version_of(http, table_id) == version + 2
    assert accepted["result"]["version"] == version + 1 == following["version"]


@pytest.mark.redis_cluster
def test_the_same_action_from_two_sockets_of_one_agent_is_applied_once(
    url: str, http: httpx.Client, mint_token: Callable[..., str],
) -> None:
    tokens = [agent(mint_token, "twin"), agent(mint_token, "rival")]
    table_id = two_seat_table(http, mint_token, tokens, seed=24)
    twins = [Peer(url, tokens[0]), Peer(url, tokens[0])]
    keyed = unkeyed = 0
    for _move in range(200):
        if keyed >= 3 and unkeyed >= 3:
            break
        now = observe(http, table_id)
        assert now["status"] == "playing", "the table ended before the races were run"
        turn = now["to_act"][0]
        version = now["version"]
        action = observe(http, table_id, tokens[turn])["legal_actions"][0]["id"]
        if turn == 1:
            assert post_action(http, table_id, tokens[1], version, action).status_code == 200
            continue
        key = f"race-{version}" if keyed <= unkeyed else None
        # Both frames are on the wire before either is answered: the server applies them
        # concurrently, one task per act.
        for index, twin in enumerate(twins):
            twin.act(f"twin{index}", table_id, version, action, key)
        answers = [twin.answer() for twin in twins]
        kinds = sorted(answer["type"] for answer in answers)
        if key is not None:
            keyed += 1
            assert kinds == ["accepted", "accepted"], answers
            assert answers[0]["result"] == answers[1]["result"]  # one action, told twice
        else:
            unkeyed += 1
            assert kinds == ["accepted", "problem"], answers
            refused = next(answer for answer in answers if answer["type"] == "problem")
            assert refused["problem"]["code"] == "table/stale_version"
            assert refused["problem"]["current_version"] == version + 1
        assert version_of(http, table_id) == version + 1, "applied twice"
    for twin in twins:
        twin.close()
    assert keyed >= 3 and unkeyed >= 3


def test_stale_versions_are_refused_like_http_and_change_nothing(
    url: str, http: httpx.Client, mint_token: Callable[..., str],
) -> None:
    tokens, table_id, actor, decision = duel(http, mint_token, "stale", seed=25)
    version, action = decision["version"], decision["legal_actions"][0]["id"]
    peer = Peer(url, tokens[actor])
    for index, stale in enumerate((version - 1, version + 1, 10**400)):  # the last: past
        peer.act(f"v{index}", table_id, stale, action)                     # what Lua holds
        refused = peer.answer()
        over_http = post_action(http, table_id, tokens[actor], stale, action)
        assert over_http.status_code == 409, over_http.text
        assert refused["ref"] == f"v{index}"
        assert refused["problem"] == without_instance(over_http.json())
        assert refused["problem"]["code"] == "table/stale_version"
        assert refused["problem"]["current_version"] == version
    assert version_of(http, table_id) == version
    peer.act("fresh", table_id, version, action)
    assert peer.answer()["type"] == "accepted"
    peer.close()
    assert version_of(http, table_id) == version + 1


MALFORMED: list[tuple[str, str | bytes, str | None]] = [
    ("not JSON", "act now please", None),
    ("empty", "", None),
    ("an array", "[1, 2, 3]", None),
    ("a string", '"act"', None),
    ("no type", json.dumps({"ref": "m1", "table_id": "t"}), "m1"),
    ("unknown type", json.dumps({"type": "shutdown", "ref": "m2"}), "m2"),
    ("a field too many", json.dumps({"type": "act", "ref": "m3", "table_id": "t", "version": 0,
                                     "action": "x", "sudo": True}), "m3"),
    ("a version as text", json.dumps({"type": "act", "ref": "m4", "table_id": "t",
                                      "version": "0", "action": "x"}), "m4"),
    ("a negative version", json.dumps({"type": "act", "ref": "m5", "table_id": "t",
                                       "version": -1, "action": "x"}), "m5"),
    ("a ref too long", json.dumps({"type": "act", "ref": "r" * 201, "table_id": "t",
                                   "version": 0, "action": "x"}), "r" * 200),
    ("nested past the parser's limit", "[" * 20_000 + "]" * 20_000, None),
    ("an object nested past it", '{"type": "act", "ref": "m7", "action": '
     + '{"a": ' * 5_000 + "1" + "}" * 5_000 + "}", None),
    ("a binary frame", b"\x00\x01\x02", None),
    ("binary JSON", json.dumps({"type": "subscribe", "table_id": "t"}).encode(), None),
    ("not UTF-8", b"\xff\xfe\xfd", None),
]
"""Frames the socket refuses (request/invalid) and lives on: label, frame, the ``ref`` the
problem carries (the message's own, cut to 200 characters, when it has a usable one)."""


def test_malformed_frames_are_refused_and_the_socket_serves_on(
    url: str, http: httpx.Client, mint_token: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    tokens = [agent(mint_token, "frames0"), agent(mint_token, "frames1")]
    table_id = two_seat_table(http, mint_token, tokens, seed=26)
    actor = observe(http, table_id)["to_act"][0]
    peer = Peer(url, tokens[actor])
    with caplog.at_level(logging.ERROR, logger="gateway"):
        for label, frame, ref in MALFORMED:
            peer.send(frame)
            try:
                refused = peer.receive()
            except ConnectionClosed as closed:
                raise AssertionError(f"{label}: closed with {closed.rcvd}") from None
            assert refused["type"] == "problem", (label, refused)
            assert refused["problem"]["code"] == "request/invalid", (label, refused)
            assert refused["problem"]["status"] == 422 and refused["ref"] == ref, label
        decision = observe(http, table_id, tokens[actor])
        peer.act("after", table_id, decision["version"], decision["legal_actions"][0]["id"])
        accepted = peer.answer()
        peer.close()
    assert accepted["type"] == "accepted", accepted
    assert version_of(http, table_id) == decision["version"] + 1
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR
            ] == []


def test_a_bad_first_frame_and_an_oversized_one_close_with_documented_codes(
    url: str, http: httpx.Client, mint_token: Callable[..., str],
) -> None:
    for first in ("not JSON", b"\x00binary", json.dumps({"type": "subscribe", "table_id": "t"})):
        peer = Peer(url, welcome=False)
        peer.send(first)
        assert peer.closed() == (CLOSE_PROTOCOL, "request/invalid"), first
    token = agent(mint_token, "big")
    peer = Peer(url, token)
    peer.send(json.dumps({"type": "act", "ref": "big", "table_id": "t", "version": 0,
                          "action": "x" * ws.MAX_MESSAGE_BYTES}))
    code, _reason = peer.closed()
    assert code == 1009  # RFC 6455: message too big (the 64 KiB the AsyncAPI document states)
    fresh = Peer(url, token)  # the server lives on
    fresh.send({"type": "subscribe", "table_id": "nowhere"})
    assert fresh.until("problem")["problem"]["code"] == "table/not_found"
    fresh.close()


def test_a_stranger_following_a_table_is_told_the_spectator_view_and_no_hidden_card(
    url: str, http: httpx.Client, settings: Settings, mint_token: Callable[..., str],
) -> None:
    tokens = [agent(mint_token, "hidden0"), agent(mint_token, "hidden1")]
    stranger = agent(mint_token, "peeker")
    table_id = two_seat_table(http, mint_token, tokens, seed=27)
    audit = audit_of(GAME)
    peer = Peer(url, stranger)
    peer.send({"type": "subscribe", "table_id": table_id, "events_after": 0})
    told = [peer.receive()]
    while told[-1]["type"] == "events":  # the events so far, then the observation
        told.append(peer.receive())
    first = told[-1]
    assert first["observation"] == observe(http, table_id, stranger)
    assert first["observation"]["spectator_reason"] == "not_seated"
    assert first["observation"]["legal_actions"] == []
    hidden = audit.hidden_from(read_state(settings, table_id)[0], None)
    assert hidden, "nothing hidden: the scan would be vacuous"
    read_up_to = max((event["id"] for message in told[:-1] for event in message["events"]),
                     default=0)
    cards_named: set[str] = set()  # cards the stranger may see, named in what it was told
    for move_number in range(7):  # 6 moves, each seat's, told to the stranger as events
        if move_number:
            now = observe(http, table_id)
            turn = now["to_act"][0]
            move = observe(http, table_id, tokens[turn])["legal_actions"][0]["id"]
            applied = post_action(http, table_id, tokens[turn], now["version"], move)
            assert applied.status_code == 200, applied.text
        # Every event the stranger may see (HTTP's long-poll tells which) is told.
        page = http.get(f"/v1/tables/{table_id}/events", headers=bearer(stranger),
                        params={"after": 0}).json()
        visible = max((event["id"] for event in page["events"]), default=0)
        while read_up_to < visible:
            told.append(peer.receive())
            assert told[-1]["type"] == "events", told[-1]  # a spectator decides nothing
            read_up_to = max(read_up_to, *(event["id"] for event in told[-1]["events"]))
        # Hidden before the move and still after it (a discard shows the card it names).
        state = read_state(settings, table_id)[0]
        hidden_after = audit.hidden_from(state, None)
        for message in told:
            text = json.dumps(message)
            leaked = leaked_in(text, hidden & hidden_after)
            assert not leaked, (message["type"], leaked)
            cards_named |= set(_TOKEN.findall(text)) & set(audit.card_locations(state))
        hidden, told = hidden_after, []
    assert read_up_to > 0 and cards_named, "nothing told: the scan would be vacuous"
    # Its acts are refused as HTTP refuses them: it holds no seat.
    now = observe(http, table_id)
    move = observe(http, table_id, tokens[now["to_act"][0]])["legal_actions"][0]["id"]
    peer.act("peek", table_id, now["version"], move)
    refused = peer.answer()
    peer.close()
    over_http = post_action(http, table_id, stranger, now["version"], move)
    assert refused["problem"] == without_instance(over_http.json())
    assert version_of(http, table_id) == now["version"]


FLOOD = 400
"""Messages of a flood: well past the acts one connection applies at once."""


def test_a_flood_is_answered_message_by_message_and_others_are_served_meanwhile(
    url: str, http: httpx.Client, mint_token: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tokens, table_id, actor, decision = duel(http, mint_token, "flood", seed=28)
    version, action = decision["version"], decision["legal_actions"][0]["id"]
    flooder = Peer(url, tokens[actor])
    sent = []
    for index in range(FLOOD):  # stale acts (each a table read) and malformed frames
        ref = f"f{index}"
        sent.append(ref)
        if index % 2:
            flooder.act(ref, table_id, version + 1 + index, action)
        else:
            flooder.send(json.dumps({"type": "act", "ref": ref, "version": "x"}))
    # Another agent is served meanwhile, over HTTP and over a socket of its own.
    started = time.monotonic()
    assert observe(http, table_id, tokens[1 - actor])["version"] == version
    bystander = Peer(url, tokens[1 - actor])
    bystander.send({"type": "subscribe", "table_id": table_id})
    assert bystander.until("observation", skip=())["observation"]["version"] == version
    assert time.monotonic() - started < 5
    answered = [flooder.answer() for _ in range(FLOOD)]
    assert sorted(answer["ref"] for answer in answered) == sorted(sent)  # each once
    assert all(answer["type"] == "problem" for answer in answered)
    codes = {answer["problem"]["code"] for answer in answered}
    assert codes == {"table/stale_version", "request/invalid"}
    assert version_of(http, table_id) == version
    flooder.act("real", table_id, version, action)
    assert flooder.answer()["type"] == "accepted"
    assert version_of(http, table_id) == version + 1
    # Subscriptions are bounded per connection (2 here, 256 in production).
    monkeypatch.setattr(ws, "MAX_SUBSCRIPTIONS", 2)
    organiser = mint_token(agent_id="org", name="org", kind="organiser")
    others = [http.post("/v1/tables", headers=bearer(organiser), json={
        "game": GAME, "mode": "family", "seats": 2, "join": False}).json()["id"]
        for _ in range(2)]
    for followed in [table_id, *others]:
        flooder.send({"type": "subscribe", "table_id": followed})
    refused = flooder.until("problem")
    assert refused["table_id"] == others[-1] and refused["problem"]["code"] == "request/invalid"
    flooder.close()
    bystander.close()

