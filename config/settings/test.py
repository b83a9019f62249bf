"""Tests: the database comes from DATABASE_URL (PostgreSQL under `make test`)."""

from config.settings.base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = True
CELERY_BROKER_URL = ""
PARABLE_MODELING_WITHOUT_BROKER = "inline"  # tests/modeling/test_admin.py checks "thread"
PROLIFIC_BACKOFF_SECONDS = 0.0
