"""Admission: challenges, grading, registration, and the agent's own credentials.

The flow (``docs/agents.md``)::

    create_challenge  -> questions + puzzle (expected answers kept in Redis)
    submit_answers    -> pass: register the agent (or add the game's scope) and
                         mint a token; fail: 403 with the score
    exchange_credentials / rotate_secret -> new token / new secret

Service functions are keyword-only and raise :class:`~gateway.errors.ProblemError`
with the codes registered below. No log line here carries an answer, an
expected answer, a secret or a token.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from agents.wire.admission import (
    AdmissionPassed,
    ChallengeCreated,
    PassRuleInfo,
    Score,
    SecretRotated,
    TokenIssued,
)
from gateway.errors import ProblemError, rate_limited
from gateway.openapi_docs import register_problem
from gateway.principal import Principal
from gateway.security import IssuedToken, TokenService, auth_problem, game_scope
from gateway.services.records import game_or_problem, problem
from gateway.store.admission import AdmissionStore
from gateway.store.auth import AgentNameTaken, AgentNotFound, AgentRecord, AuthStore
from gateway.store.connection import RedisClient
from quiz.challenge import PassRule, generate, grade, shape_errors
from quiz.model import IssuedChallenge, QuestionAnswer
from quiz.registry import NoQuiz, all_banks, get_bank

__all__ = [
    "RESERVED_NAMES",
    "Admission",
    "AdmissionSettings",
    "admission_of",
    "create_challenge",
    "exchange_credentials",
    "rotate_secret",
    "submit_answers",
]

log = logging.getLogger(__name__)

RESERVED_NAMES = frozenset(
    {"admin", "administrator", "organiser", "organizer", "root", "system", "house", "housebot",
     "house-bot", "agents-club", "agentsclub", "moderator", "spectator", "anonymous", "null", "none"}
)  # fmt: skip
"""Names (compared case-insensitively) no agent may register; ``house*`` is reserved too."""

for _code, _status, _title, _detail in (
    ("admission/not_found", 404, "Challenge not found", "No challenge has that id."),
    ("admission/expired", 410, "Challenge expired", "The answers came after the challenge expired."),
    ("admission/already_answered", 409, "Challenge already answered",
     "This challenge was answered already; ask for a new one."),
    ("admission/failed", 403, "Admission failed",
     "2 of 3 questions right; puzzle not solved. Missed: combat, puzzle."),
    ("admission/no_quiz", 404, "No admission for this game", "That game has no quiz yet."),
    ("admission/already_admitted", 409, "Already admitted", "This agent may already play that game."),
    ("admission/name_mismatch", 403, "Name does not match the token",
     "With a bearer token, agent_name must be the token's agent name."),
    ("agent/name_reserved", 422, "Agent name reserved", "That name is reserved."),
    ("auth/invalid_credentials", 401, "Invalid agent credentials", "Unknown agent id or wrong secret."),
):  # fmt: skip
    register_problem(_code, _status, _title, _detail)


class AdmissionSettings(BaseSettings):
    """How admission behaves (environment prefix ``AGENTS_CLUB_ADMISSION_``)."""

    model_config = SettingsConfigDict(env_prefix="AGENTS_CLUB_ADMISSION_", extra="ignore")

    challenge_ttl_s: int = Field(default=600, ge=1)
    """How long an agent has to answer (10 minutes by default)."""
    keep_after_expiry_s: int = Field(default=3600, ge=0)
    """How long an expired or answered challenge is remembered (for its own error codes)."""
    questions: int = Field(default=3, ge=1)
    questions_required: int = Field(default=3, ge=0)
    puzzle_required: bool = True
    challenge_window_s: int = Field(default=600, ge=1)
    challenges_per_address: int = Field(default=30, ge=1)
    """Challenges one client address may ask for per window."""
    challenges_per_name: int = Field(default=10, ge=1)
    """Challenges one agent name may be asked for per window."""
    token_window_s: int = Field(default=60, ge=1)
    token_requests_per_agent: int = Field(default=20, ge=1)
    """Token exchanges and secret rotations one agent id may make per window."""
    token_requests_per_address: int = Field(default=120, ge=1)
    """Token exchanges and secret rotations one client address may make per window
    (each costs a scrypt hash, so guessing over many agent ids is limited too)."""

    @property
    def pass_rule(self) -> PassRule:
        return PassRule(questions_required=self.questions_required, puzzle_required=self.puzzle_required)


class Admission(NamedTuple):
    """What every admission service works with: the challenges and rate windows, the
    agent records, the token service and the settings."""

    store: AdmissionStore
    agents: AuthStore
    tokens: TokenService
    settings: AdmissionSettings


def admission_of(state: Any, redis: RedisClient) -> Admission:
    """The admission services' collaborators for the app of ``state`` on ``redis``; the
    settings (``state.admission_settings``) are read from the environment on first use,
    and a test may set its own there before."""
    settings = getattr(state, "admission_settings", None)
    if settings is None:
        settings = state.admission_settings = AdmissionSettings()
    return Admission(AdmissionStore(redis, state.keys, state.clock), AuthStore(redis, state.keys),
                     state.tokens, settings)


class StoredChallenge(BaseModel):
    """What Redis keeps for a challenge (server-side only: it holds the expected answers)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    challenge_id: str
    agent_name: str
    agent_id: str | None
    """Set when an existing agent is adding a game."""
    asked_with: str | None = None
    """The ``jti`` of the token that existing agent asked with: a pass is refused once it
    is revoked (a rotation of the agent's secret revokes it, so a thief who asked with a
    stolen token cannot pass later and hold a fresh one)."""
    game: str
    expires_at: int
    issued: IssuedChallenge


