"""Request and response bodies of admission and agent credentials.

Defined in the SDK (``agents._wire.admission``) and re-exported: one definition of the wire
contract for the gateway and every SDK install.
"""

from agents._wire.admission import (
    AGENT_NAME_PATTERN,
    AdmissionPassed,
    AnswersRequest,
    ChallengeCreated,
    ChallengeRequest,
    CredentialsRequest,
    PassRuleInfo,
    Score,
    SecretRotated,
    TokenIssued,
)

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
