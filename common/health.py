"""/healthz: the database, the Celery broker when one is configured, this deployment's identity."""

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.utils.crypto import salted_hmac
from kombu import Connection


def deployment_id() -> str:
    """The same in every process of one deployment, and in no other: its SECRET_KEY hashed."""
    return salted_hmac("parable.healthz", "deployment").hexdigest()[:16]


def _check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return "ok"


def _check_broker() -> str:
    if not settings.CELERY_BROKER_URL:
        return "in-process"
    # The broker as the Celery app (config/celery_app.py) reaches it, from the same settings.
    with Connection(
        settings.CELERY_BROKER_URL, transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS
    ) as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
    return "ok"


def healthz(request):
    """Public, read-only, reveals no data: 200 when healthy, 503 naming what failed."""
    report, healthy = {}, True
    for name, check in (("database", _check_database), ("broker", _check_broker)):
        try:
            report[name] = check()
        except Exception as error:
            report[name] = f"error: {type(error).__name__}"
            healthy = False
    return JsonResponse(
        {"status": "ok" if healthy else "error", **report, "deployment": deployment_id()},
        status=200 if healthy else 503,
    )