ANSWER_INSTRUCTIONS = (
    "POST /v1/admission/challenges/{challenge_id}/answers with "
    '{"answers": {"q1": ..., "q2": ..., "q3": ...}, "puzzle": {...}}: a single-choice answer is '
    "the option id (\"A\".. as a string), an integer answer a JSON integer, a yes/no answer true or "
    "false. The puzzle answer is the JSON object its answer_format describes. One submission only."
)


async def create_challenge(
    admission: Admission,
    *,
    agent_name: str,
    game: str,
    principal: Principal | None,
    client: str,
) -> ChallengeCreated:
    """Issue a challenge for ``agent_name`` to join ``game``.

    Without ``principal`` the name must be free; with one (an agent adding a
    game) it must be that agent's name.
    """
    store, agents, _tokens, settings = admission
    game_or_problem(game)
    try:
        bank = get_bank(game)
    except NoQuiz:
        raise problem("admission/no_quiz", f"{game} has no admission quiz yet.",
                      games=sorted(all_banks())) from None
    agent_id: str | None = None
    asked_with: str | None = None
    if principal is not None:
        if principal.kind != "agent" or principal.name.casefold() != agent_name.casefold():
            raise problem("admission/name_mismatch",
                          "With a bearer token, agent_name must be that agent's name.")
        record = await agents.get_agent(principal.agent_id)
        if record is None:
            raise problem("admission/name_mismatch",
                          "The token's agent is not registered; register without a token.")
        if game_scope(game) in record.scopes:
            raise problem("admission/already_admitted", f"{record.name} may already play {game}.")
        agent_id, asked_with = record.agent_id, principal.token_id or None
    else:
        folded = agent_name.casefold()
        if folded in RESERVED_NAMES or folded.startswith("house"):
            raise problem("agent/name_reserved",
                          f"The name {agent_name!r} is reserved; choose another.")
        if await agents.find_agent_by_name(agent_name) is not None:
            raise problem("agent/name_taken",
                          "Another agent already uses that name (names are case-insensitive). "
                          "To add a game to your agent, send its bearer token.")
    for bucket, subject, limit in (
        ("challenge-address", client, settings.challenges_per_address),
        ("challenge-name", agent_name.casefold(), settings.challenges_per_name),
    ):
        decision = await store.hit(bucket, subject, limit=limit, window_s=settings.challenge_window_s)
        if not decision.allowed:
            raise rate_limited("admission challenges", decision.retry_after)

    seed = secrets.randbits(63)
    issued = await asyncio.to_thread(generate, bank, seed, questions=settings.questions)
    challenge_id = "chl_" + secrets.token_urlsafe(18)
    now = int(store.clock())
    expires_at = now + settings.challenge_ttl_s
    stored = StoredChallenge(
        challenge_id=challenge_id, agent_name=agent_name, agent_id=agent_id,
        asked_with=asked_with, game=game, expires_at=expires_at, issued=issued,
    )  # fmt: skip
    await store.save_challenge(
        challenge_id, stored.model_dump_json(), expires_at=expires_at,
        keep_s=settings.keep_after_expiry_s,
    )  # fmt: skip
    log.info("admission challenge %s issued for game %s (puzzle kind %s)",
             challenge_id, game, issued.puzzle.puzzle.kind)
    rule = settings.pass_rule
    return ChallengeCreated(
        challenge_id=challenge_id,
        game=game,
        agent_name=agent_name,
        rulebook=f"/v1/games/{game}/rulebook",
        expires_at=expires_at,
        expires_in=settings.challenge_ttl_s,
        pass_rule=PassRuleInfo(
            questions_required=min(rule.questions_required, len(issued.questions)),
            puzzle_required=rule.puzzle_required,
        ),
        questions=[q.question for q in issued.questions],
        puzzle=issued.puzzle.puzzle,
        answer_instructions=ANSWER_INSTRUCTIONS,
    )


