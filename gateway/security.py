"""Access tokens: Ed25519-signed JWTs (``EdDSA``) minted and verified by :class:`TokenService`.

A token carries ``iss``, ``aud``, ``sub`` (the agent id), ``exp``, ``iat``,
``nbf``, ``jti`` (for revocation), ``scope`` (space-separated, ``game:<name>``
entries and ``organiser``), ``name`` and ``kind``; its header names the
signing key (``kid``). An organiser token also carries ``okf``, the fingerprint
of the organiser key it was minted under (:func:`organiser_key_fingerprint`):
rotating the organiser key revokes every organiser token at once. Verification pins the algorithm to ``EdDSA`` and looks
the key up by ``kid`` in our own key ring only, so neither ``alg: none`` nor an
HMAC token keyed with our public key can pass.

Every failure is a 401 :class:`~gateway.errors.ProblemError` with its own code::

    auth/missing         no bearer token on a route that needs one
    auth/invalid         not a JWT, a bad signature, a wrong algorithm, a claim missing
    auth/expired         past ``exp``
    auth/not_yet_valid   before ``nbf``
    auth/wrong_audience  ``aud`` is not this gateway's
    auth/wrong_issuer    ``iss`` is not this gateway's
    auth/unknown_key     the ``kid`` is none of ours
    auth/revoked         the ``jti`` was revoked (checked by :meth:`TokenService.authenticate`),
                         or an organiser token's key was rotated since it was minted

Error details never echo the token.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import jwt

from gateway.config import Settings
from gateway.errors import ProblemError
from gateway.keys import load_keyring, resolve_organiser_key
from gateway.openapi_docs import PROBLEM_CATALOGUE
from gateway.principal import Principal, game_scope
from gateway.store.connection import Keys

__all__ = [
    "ORGANISER_SCOPE",
    "IssuedToken",
    "PendingRevocation",
    "TokenService",
    "VerifiedToken",
    "auth_problem",
    "game_scope",
    "revoked_key",
]

ALGORITHM = "EdDSA"
ORGANISER_SCOPE = "organiser"

REQUIRED_CLAIMS = ("iss", "aud", "sub", "exp", "iat", "nbf", "jti", "scope")

ORGANISER_KEY_CLAIM = "okf"
"""The claim binding an organiser token to the organiser key it was minted under."""


def organiser_key_fingerprint(organiser_key: str) -> str:
    """A short keyed digest naming ``organiser_key`` without revealing it: the HMAC-SHA256
    of a fixed label under the key, 16 hex digits. It changes with the key, so a token
    carrying it dies with a rotation, and it cannot be inverted or tested offline
    without the key itself."""
    digest = hmac.new(organiser_key.encode("utf-8"), b"agents-club organiser token",
                      hashlib.sha256)
    return digest.hexdigest()[:16]


class IssuedToken(NamedTuple):
    """A freshly signed token with the two claims its issuer keeps track of."""

    token: str
    token_id: str
    """Its ``jti``: what revocation names."""
    expires_at: int
    """Its ``exp`` (Unix seconds)."""


VERIFIED_CACHE_SIZE = 4096
"""Tokens whose signature and claims this process already checked (see
:meth:`TokenService.verify_cached`), least recently used dropped first."""


def auth_problem(code: str, detail: str) -> ProblemError:
    """The problem for an ``auth/...`` code, with its catalogued status (401, or 403 for
    ``auth/wrong_scope``) and title; a 401 carries the ``WWW-Authenticate`` challenge."""
    spec = PROBLEM_CATALOGUE[code]
    headers = None
    if spec.status == 401:
        # RFC 6750 3.1: no error attribute when the request carried no token at all.
        challenge = 'Bearer realm="agents-club"'
        if code != "auth/missing":
            challenge += ', error="invalid_token"'
        headers = {"WWW-Authenticate": challenge}
    return ProblemError(spec.status, code, spec.title, detail, headers=headers)


def revoked_key(keys: Keys, token_id: str) -> str:
    """The Redis key whose existence marks ``token_id`` as revoked (:mod:`gateway.store.auth`
    writes it; a table read asks for it in the same round trip, see
    :class:`PendingRevocation`)."""
    return keys.global_("revoked", token_id)


@dataclass(frozen=True)
class VerifiedToken:
    """A token that passed every stateless check, with the claims a caller may need."""

    principal: Principal
    expires_at: int
    """``exp`` (Unix seconds): how long a revocation of this token must be remembered."""
    valid_until: float
    """When the token stops verifying: ``exp`` plus the leeway (PyJWT's rule)."""


@dataclass(frozen=True)
class PendingRevocation:
    """A caller whose token passed every stateless check, its revocation not asked yet.

    The table routes a bot calls on every turn (observe, act) ask Redis whether
    the token was revoked in the same round trip as their table read
    (:meth:`gateway.store.tables.TableStore.load_for_action`), which saves each
    such request a round trip. The principal is reachable only through
    :meth:`confirm`, with the answer of that read, so no code can act for the
    caller before the check is done.
    """

    agent_id: str
    """Who the token names (public: it keys the caller's idempotency records)."""
    revoked_key: str
    """The Redis key that exists when the token was revoked."""
    _principal: Principal
    valid_until: float
    """When the token stops verifying (``exp`` plus the leeway): a held wait ends then."""

    @classmethod
    def of(cls, verified: VerifiedToken, keys: Keys) -> PendingRevocation:
        principal = verified.principal
        return cls(principal.agent_id, revoked_key(keys, principal.token_id), principal,
                   verified.valid_until)

    def confirm(self, revoked: bool) -> Principal:
        """The caller, once Redis answered whether the token was revoked.

        :raises ProblemError: 401 ``auth/revoked`` when it was.
        """
        if revoked:
            raise auth_problem("auth/revoked", "The token was revoked; get a new one.")
        return self._principal

    def expired(self) -> bool:
        """Whether the token stopped verifying since the request came (it waited)."""
        return time.time() >= self.valid_until

    def held_s(self, wanted_s: float) -> float:
        """``wanted_s`` seconds of a held wait, but no longer than the token verifies."""
        return max(0.0, min(wanted_s, self.valid_until - time.time()))

    def confirm_still_valid(self) -> None:
        """Refuse a caller whose token expired while its request waited.

        :raises ProblemError: 401 ``auth/expired``.
        """
        if self.expired():
            raise auth_problem("auth/expired", "The token expired while the request waited; get a new "
                               "one with POST /v1/auth/token (your agent id and secret).")


class TokenService:
    """Mints and verifies the gateway's access tokens (one per app: ``app.state.tokens``)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.keyring = load_keyring(settings)
        self.organiser_key = resolve_organiser_key(settings)
        """The organiser key (never log it)."""
        self._organiser_fingerprint = organiser_key_fingerprint(self.organiser_key)
        # Token string -> its verification: an agent sends the same token on every request.
        # Only the stateless checks are cached: expiry is checked again on every hit,
        # revocation is never cached here.
        self._verify_once = functools.lru_cache(maxsize=VERIFIED_CACHE_SIZE)(self.verify)

    # minting -----------------------------------------------------------------

    def issue(
        self,
        *,
        agent_id: str,
        name: str,
        scopes: Iterable[str],
        kind: Literal["agent", "organiser"] = "agent",
        ttl_s: int | None = None,
    ) -> IssuedToken:
        """A signed token for ``agent_id``, valid for ``ttl_s`` seconds (default from settings),
        with its ``jti`` and ``exp``."""
        now = int(time.time())
        lifetime = ttl_s if ttl_s is not None else self.settings.access_token_ttl_s
        scope_set = set(scopes)
        if kind == "organiser":
            scope_set.add(ORGANISER_SCOPE)
        claims: dict[str, Any] = {
            "iss": self.settings.jwt_issuer,
            "aud": self.settings.jwt_audience,
            "sub": agent_id,
            "iat": now,
            "nbf": now,
            "exp": now + lifetime,
            "jti": uuid.uuid4().hex,
            "scope": " ".join(sorted(scope_set)),
            "name": name,
            "kind": kind,
        }
        if kind == "organiser":
            claims[ORGANISER_KEY_CLAIM] = self._organiser_fingerprint
        token = jwt.encode(
            claims,
            self.keyring.signing_key,
            algorithm=ALGORITHM,
            headers={"kid": self.keyring.signing_kid, "typ": "JWT"},
        )
        return IssuedToken(token, claims["jti"], claims["exp"])

    # verifying ---------------------------------------------------------------

    def verify(self, token: str) -> VerifiedToken:
        """The token, once it passed every stateless check (not revocation: see
        :meth:`authenticate`).

        :raises ProblemError: 401 with the ``auth/...`` code of the first failure.
        """
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise auth_problem("auth/invalid", "The bearer token is not a JWT.") from None
        if header.get("alg") != ALGORITHM:
            raise auth_problem("auth/invalid", f"Tokens must be signed with {ALGORITHM}.")
        kid = header.get("kid")
        public_key = self.keyring.verification_keys.get(kid) if isinstance(kid, str) else None
        if public_key is None:
            raise auth_problem("auth/unknown_key",
                               "The token's key id is not in /.well-known/jwks.json.")
        try:
            claims = jwt.decode(
                token,
                public_key,
                algorithms=[ALGORITHM],
                audience=self.settings.jwt_audience,
                issuer=self.settings.jwt_issuer,
                leeway=self.settings.jwt_leeway_s,
                options={"require": list(REQUIRED_CLAIMS)},
            )
        except jwt.ExpiredSignatureError:
            raise auth_problem("auth/expired", "The token has expired; get a new one with POST "
                               "/v1/auth/token (your agent id and secret).") from None
        except jwt.ImmatureSignatureError:
            raise auth_problem("auth/not_yet_valid", "The token is not valid yet.") from None
        except jwt.InvalidAudienceError:
            raise auth_problem("auth/wrong_audience", "The token is for another service.") from None
        except jwt.InvalidIssuerError:
            raise auth_problem("auth/wrong_issuer", "The token was issued elsewhere.") from None
        except jwt.PyJWTError:
            raise auth_problem("auth/invalid", "The token failed verification.") from None
        principal = self._principal(claims)
        if principal.kind == "organiser":
            bound_to = claims.get(ORGANISER_KEY_CLAIM)
            if not isinstance(bound_to, str) or not hmac.compare_digest(
                bound_to, self._organiser_fingerprint
            ):
                raise auth_problem(
                    "auth/revoked",
                    "The organiser key was rotated since this organiser token was minted; "
                    "mint a new one with the current key.",
                )
        expires_at = int(claims["exp"])
        return VerifiedToken(principal, expires_at, expires_at + self.settings.jwt_leeway_s)

    def verify_cached(self, token: str) -> VerifiedToken:
        """Like :meth:`verify`, remembering tokens that passed (expiry is re-checked)."""
        verified = self._verify_once(token)
        if time.time() >= verified.valid_until:
            return self.verify(token)  # raises auth/expired
        return verified

    async def authenticate(
        self, token: str, revoked: Callable[[str], Awaitable[bool]]
    ) -> VerifiedToken:
        """Verify ``token`` and refuse it when ``revoked`` says its ``jti`` was.

        :raises ProblemError: 401 ``auth/...``.
        """
        verified = self.verify_cached(token)
        if await revoked(verified.principal.token_id):
            raise auth_problem("auth/revoked", "The token was revoked; get a new one.")
        return verified

    def is_organiser_key(self, presented: str) -> bool:
        return hmac.compare_digest(presented.encode("utf-8"), self.organiser_key.encode("utf-8"))

    @staticmethod
    def _principal(claims: dict[str, Any]) -> Principal:
        scope = claims.get("scope")
        name = claims.get("name", "")
        kind = claims.get("kind", "agent")
        scopes = frozenset(scope.split()) if isinstance(scope, str) else None
        if (scopes is None or not isinstance(name, str) or kind not in ("agent", "organiser")
                or (kind == "organiser" and ORGANISER_SCOPE not in scopes)):
            raise auth_problem("auth/invalid", "The token's claims are malformed.")
        return Principal(
            agent_id=str(claims["sub"]),
            name=name,
            kind=kind,
            scopes=scopes,
            token_id=str(claims["jti"]),
        )

