"""Settings shared by every environment, all read from the environment (django-environ):
Django's own here, each concern's in a module of its own (api, celery, logs, modeling,
parable, providers). With nothing set, Parable runs on SQLite under var/ with Celery tasks
executed in-process; DATABASE_URL and CELERY_BROKER_URL point it at PostgreSQL and Redis.
"""

import secrets
from datetime import timedelta
from pathlib import Path

from csp.constants import NONE, SELF, UNSAFE_INLINE

from config.settings.env import BASE_DIR, VAR_DIR, env


def _local_secret_key() -> str:
    """A per-checkout random key kept under var/, for development only."""
    key_file = VAR_DIR / "secret_key"
    if not key_file.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        key_file.write_text(secrets.token_urlsafe(50))
    return key_file.read_text().strip()


# Django's debug pages (tracebacks, settings) only when a developer asks for them: a
# worker who meets an error sees a plain page.
DEBUG = env.bool("PARABLE_DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY", default="") or _local_secret_key()
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "config.admin_site.ParableAdminConfig",  # django.contrib.admin, its index grouped by a study
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",
    "django.forms",  # its widget templates, for FORM_RENDERER below
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI as static files: the API docs work offline
    "common",
    "annotation",
    "crowd",
    "mturk",
    "prolific",
    "modeling",
    "frontend",
]

# Django's database sessions, read with one plain SQL statement (common/sessions.py).
SESSION_ENGINE = "common.sessions"

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "common.sessions.SessionMiddleware",  # Django's, sparing a newer cookie (see there)
    "django.middleware.common.CommonMiddleware",
    "common.request_input.RequestInputMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: turns a locked-out login into its "too many attempts" answer.
    "axes.middleware.AxesMiddleware",
]

# Content-Security-Policy (django-csp) on every response: scripts from this site only (no
# inline scripts or handlers), nothing framed by others. Inline styles stay allowed for the
# dashboard's inline SVG plots. A page framed by a crowd provider's site (the MTurk task
# page) keeps this policy and widens frame-ancestors only.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "OPTIONS": {
            # Apps' templates/ folders, and each task type's own (crowd.task_type_files).
            "loaders": [
                (
                    "django.template.loaders.cached.Loader",
                    [
                        "django.template.loaders.app_directories.Loader",
                        "crowd.task_type_files.TemplateLoader",
                    ],
                )
            ],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'parable.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # SQLite as concurrent Django sites use it. SQLite has no row locks: a transaction
    # takes the write lock when it starts (IMMEDIATE), so concurrent writers queue up for
    # up to `timeout` seconds (the busy timeout) instead of failing "database is locked";
    # a process's own writers queue in the order they came (common.sqlite).
    DATABASES["default"]["ENGINE"] = "common.sqlite"
    # The WAL journal lets a write commit while other requests read (an export or an
    # analysis streaming the dataset), and readers never wait for a writer; with it,
    # synchronous=NORMAL is still safe against corruption and syncs once per checkpoint.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
# Persistent connections (production keeps them by default): opening a PostgreSQL
# connection costs more than the few statements a worker's request runs. The health
# check pings a reused connection once per request before using it.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool("CONN_HEALTH_CHECKS", default=True)
# Behind PgBouncer in transaction mode, server-side cursors (iterator()) must be off.
DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = env.bool(
    "DISABLE_SERVER_SIDE_CURSORS", default=False
)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# SQLite cannot enforce unique-with-NULLs constraints; PostgreSQL does, and the
# services check the same uniqueness before writing on either.
SILENCED_SYSTEM_CHECKS = ["models.W047"]

# Login throttling (django-axes), for the admin's login form and the API's token endpoint
# alike: after PARABLE_LOGIN_FAILURE_LIMIT wrong passwords for one user name from one address,
# that pair is refused, right password or not, for PARABLE_LOGIN_COOLOFF_MINUTES after its
# last failure (429 on the login form and from the token endpoint, with Retry-After there);
# a successful login clears the count. Failures are kept in the database (SQLite or
# PostgreSQL), so every web process counts them together. Behind the proxy every client has
# the proxy's address, and the count is then one per user name.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # refuses a locked-out pair before any password check
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("PARABLE_LOGIN_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("PARABLE_LOGIN_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False  # no banner on every command; failures and lockouts are still logged

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "crowd.task_type_files.StaticFinder",  # each task type's static/ folder
]
# Form widgets render with the templates above, so a task type's admin widget finds its own.
FORM_RENDERER = "django.forms.renderers.TemplatesSetting"
MEDIA_ROOT = Path(env.str("MEDIA_ROOT", default=str(VAR_DIR / "media")))
MEDIA_URL = "media/"

DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=20 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE

LOGIN_URL = "admin:login"

# The settings of each concern, in modules of their own.
from config.settings.api import *  # noqa: E402, F403
from config.settings.celery import *  # noqa: E402, F403
from config.settings.logs import *  # noqa: E402, F403
from config.settings.modeling import *  # noqa: E402, F403
from config.settings.parable import *  # noqa: E402, F403
from config.settings.providers import *  # noqa: E402, F403