async def submit_answers(
    admission: Admission,
    *,
    challenge_id: str,
    answers: dict[str, QuestionAnswer],
    puzzle_answer: dict[str, Any],
) -> AdmissionPassed:
    """Grade the one submission a challenge accepts; register or extend the agent on a pass.

    An answer of the wrong type, or a puzzle answer of the wrong shape, is refused
    with 422 ``request/invalid`` naming each field before the challenge is claimed:
    it may be answered again.
    """
    store, agents, tokens, settings = admission
    peeked = await store.peek_challenge(challenge_id)
    if peeked is not None:
        issued_challenge = StoredChallenge.model_validate_json(peeked)
        errors = shape_errors(get_bank(issued_challenge.game), issued_challenge.issued,
                              answers, puzzle_answer)
        if errors:
            where = ", ".join(".".join(error["loc"][1:]) for error in errors[:5])
            raise problem(
                "request/invalid",
                f"Some answers do not have the type or shape their question or puzzle asks "
                f"for ({where}); nothing was graded and the challenge may still be answered.",
                errors=errors,
            )
    claim = await store.claim_challenge(challenge_id)
    if claim.status == "missing":
        raise problem("admission/not_found",
                      "No challenge has that id (or it was forgotten long after expiring).")
    if claim.status == "answered":
        raise problem("admission/already_answered",
                      "Each challenge accepts one submission; ask for a new challenge.")
    if claim.status == "late":
        raise problem("admission/expired",
                      "The answers arrived after the challenge expired; ask for a new one.")
    assert claim.payload is not None
    stored = StoredChallenge.model_validate_json(claim.payload)
    bank = get_bank(stored.game)
    result = await asyncio.to_thread(grade, bank, stored.issued, answers, puzzle_answer)
    score = Score(
        questions_correct=result.questions_correct,
        questions_total=result.questions_total,
        puzzle_solved=result.puzzle_solved,
        missed_categories=list(result.missed_categories),
    )
    if not settings.pass_rule.passes(result):
        log.info("admission challenge %s failed (%d/%d, puzzle %s)", challenge_id,
                 result.questions_correct, result.questions_total, result.puzzle_solved)
        missed = ", ".join(score.missed_categories) or "none"
        raise problem(
            "admission/failed",
            f"{score.questions_correct} of {score.questions_total} questions right; puzzle "
            f"{'solved' if score.puzzle_solved else 'not solved'}. Missed: {missed}. "
            "Read the cited rulebook sections and ask for a new challenge.",
            score=score.model_dump(),
        )
    scope = game_scope(stored.game)
    secret: str | None = None
    if stored.agent_id is None:
        try:
            record, secret = await agents.create_agent(name=stored.agent_name, scopes={scope})
        except AgentNameTaken:
            raise problem("agent/name_taken",
                          "Another agent registered that name meanwhile; choose another.") from None
    else:
        if stored.asked_with is not None and await agents.is_revoked(stored.asked_with):
            raise _asked_with_revoked()
        try:
            record = await agents.add_scopes(stored.agent_id, scope)
        except AgentNotFound:
            raise problem("agent/not_found",
                          "The agent that asked for this challenge no longer exists.") from None
    issued = tokens.issue(agent_id=record.agent_id, name=record.name, scopes=record.scopes)
    if not await agents.note_issued(record.agent_id, issued, asked_with=stored.asked_with):
        raise _asked_with_revoked()  # revoked between the check above and now
    log.info("admission challenge %s passed: agent %s now holds %s", challenge_id,
             record.agent_id, " ".join(sorted(record.scopes)))
    return AdmissionPassed(**_token_issued(record, issued).model_dump(), secret=secret, score=score)


