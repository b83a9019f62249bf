"""Invite tokens kept out of logs: a logging filter for Django and a gunicorn access logger.

An invite link (`/w/<token>/`) signs a browser in as a worker, so the token is a
credential: anyone who reads a log line holding it could open the link.
"""

from __future__ import annotations

import logging
import re

from gunicorn.glogging import Logger as GunicornLogger

_INVITE_PATH = re.compile(r"/w/[^/?#\s\"']+")


def redact_invite_tokens(text: str) -> str:
    """`text` with every invite path's token replaced by `[redacted]`."""
    return _INVITE_PATH.sub("/w/[redacted]", text)


class InviteTokenFilter(logging.Filter):
    """Rewrites a record's message (its arguments merged in) without invite tokens."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact_invite_tokens(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


class TokenRedactingLogger(GunicornLogger):
    """gunicorn's logger whose access-log fields (request line, path, referrer) hold no
    invite token; platform/gunicorn.conf.py names it as `logger_class`."""

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        for key in ("r", "U", "f"):
            if isinstance(atoms.get(key), str):
                atoms[key] = redact_invite_tokens(atoms[key])
        return atoms
