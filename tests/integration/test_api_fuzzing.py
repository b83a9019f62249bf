"""schemathesis against the live application on PostgreSQL, as a staff researcher (token),
a crowd worker (token) and anonymously: every operation, every check, a fixed seed and a
bounded number of examples. Any server error or answer that breaks the OpenAPI schema
fails the test.

Every check runs, those that judge request validation too: the schema states the rules
the API applies (no fields but its own, no NUL in texts, cross-field rules, each task
type's settings), and a well-formed request the stored data refuses is a 404 or 409, not
a 400. The proverb import's file part is text/plain or text/csv, whose content
tests/integration/fuzz_media.py describes to schemathesis; the same module keeps it from
generating batch settings that break the three rules across keys no JSON Schema states
(min_words <= max_words, a qualification's min_correct <= its pairs, distinct criteria
keys). No check is left
out anywhere. bench/api_fuzz/run.py runs all checks at 5,000+ cases per role and
reports each.
"""

import json

import pytest
import schemathesis
from drf_spectacular.renderers import OpenApiJsonRenderer
from drf_spectacular.settings import spectacular_settings
from hypothesis import HealthCheck, seed, settings
from rest_framework.authtoken.models import Token

from annotation.datasets.demo import demo_proverbs_load
from tests.integration import fuzz_media  # noqa: F401 (registers the file parts' media types)

pytestmark = pytest.mark.django_db(transaction=True)
EXAMPLES_PER_OPERATION = 6


def _api_schema():
    """The schema the application serves at /api/schema/, built in-process (no database)."""
    generator = spectacular_settings.DEFAULT_GENERATOR_CLASS()
    document = generator.get_schema(request=None, public=True)
    return schemathesis.openapi.from_dict(json.loads(OpenApiJsonRenderer().render(document)))


schema = _api_schema()


@pytest.fixture(params=["researcher", "worker", "anonymous"])
def role_headers(request, live_server):
    """The request headers of a staff researcher, a crowd worker or nobody."""
    demo_proverbs_load()
    if request.param == "anonymous":
        return {}
    user = request.getfixturevalue("researcher" if request.param == "researcher" else "worker_user")
    return {"Authorization": f"Token {Token.objects.create(user=user).key}"}


@schema.parametrize()
@seed(20260)
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_gives_no_server_error_and_keeps_to_its_schema(case, live_server, role_headers):
    case.call_and_validate(base_url=live_server.url, headers=role_headers)
