"""Production: secrets have no default, and debug pages are refused."""

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import *  # noqa: F403
from config.settings.base import env

SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set in production.")
if (
    len(SECRET_KEY) < 50
    or len(set(SECRET_KEY)) < 5
    or SECRET_KEY.startswith("django-insecure-")
    or SECRET_KEY == "change-me-to-a-long-random-string"  # platform/env.example's
):
    raise ImproperlyConfigured(
        "SECRET_KEY is too weak for production: use at least 50 random characters, e.g. "
        "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
    )
if env.bool("PARABLE_DEBUG", default=False):
    raise ImproperlyConfigured("PARABLE_DEBUG must be off in production.")
DEBUG = False

# Keep database connections open between requests (see docs/deploying.md, "Serving many workers").
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=600)  # noqa: F405

# Static files served by the app itself behind gunicorn.
MIDDLEWARE = [MIDDLEWARE[0], "whitenoise.middleware.WhiteNoiseMiddleware", *MIDDLEWARE[1:]]  # noqa: F405

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=True)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
# HTTPS only: redirect plain HTTP (behind a proxy, from X-Forwarded-Proto) and tell browsers
# to use HTTPS for this host (HSTS). Set SECURE_HSTS_SECONDS=0 while trying HTTPS out.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # the load balancer's plain-HTTP health check
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
