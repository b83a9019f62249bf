"""Worker ids as salted hashes: what exports and the HIT template frame show of a worker."""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings


def export_salt() -> bytes:
    """PARABLE_EXPORT_SALT, or a salt derived from SECRET_KEY (stable for an installation)."""
    configured = getattr(settings, "PARABLE_EXPORT_SALT", None)
    if configured:
        return configured.encode()
    return hmac.new(settings.SECRET_KEY.encode(), b"parable-export-salt", "sha256").digest()


class WorkerPseudonyms:
    """Worker keys ("provider:id") to salted hashes: first 16 hex digits of HMAC-SHA256."""

    def __init__(self, salt: bytes) -> None:
        self.salt = salt
        self._known: dict[str, str] = {}

    def __call__(self, worker: str | None) -> str | None:
        if worker is None:
            return None
        if worker not in self._known:
            digest = hmac.new(self.salt, worker.encode(), hashlib.sha256).hexdigest()
            self._known[worker] = digest[:16]
        return self._known[worker]
