"""WSGI entry point (gunicorn, runserver)."""

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
application = get_wsgi_application()

if settings.CELERY_TASK_ALWAYS_EAGER:
    # No broker: background tasks run inside this process, so their models start loading
    # as it starts, not inside the first request that needs them. With a broker the
    # workers load them (config/celery_app.py) and web processes stay small.
    from annotation.keywords import spacy_pipeline_preload
    from annotation.quality.embeddings import embedding_model_preload

    spacy_pipeline_preload()
    embedding_model_preload()
