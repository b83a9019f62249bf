#!/usr/bin/env sh
# Roles: web (migrate, then gunicorn), worker (Celery worker), beat (Celery beat), or any command.
set -eu
case "${1:-web}" in
  web)
    python manage.py migrate --noinput
    python manage.py bootstrap --no-demo
    exec gunicorn config.wsgi:application -c platform/gunicorn.conf.py
    ;;
  worker)
    exec celery -A config worker -Q "${CELERY_QUEUES:-celery,modeling}" --loglevel="${LOG_LEVEL:-INFO}"
    ;;
  beat)
    exec celery -A config beat --loglevel="${LOG_LEVEL:-INFO}" --schedule /var/lib/parable/celerybeat-schedule
    ;;
  *)
    exec "$@"
    ;;
esac
