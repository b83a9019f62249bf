"""The Celery app: tasks run in-process unless CELERY_BROKER_URL names a broker."""

import os

from common.optional_imports import import_without

# kombu registers a YAML serializer whenever PyYAML is installed (drf-spectacular needs it
# for the schema's YAML): 2 MiB and about 0.02 s of every process's start, for a format
# that CELERY_ACCEPT_CONTENT refuses. Before Celery, which imports kombu.
import_without("kombu.serialization", unused=("yaml",))

from celery import Celery  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("parable")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
