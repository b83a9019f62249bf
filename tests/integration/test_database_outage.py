"""A database outage under requests: the suite's PostgreSQL is stopped and started again
while gunicorn is asked, again and again, for a worker's task page and the API. Every
answer is the page or a 503 with Retry-After and a plain message, never a 500; in Chromium,
the worker's submit during the outage keeps the story, the page reloaded then says to come
back, and reloaded after it restores the draft, which is then submitted once."""

from __future__ import annotations

import os
import subprocess
import threading
from urllib.parse import urlsplit

import pytest
import requests
from django.db import connection
from playwright.sync_api import expect
from rest_framework.authtoken.models import Token

from annotation.models import Narrative
from crowd.workers import invite_token
from tests.factories import BIRDS, BIRDS_STORY, proverb_create, worker_create, write_batch_create
from tests.integration.processes import database_url, gunicorn_server, wait_until
from tests.processes import ROOT

pytestmark = [
    pytest.mark.integration,
    pytest.mark.serial,  # the whole suite's PostgreSQL goes down
    pytest.mark.django_db(transaction=True),
]


def postgresql(action: str) -> None:
    """Stop or start the suite's PostgreSQL (tests/services.sh pg-stop, pg-start)."""
    services = os.environ.get("PARABLE_TEST_SERVICES_DIR")
    if not services:
        pytest.fail("PARABLE_TEST_SERVICES_DIR is not set: run the suite with tests/run.sh.")
    done = subprocess.run(
        ["bash", "tests/services.sh", f"pg-{action}", services],
        cwd=ROOT,
        env={**os.environ, "PARABLE_TEST_PG_PORT": str(urlsplit(database_url()).port)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


class Asking(threading.Thread):
    """Asks for one URL again and again until stopped, keeping (status, Retry-After, body)."""

    def __init__(self, session: requests.Session, url: str):
        super().__init__(daemon=True)
        self.session, self.url = session, url
        self.answers: list[tuple[int, str | None, str]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            response = self.session.get(self.url, timeout=60, allow_redirects=False)
            self.answers.append(
                (response.status_code, response.headers.get("Retry-After"), response.text)
            )

    def seen(self, status: int, after: int = 0) -> bool:
        return any(answer[0] == status for answer in self.answers[after:])


def test_a_database_restart_under_requests_answers_503_and_keeps_the_workers_draft(
    browser, researcher, redis_url
):
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=5)
    api = requests.Session()
    api.headers["Authorization"] = f"Token {Token.objects.create(user=researcher).key}"
    worker_page = requests.Session()
    tokens = [invite_token(worker=worker_create(), batch=batch) for _ in range(2)]
    # The embedded default's settings on PostgreSQL: the page's own scripts served, each
    # thread keeping its connection from one request to the next (as production does).
    local = {"DJANGO_SETTINGS_MODULE": "config.settings.local"}
    with gunicorn_server(broker_url=redis_url, env=local) as (url, _):
        task_url = worker_page.get(f"{url}/w/{tokens[0]}/", timeout=60).url
        assert worker_page.get(task_url, timeout=60).status_code == 200
        writer = browser.new_context().new_page()
        writer.set_default_timeout(30_000)
        writer.goto(f"{url}/w/{tokens[1]}/")
        writer.wait_for_selector("body[data-ready=true]", state="attached")
        writer_url = writer.url
        writer.fill("#narrative", BIRDS_STORY)
        expect(writer.locator("#draft-state")).to_have_text("Draft saved in this browser.")
        askers = [Asking(worker_page, task_url), Asking(api, f"{url}/api/batches/")]
        for asker in askers:
            asker.start()
        wait_until(lambda: all(asker.answers for asker in askers), timeout=60, what="answers")

        postgresql("stop")
        wait_until(lambda: all(a.seen(503) for a in askers), timeout=60, what="503s")
        writer.click("#submit")
        expect(writer.locator("#status")).to_contain_text("did not store your work")
        outage = writer.reload()
        assert (outage.status, outage.headers["retry-after"]) == (503, "10")
        expect(writer.locator("[data-testid=unavailable]")).to_contain_text("Try again in 10")

        postgresql("start")
        connection.close()  # this process's connection died with the server
        down = [len(asker.answers) for asker in askers]
        wait_until(
            lambda: all(a.seen(200, n) for a, n in zip(askers, down, strict=True)),
            timeout=60,
            what="answers after the restart",
        )
        writer.goto(writer_url)
        writer.wait_for_selector("body[data-ready=true]", state="attached")
        expect(writer.locator("#narrative")).to_have_value(BIRDS_STORY)
        expect(writer.locator("#draft-state")).to_have_text("Your draft was restored.")
        writer.click("#submit")
        expect(writer.locator("#status")).to_contain_text("your story is stored")
        for asker in askers:
            asker.stop.set()
            asker.join(timeout=60)
    page_answers, api_answers = (asker.answers for asker in askers)
    assert {status for status, _, _ in page_answers + api_answers} == {200, 503}
    for status, retry_after, body in page_answers + api_answers:
        assert status == 200 or (retry_after == "10" and "Try again in 10 seconds" in body)
    assert all('"detail"' in body for status, _, body in api_answers if status == 503)
    assert all("Back in a moment" in body for status, _, body in page_answers if status == 503)
    assert Narrative.objects.filter(text=BIRDS_STORY).count() == 1
