"""Invite tokens kept out of logs (Django's and gunicorn's): an invite link (`/w/<token>/`)
signs a browser in as a worker, so its token is a credential."""

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
    """gunicorn's logger (platform/gunicorn.conf.py) whose access and error logs' handlers
    all filter invite tokens out."""

    def setup(self, cfg):
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                if not any(isinstance(held, InviteTokenFilter) for held in handler.filters):
                    handler.addFilter(InviteTokenFilter())
