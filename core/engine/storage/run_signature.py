"""A stored run's signature: an HMAC, by a secret only the app and its workers hold, over the run's canonical
bytes (the training code's fingerprint, the setting, the result JSON, every weights entry by name).

Checking a stored run in full (``stored_run``) proves it is *possible*; only a signature proves the lab computed
it. Whoever can write a shared archive (a Redis password, a copied SQLite file) could otherwise store a
well-formed run with a false number, and a lesson would teach it. So an archive signs each run it keeps and
treats one without a valid signature as unusable.

The secret is a setting of its own, never the Redis password (which every learner-facing replica and, often,
its operator's tools hold): ``VITLAB_ARCHIVE_SECRET``, the same on every replica and worker of a class. A server
alone with its SQLite archive needs none: it makes one once and keeps it beside the archive
(``local_secret``). The shipped results are the app's own files and are not signed.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from core.engine.storage.stored_run import UnusableRun

SECRET_VARIABLE = "VITLAB_ARCHIVE_SECRET"
KEY_FILE = "archive.key"  # beside the SQLite archive: the secret a server alone made for itself
MIN_SECRET = 16  # characters: a shorter secret is guessable
MISSING = (f"{SECRET_VARIABLE} is not set: with a shared Redis, set it to one long random string (e.g. "
           "`python -c \"import secrets; print(secrets.token_hex(32))\"`), the same on every replica and worker")


def secret_from(value: str | None) -> bytes:
    """The secret of a ``VITLAB_ARCHIVE_SECRET`` value, or ValueError saying what to set (never the value)."""
    if not value:
        raise ValueError(MISSING)
    if len(value) < MIN_SECRET:
        raise ValueError(f"{SECRET_VARIABLE} is {len(value)} characters long: use at least {MIN_SECRET} (a long random "
                         "string, the same on every replica and worker)")
    return value.encode()


def env_secret() -> bytes:
    """``VITLAB_ARCHIVE_SECRET`` from the environment, or ValueError saying how to set it."""
    return secret_from(os.environ.get(SECRET_VARIABLE))


def local_secret(directory: Path) -> bytes:
    """``VITLAB_ARCHIVE_SECRET`` where it is set; else the secret kept in ``directory/archive.key``, made there
    once (readable by this user only). OSError where it can be neither read nor made."""
    if os.environ.get(SECRET_VARIABLE):
        return env_secret()
    path = Path(directory) / KEY_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        value = path.read_text().strip()
        if len(value) < MIN_SECRET:
            raise OSError(f"{path} does not hold a secret (delete it: a new one is made, and the runs signed "
                          "with the old one are trained again)") from None
        return value.encode()
    with os.fdopen(fd, "w") as out:
        out.write(secrets.token_hex(32))
    return path.read_text().strip().encode()


def signature(secret: bytes, fingerprint: str, config_key: str, result: str | bytes, weights: dict[str, bytes]) -> str:
    """The run's HMAC-SHA256 (hex) over its canonical bytes: each part length-prefixed, weights by name."""
    mac = hmac.new(secret, b"vitlab-run-v1", hashlib.sha256)
    parts = [fingerprint.encode(), config_key.encode(), result.encode() if isinstance(result, str) else result]
    for name in sorted(weights):
        parts += [name.encode(), weights[name]]
    for part in parts:
        mac.update(len(part).to_bytes(8, "big"))
        mac.update(part)
    return mac.hexdigest()


def check_signature(secret: bytes, fingerprint: str, config_key: str, result: str | bytes,
                    weights: dict[str, bytes], signed: object) -> None:
    """``UnusableRun`` unless ``signed`` is the run's signature by ``secret``."""
    if isinstance(signed, bytes):
        signed = signed.decode("ascii", errors="replace")
    if not isinstance(signed, str) or not signed:
        raise UnusableRun("it is not signed (a run the lab stores carries its signature)")
    if not hmac.compare_digest(signed, signature(secret, fingerprint, config_key, result, weights)):
        raise UnusableRun("its signature does not match: it was not stored by this app with its archive secret")