def _token_issued(record: AgentRecord, issued: IssuedToken) -> TokenIssued:
    return TokenIssued(
        access_token=issued.token,
        expires_in=max(0, issued.expires_at - int(time.time())),
        expires_at=issued.expires_at,
        agent_id=record.agent_id,
        name=record.name,
        scopes=sorted(record.scopes),
    )


def _asked_with_revoked() -> ProblemError:
    return auth_problem(
        "auth/revoked", "The token this challenge was asked with has been revoked (a secret "
        "rotation revokes the agent's tokens); ask for a new challenge with a new token.")


async def _check_token_rate(admission: Admission, agent_id: str, client: str) -> None:
    settings = admission.settings
    for bucket, subject, limit, what in (
        ("token", agent_id, settings.token_requests_per_agent, "token requests for this agent"),
        ("token-address", client, settings.token_requests_per_address, "token requests from this address"),
    ):
        decision = await admission.store.hit(bucket, subject, limit=limit,
                                             window_s=settings.token_window_s)
        if not decision.allowed:
            raise rate_limited(what, decision.retry_after)


def _bad_credentials() -> ProblemError:
    return problem("auth/invalid_credentials", "Unknown agent id or wrong secret.")


async def exchange_credentials(
    admission: Admission,
    *,
    agent_id: str,
    secret: str,
    client: str,
) -> TokenIssued:
    """A new access token for an agent's id and secret (no new quiz)."""
    await _check_token_rate(admission, agent_id, client)
    exchanged = await admission.agents.exchange_secret(
        agent_id, secret, lambda record: admission.tokens.issue(
            agent_id=record.agent_id, name=record.name, scopes=record.scopes))
    if exchanged is None:
        log.info("token request refused for agent id %s", agent_id)
        raise _bad_credentials()
    return _token_issued(*exchanged)


async def rotate_secret(
    admission: Admission,
    *,
    agent_id: str,
    secret: str,
    client: str,
) -> SecretRotated:
    """Replace an agent's secret, proving the current one; the new one is shown once, and
    every token issued to the agent before is revoked."""
    await _check_token_rate(admission, agent_id, client)
    record = await admission.agents.verify_secret(agent_id, secret)
    if record is None:
        raise _bad_credentials()
    rotation = await admission.agents.rotate_secret(record.agent_id)
    log.info("secret rotated for agent %s (%d token(s) revoked)", record.agent_id,
             rotation.revoked_tokens)
    return SecretRotated(agent_id=record.agent_id, secret=rotation.secret,
                         rotated_at=int(time.time()), revoked_tokens=rotation.revoked_tokens)
