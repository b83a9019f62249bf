#!/usr/bin/env sh
# Roles: web (migrate, then gunicorn), migrate (migrate only), worker [QUEUES [ARGS]]
# (Celery worker), beat (Celery beat), or any command. PARABLE_WEB_MIGRATE=false: web
# leaves migrating to the migrate role (several web containers must not migrate at once).
set -eu
case "${1:-web}" in
  web)
    if [ "${PARABLE_WEB_MIGRATE:-true}" = true ]; then
      python manage.py migrate --noinput
      python manage.py bootstrap --no-demo
    fi
    exec gunicorn config.wsgi:application -c platform/gunicorn.conf.py
    ;;
  migrate)
    python manage.py migrate --noinput
    exec python manage.py bootstrap --no-demo
    ;;
  worker)
    # The queues: the second argument, else CELERY_QUEUES, else all three (long jobs and
    # runs then share the worker's processes with the short checks); further arguments go
    # to the worker (--concurrency=1).
    queues="${2:-${CELERY_QUEUES:-celery,bulk,modeling}}"
    shift $(( $# < 2 ? $# : 2 ))
    exec celery -A config worker -Q "$queues" --loglevel="${LOG_LEVEL:-INFO}" "$@"
    ;;
  beat)
    exec celery -A config beat --loglevel="${LOG_LEVEL:-INFO}" --schedule /var/lib/parable/celerybeat-schedule
    ;;
  *)
    exec "$@"
    ;;
esac
