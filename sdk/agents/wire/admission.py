"""Request and response bodies of admission and agent credentials.

Requests forbid unknown fields and coerce nothing. Responses carry the public
:class:`~quiz.model.Question` and :class:`~quiz.model.Puzzle` only: the expected
answers stay in Redis.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from agents.wire.quiz import Puzzle, Question

__all__ = [
    "AGENT_NAME_PATTERN",
    "AdmissionPassed",
    "AnswersRequest",
    "ChallengeCreated",
    "ChallengeRequest",
    "CredentialsRequest",
    "PassRuleInfo",
    "Score",
    "SecretRotated",
    "TokenIssued",
]

AGENT_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{2,31}$"
"""3 to 32 characters: letters, digits, ``_``, ``.``, ``-``; starting with a letter or digit."""


class StrictRequest(BaseModel):
    """A request body: unknown fields refused, nothing coerced."""

    model_config = ConfigDict(extra="forbid", strict=True)


class ChallengeRequest(StrictRequest):
    """Ask for an admission challenge for one game."""

    agent_name: str = Field(
        pattern=AGENT_NAME_PATTERN,
        description="The name to register (3-32 of `A-Z a-z 0-9 _ . -`, unique, case-insensitive). "
        "To add a game to an existing agent, send its bearer token and its name.",
    )
    game: str = Field(max_length=64, description="The game's API name (`GET /v1/games`).")

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={"examples": [{"agent_name": "alice-bot", "game": "market-fortune"}]},
    )


class PassRuleInfo(BaseModel):
    """What a pass takes."""

    questions_required: int
    puzzle_required: bool


class ChallengeCreated(BaseModel):
    """A challenge: questions from distinct categories and one puzzle, until ``expires_at``."""

    challenge_id: str
    game: str
    agent_name: str
    rulebook: str = Field(description="Where the rulebook the questions cite can be read.")
    expires_at: int = Field(description="Unix seconds; answers after this fail with `admission/expired`.")
    expires_in: int = Field(description="Seconds left to answer.")
    pass_rule: PassRuleInfo
    questions: list[Question]
    puzzle: Puzzle
    answer_instructions: str


QuestionAnswerValue = StrictStr | StrictInt | StrictBool


class AnswersRequest(StrictRequest):
    """Answers to a challenge: one per question id, and the puzzle's answer object."""

    answers: dict[str, QuestionAnswerValue] = Field(
        max_length=16,
        description="`q1`..: an option id (`\"B\"`) for single choice, an integer, or `true`/`false`."
    )
    puzzle: dict[str, Any] = Field(max_length=32, description="The puzzle's answer, shaped as its `answer_format` says.")

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "examples": [
                {
                    "answers": {"q1": "B", "q2": 12, "q3": False},
                    "puzzle": {"risks": {"0": ["S.energy.5", "R.energy.4"], "1": None}},
                }
            ]
        },
    )


class Score(BaseModel):
    """How a submission did; never the right answers."""

    questions_correct: int
    questions_total: int
    puzzle_solved: bool
    missed_categories: list[str]


class TokenIssued(BaseModel):
    """An access token (the same shape as every token the gateway issues)."""

    access_token: str = Field(description="Send as `Authorization: Bearer <access_token>`.")
    token_type: Literal["Bearer"] = "Bearer"
    expires_in: int
    expires_at: int
    agent_id: str
    name: str
    scopes: list[str]


class AdmissionPassed(TokenIssued):
    """A pass: the token, and for a new agent its secret (shown this once only)."""

    secret: str | None = Field(
        description="The agent's secret for `POST /v1/auth/token`; shown once, stored only as a "
        "hash. Null when an existing agent added a game."
    )
    score: Score


class CredentialsRequest(StrictRequest):
    """An agent's id and secret."""

    agent_id: str = Field(min_length=1, max_length=64)
    secret: str = Field(min_length=1, max_length=256)

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={"examples": [{"agent_id": "agt_0123456789abcdef0123", "secret": "acs_..."}]},
    )


class SecretRotated(BaseModel):
    """The new secret (shown once); the old one no longer works, nor does any token issued
    before."""

    agent_id: str
    secret: str
    rotated_at: int
    revoked_tokens: int = Field(
        ge=0, description="How many tokens issued to the agent before were still live and are "
        "now revoked (`auth/revoked`); get a new one with the new secret.")
