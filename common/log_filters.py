"""Invite tokens kept out of logs: a logging filter for Django's loggers and gunicorn's.

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
    """gunicorn's logger whose access and error logs hold no invite token (a request line,
    path or referrer, and "Error handling request <uri>"): every handler it sets up gets
    the filter. platform/gunicorn.conf.py names it as `logger_class`."""

    def setup(self, cfg):
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                if not any(isinstance(held, InviteTokenFilter) for held in handler.filters):
                    handler.addFilter(InviteTokenFilter())
