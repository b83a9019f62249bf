"""WSGI entry point (gunicorn, runserver).

The application and its URL map load with Python's cyclic garbage collector off: what a
web worker builds at start-up lives as long as the process, and the collections the
allocations set off found nothing to free while taking about a tenth of the start-up's
CPU (bench/web_worker). Once loaded, those objects are moved out of the collector's sight
(gc.freeze), so that the collections requests set off do not walk them again.
"""

import gc
import os

gc.disable()
try:
    from django.conf import settings
    from django.core.wsgi import get_wsgi_application
    from django.urls import get_resolver

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    application = get_wsgi_application()
    get_resolver().url_patterns  # noqa: B018 (the URL map, loaded now, not by a request)
finally:
    gc.enable()
    gc.freeze()

if settings.CELERY_TASK_ALWAYS_EAGER:
    # No broker: background tasks run inside this process, each request's after its
    # response is sent, so no request waits for them; their models load when the first
    # task needs them (with a broker the workers load them: config/celery_app.py).
    from common.task_queue import tasks_after_response

    tasks_after_response()
