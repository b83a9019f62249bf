"""The opponent's check behind a real Celery worker: gunicorn with a Redis broker queues the
check and answers the page's polls; the worker ranks the proverbs with the run's model and
stores the answer; a story submitted unchecked is answered by the worker after submit."""

import http.cookiejar
import json
import re
import urllib.error
import urllib.request

import pytest

from annotation.models import NarrativeRound
from annotation.opponents.backend import opponent_rank
from crowd.workers import invite_token
from tests.factories import (
    STORIES,
    opponent_run_create,
    proverb_create,
    round_batch_create,
    worker_create,
)
from tests.integration.processes import celery_worker, gunicorn_server, wait_until
from tests.modeling.conftest import tiny_model_folder

pytestmark = pytest.mark.django_db(transaction=True)  # the processes see committed rows only

CHICKENS = "Don't count your chickens before they hatch"


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> str:
    return tiny_model_folder(tmp_path_factory.mktemp("tiny-bert"))


class Browser:
    """A worker's browser on the server: cookies kept, JSON posted with the CSRF token."""

    def __init__(self, url: str):
        self.url = url
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def get(self, path: str) -> tuple[str, str]:
        with self.opener.open(f"{self.url}{path}", timeout=60) as response:
            return response.geturl(), response.read().decode()

    def post(self, path: str, body: dict) -> tuple[int, dict]:
        token = next(cookie.value for cookie in self.cookies if cookie.name == "csrftoken")
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "X-CSRFToken": token},
        )
        try:
            with self.opener.open(request, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())


def test_checks_are_answered_by_the_worker_and_polled_by_the_page(redis_url, tiny_model):
    proverbs = {text: proverb_create(text) for text in STORIES}
    opponent = opponent_run_create(model_name=tiny_model)
    ranked = sorted((p.pk, p.text) for p in proverbs.values())
    orders = opponent_rank(run_id=opponent.pk, proverbs=ranked, texts=STORIES[CHICKENS])
    hits = [order[0][0] == proverbs[CHICKENS].pk for order in orders]
    found = next(s for s, hit in zip(STORIES[CHICKENS], hits, strict=True) if hit)
    fooled = [s for s, hit in zip(STORIES[CHICKENS], hits, strict=True) if not hit]
    batch = round_batch_create(
        proverbs=[proverbs[CHICKENS]],
        opponent={"run": opponent.pk, "mode": "require"},
        target_per_item=2,
    )
    with (
        celery_worker(redis_url) as worker,
        gunicorn_server(broker_url=redis_url) as (url, _),
    ):
        browser = Browser(url)
        page_url, page = browser.get(f"/w/{invite_token(worker=worker_create(), batch=batch)}/")
        assignment = int(re.search(r"/tasks/a/(\d+)/$", page_url).group(1))
        assert 'data-testid="opponent-check"' in page
        check_path = f"/tasks/a/{assignment}/check/"
        status, state = browser.post(check_path, {"opponent": "check", "text": found})
        # The web process only queues the check: the worker answers it, the page polls.
        assert status == 200 and state["status"] == "pending"

        def answered():
            _, polled = browser.post(check_path, {"opponent": "poll", "check": state["check"]})
            return polled if polled["status"] != "pending" else None

        polled = wait_until(answered, timeout=120, what="the worker's answer")
        assert (polled["status"], polled["found"], polled["rank"]) == ("answered", True, 1)
        submit_path = f"/tasks/a/{assignment}/submit/"
        status, refused = browser.post(submit_path, {"payload": {"text": found}})
        assert status == 400 and "still finds the proverb" in refused["error"]
        _, state = browser.post(check_path, {"opponent": "check", "text": fooled[0]})
        state = wait_until(answered, timeout=120, what="the second answer")
        assert state["found"] is False and state["checks_used"] == 2
        status, _ = browser.post(
            submit_path, {"payload": {"text": fooled[0]}, "submission_key": "k"}
        )
        assert status == 200
        record = NarrativeRound.objects.get()
        assert (record.fooled, record.checks, record.submit_check_id) == (True, 2, state["check"])

        # Inform mode: a story submitted without a check is answered after submit.
        inform = round_batch_create(
            proverbs=[proverbs[CHICKENS]], opponent={"run": opponent.pk}, target_per_item=2
        )
        page_url, _ = browser.get(f"/w/{invite_token(worker=worker_create(), batch=inform)}/")
        second = int(re.search(r"/tasks/a/(\d+)/$", page_url).group(1))
        status, _ = browser.post(
            f"/tasks/a/{second}/submit/", {"payload": {"text": fooled[1]}, "submission_key": "k"}
        )
        assert status == 200
        story = NarrativeRound.objects.get(narrative__assignment=second)
        assert story.submit_check.kind == "submit"
        wait_until(
            lambda: NarrativeRound.objects.get(pk=story.pk).fooled is not None,
            timeout=120,
            what="the answer on the submitted story",
        )
        assert worker.poll() is None
    assert NarrativeRound.objects.get(pk=story.pk).fooled is True
