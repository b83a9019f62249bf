"""Prolific's webhook signature, shared by the receiving view and the stand-in that sends."""

import base64
import hashlib
import hmac


def signature(*, secret: str, timestamp: str, body: bytes) -> str:
    """Base64 of HMAC-SHA256 over the timestamp followed by the raw body, keyed by the
    workspace's secret (X-Prolific-Request-Signature)."""
    digest = hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()
