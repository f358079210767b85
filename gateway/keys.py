"""The gateway's key material: the Ed25519 signing key, its public JWKS, the organiser key.

Keys come from configuration. In development and test, a missing signing key
or organiser key is generated once into the data directory (file mode 0600)
and reused on every start, so tokens survive a restart and every worker of one
host signs with the same key. Creation is atomic (write a private temporary
file, then ``link`` it into place, which fails if another process won): workers
starting at the same moment all end up with the same key.

A key's id (``kid``) is its RFC 7638 JWK thumbprint, so it is stable and never
needs configuring.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from jwt.algorithms import OKPAlgorithm

from gateway.config import Settings

__all__ = [
    "ORGANISER_KEY_FILE",
    "SIGNING_KEY_FILE",
    "KeyRing",
    "jwk_thumbprint",
    "load_keyring",
    "resolve_organiser_key",
]

SIGNING_KEY_FILE = "signing-key.pem"
ORGANISER_KEY_FILE = "organiser-key"


def jwk_thumbprint(public_key: Ed25519PublicKey) -> str:
    """The RFC 7638 thumbprint of an Ed25519 public key: our ``kid``. PyJWT writes a
    public key's JWK with exactly the required members (``crv``, ``kty``, ``x``)."""
    jwk = OKPAlgorithm.to_jwk(public_key, as_dict=True)
    canonical = json.dumps(jwk, separators=(",", ":"), sort_keys=True)
    digest = hashlib.sha256(canonical.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


@dataclass(frozen=True)
class KeyRing:
    """The signing key plus every public key whose tokens are accepted, by ``kid``."""

    signing_key: Ed25519PrivateKey
    signing_kid: str
    verification_keys: dict[str, Ed25519PublicKey] = field(default_factory=dict)

    def jwks(self) -> dict[str, Any]:
        """The public JSON Web Key Set (``/.well-known/jwks.json``); sorted by ``kid``."""
        keys = [{**OKPAlgorithm.to_jwk(public_key, as_dict=True), "kid": kid, "alg": "EdDSA",
                 "use": "sig"}
                for kid, public_key in sorted(self.verification_keys.items())]
        return {"keys": keys}


def _write_once(path: Path, content: bytes) -> bytes:
    """Create ``path`` (mode 0600) with ``content`` unless it exists; returns what is there."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        return path.read_bytes()
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        # link is atomic and fails when another worker was first: theirs wins.
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path.read_bytes()


def _load_private_pem(pem: bytes) -> Ed25519PrivateKey:
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError("the signing key must be an Ed25519 private key (PEM, PKCS#8)")
    return key


def load_keyring(settings: Settings) -> KeyRing:
    """The key ring for ``settings``: the configured key, or the one in ``data_dir``.

    :raises ValueError: when the configured PEM is not an Ed25519 key, or when no
        key is configured outside development and test.
    """
    if settings.signing_key_pem:
        signing_key = _load_private_pem(settings.signing_key_pem.encode("ascii"))
    elif settings.generates_secrets:
        generated = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        signing_key = _load_private_pem(_write_once(settings.data_dir / SIGNING_KEY_FILE, generated))
    else:
        raise ValueError("no signing key configured (AGENTS_CLUB_SIGNING_KEY_PEM)")
    signing_kid = jwk_thumbprint(signing_key.public_key())
    verification_keys = {signing_kid: signing_key.public_key()}
    for pem in settings.previous_public_keys_pem:
        public_key = serialization.load_pem_public_key(pem.encode("ascii"))
        if not isinstance(public_key, Ed25519PublicKey):
            raise ValueError("a previous public key must be an Ed25519 public key (PEM)")
        verification_keys[jwk_thumbprint(public_key)] = public_key
    return KeyRing(signing_key, signing_kid, verification_keys)


def resolve_organiser_key(settings: Settings) -> str:
    """The organiser key: configured, or generated once into ``data_dir/organiser-key``.

    :raises ValueError: when none is configured outside development and test.
    """
    if settings.organiser_key:
        return settings.organiser_key
    if not settings.generates_secrets:
        raise ValueError("no organiser key configured (AGENTS_CLUB_ORGANISER_KEY)")
    generated = secrets.token_urlsafe(32).encode("ascii")
    return _write_once(settings.data_dir / ORGANISER_KEY_FILE, generated).decode("ascii").strip()
