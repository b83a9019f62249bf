"""The embedded default: SQLite, in-process tasks, one gunicorn process (`make run`).

Debug pages only with PARABLE_DEBUG=1 (base.py); static files are served by the app
itself (whitenoise), straight from the apps' folders, so nothing is collected first.
"""

import warnings

from config.settings.base import *  # noqa: F403
from config.settings.base import MIDDLEWARE, env

MIDDLEWARE = [MIDDLEWARE[0], "whitenoise.middleware.WhiteNoiseMiddleware", *MIDDLEWARE[1:]]
WHITENOISE_USE_FINDERS = True
# STATIC_ROOT holds files only after collectstatic (production's step): here the finders
# serve them, and whitenoise's warning about the empty folder says nothing useful.
warnings.filterwarnings("ignore", message="No directory at: ", category=UserWarning)

# Each of the server's threads keeps its database connection from one request to the next
# (as production does): opening one costs more than the statements a worker's request runs.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=600)  # noqa: F405
