"""The Celery app: tasks run in-process unless CELERY_BROKER_URL names a broker."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("parable")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
