"""schemathesis against the live application on PostgreSQL, with a staff researcher's token:
every operation, every check, a fixed seed and a bounded number of examples. Any server
error or answer that breaks the OpenAPI schema fails the test.

Every check runs except the two that judge request validation rather than answers:
positive_data_acceptance counts a refusal no schema can foresee (a wrong password, an id
that names nothing, a proverb without words) as a failure, and negative_data_rejection
counts DRF's coercions (the number 0 accepted as the text "0") as one; the ranges that
matter (ids, counts, limit and offset) have their own tests. bench/api_fuzz/run.py runs
all checks at 10,000+ cases and reports each.
"""

import json

import pytest
import schemathesis
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, seed, settings
from rest_framework.authtoken.models import Token
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from annotation.curation.demo import demo_proverbs_load

pytestmark = pytest.mark.django_db(transaction=True)
EXAMPLES_PER_OPERATION = 6


def _api_schema():
    """The schema the application serves at /api/schema/, built in-process (no database)."""
    document = SchemaGenerator().get_schema(request=None, public=True)
    return schemathesis.openapi.from_dict(json.loads(OpenApiJsonRenderer().render(document)))


schema = _api_schema()


@pytest.fixture
def staff_token(live_server, researcher):
    demo_proverbs_load()
    return Token.objects.create(user=researcher).key


@schema.parametrize()
@seed(20260)
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_gives_no_server_error_and_keeps_to_its_schema(case, live_server, staff_token):
    case.call_and_validate(
        base_url=live_server.url,
        headers={"Authorization": f"Token {staff_token}"},
        excluded_checks=[positive_data_acceptance, negative_data_rejection],
    )
