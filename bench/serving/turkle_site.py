"""Django settings hosting Turkle 3.1.0 for the serving benchmark, as Turkle's own turkle_site
does (the package is the app), run by Turkle's own venv (bench/out/turkle-venv, Django 4.2).

Deployed as bench/serving/run.py deploys Parable: PostgreSQL (TURKLE_DATABASE_URL, a database of
its own on the same server), the same CONN_MAX_AGE and health checks, behind the same
TLS-terminating proxy header, DEBUG off."""

import os
from urllib.parse import urlsplit

database = urlsplit(os.environ["TURKLE_DATABASE_URL"])
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
SECRET_KEY = os.environ["SECRET_KEY"]
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": database.path.lstrip("/"),
        "USER": database.username,
        "HOST": database.hostname,
        "PORT": database.port,
        "CONN_MAX_AGE": int(os.environ.get("CONN_MAX_AGE", "0")),
        "CONN_HEALTH_CHECKS": True,
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
USE_TZ = True
STATIC_URL = "/static/"
ROOT_URLCONF = "bench.serving.turkle_urls"
INSTALLED_APPS = [
    *(f"django.contrib.{app}" for app in ("auth", "contenttypes", "sessions", "messages")),
    "django.contrib.staticfiles",
    "turkle",
    "django.contrib.admin",
    "rest_framework",
    "rest_framework.authtoken",
    "turkle.api",
    "guardian",
    "djaa_list_filter2",
]
MIDDLEWARE = [
    "django.middleware.common.CommonMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.contrib.auth.context_processors.auth",
                *(
                    f"django.template.context_processors.{name}"
                    for name in ("debug", "i18n", "media", "request", "static", "tz")
                ),
                "django.contrib.messages.context_processors.messages",
                "turkle.utils.turkle_vars",
            ]
        },
    }
]
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "guardian.backends.ObjectPermissionBackend",
]
LOGIN_URL = "login"
TURKLE_AUTO_ACCEPT_DEFAULT = True  # a submit leads to the batch's next task, as Parable's does
