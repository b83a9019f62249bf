#!/usr/bin/env sh
# Roles: web (migrate, then gunicorn), worker [QUEUES [ARGS]] (Celery worker), beat (Celery beat),
# or any command.
set -eu
case "${1:-web}" in
  web)
    python manage.py migrate --noinput
    python manage.py bootstrap --no-demo
    exec gunicorn config.wsgi:application -c platform/gunicorn.conf.py
    ;;
  worker)
    # The queues: the second argument, else CELERY_QUEUES, else both (the modeling queue's
    # runs then share the CPU with the default queue's tasks); further arguments go to
    # the worker (--concurrency=1).
    queues="${2:-${CELERY_QUEUES:-celery,modeling}}"
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
