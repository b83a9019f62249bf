"""WSGI entry point (gunicorn)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
application = get_wsgi_application()

# Models load in the background as the process starts, not inside the first request.
from annotation.keywords import spacy_pipeline_preload  # noqa: E402

spacy_pipeline_preload()
