"""WSGI entry point (gunicorn, runserver)."""

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
application = get_wsgi_application()

if settings.CELERY_TASK_ALWAYS_EAGER:
    # No broker: background tasks run inside this process, each request's after its
    # response is sent, so no request waits for them; their models load when the first
    # task needs them (with a broker the workers load them: config/celery_app.py).
    from common.task_queue import tasks_after_response

    tasks_after_response()
