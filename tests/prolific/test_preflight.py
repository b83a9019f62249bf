"""The pre-flight's public URL check and publishing gated on it: participants must reach
PARABLE_PUBLIC_URL and it must answer as this deployment; only a trial against the
stand-in (PROLIFIC_LOCAL_TRIAL beside a stand-in's PROLIFIC_API_URL) takes a local one."""

import pytest

from crowd.models import Batch
from prolific.client import ProlificError
from prolific.preflight import Failed, public_url_reached, study_publish_confirmed
from prolific.studies import study_cost
from tests.prolific.helpers import write_study

pytestmark = pytest.mark.django_db(transaction=True)


def refusal() -> str:
    """Why the public URL check fails (it must)."""
    with pytest.raises(Failed) as failed:
        public_url_reached()
    return str(failed.value)


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://127.0.0.1:8000", "is a loopback address (127.0.0.1), which no one outside"),
        ("http://localhost:8000", "is a loopback address"),
        ("https://10.20.30.40", "is a private address (10.20.30.40), which no one outside"),
        ("https://192.168.1.20:8443", "is a private address (192.168.1.20"),
        ("https://169.254.10.20", "is a link-local address (169.254.10.20"),
        ("https://[::1]:8000", "is a loopback address (::1"),
        ("", "PARABLE_PUBLIC_URL is not set"),
    ],
)
def test_an_address_participants_cannot_reach_fails_and_says_how_to_fix_it(
    standin, settings, url, said
):
    settings.PROLIFIC_LOCAL_TRIAL = False
    settings.PARABLE_PUBLIC_URL = url
    detail = refusal()
    assert said in detail
    assert "Set PARABLE_PUBLIC_URL to the https address participants reach" in detail


def test_publishing_is_refused_while_participants_cannot_reach_the_study(standin, settings):
    settings.PROLIFIC_LOCAL_TRIAL = False
    settings.PARABLE_PUBLIC_URL = "http://127.0.0.1:8000"
    study = write_study(publish=False).prolific_study
    cost = round(study_cost(study=study)["total_cost"])
    with pytest.raises(
        ProlificError, match=r"Public URL: PARABLE_PUBLIC_URL is http://127\.0\.0\.1"
    ):
        study_publish_confirmed(study=study, cost_cents=cost)
    assert standin.state.studies == {}  # no draft, nothing spent
    assert Batch.objects.get(pk=study.batch_id).status == Batch.Status.DRAFT


def test_the_trial_allowance_takes_a_local_address_that_answers_as_this_deployment(
    standin, reachable
):
    assert public_url_reached() == f"{reachable.url} answers as this deployment (a local trial)."
    study = write_study(publish=False).prolific_study
    cost = round(study_cost(study=study)["total_cost"])
    assert study_publish_confirmed(study=study, cost_cents=cost).status == Batch.Status.PUBLISHED


def test_the_trial_allowance_is_refused_beside_prolifics_own_api(standin, settings, reachable):
    settings.PROLIFIC_API_URL = "https://api.prolific.com/api/v1/"
    detail = refusal()
    assert "is a loopback address" in detail
    assert "PROLIFIC_LOCAL_TRIAL holds only beside the stand-in" in detail


def test_an_address_that_answers_as_something_else_fails(standin, settings):
    settings.PARABLE_PUBLIC_URL = standin.url  # the stand-in answers there, not Parable
    detail = refusal()
    assert f"{standin.url}/healthz answered 404, not as this deployment of Parable" in detail


def test_an_address_where_nothing_answers_fails(standin):
    detail = refusal()  # http://127.0.0.1:9, under the trial's allowance
    assert "http://127.0.0.1:9/healthz could not be reached (ConnectionError)" in detail
