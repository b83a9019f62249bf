"""Logging: every handler drops invite tokens (common.log_filters)."""

from config.settings.env import env

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
