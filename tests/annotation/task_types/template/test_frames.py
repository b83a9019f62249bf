"""The template's frame: a document of its own origin under a sandboxing policy, reached only
with its capability; Parable's page around it keeps its strict policy."""

import re

import pytest
from django.core import signing

from annotation.task_types.template.frames import SALT
from common.pseudonyms import WorkerPseudonyms, export_salt
from crowd.batches import batch_publish
from crowd.models import Assignment
from tests.annotation.task_types.template.helpers import template_batch
from tests.factories import invite_path, worker_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def opened(client):
    """A worker's first task of a published batch of the layout fixture: (page, assignment)."""
    batch = batch_publish(batch=template_batch())
    worker = worker_create()
    client.get(invite_path(worker=worker, batch=batch), follow=True)
    assignment = Assignment.objects.get(worker=worker)
    return client.get(f"/tasks/a/{assignment.pk}/").content.decode(), assignment


def frame_src(page: str) -> str:
    return (
        re.search(r'<iframe id="hit-frame"[^>]* src="([^"]+)"', page).group(1).replace("&amp;", "&")
    )


def test_the_task_page_holds_the_template_in_a_sandboxed_frame_and_keeps_its_policy(client, opened):
    page, assignment = opened
    frame = re.search(r'<iframe id="hit-frame"[^>]*>', page).group(0)
    assert 'sandbox="allow-scripts allow-forms allow-modals allow-popups"' in frame
    assert "allow-same-origin" not in page and "allow-top-navigation" not in page
    policy = client.get(f"/tasks/a/{assignment.pk}/")["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy.split("style-src")[0]


def test_the_frames_address_carries_mturks_parameters_and_a_salted_worker_id(opened):
    page, assignment = opened
    src = frame_src(page)
    worker = assignment.worker
    salted = WorkerPseudonyms(export_salt())(f"{worker.provider}:{worker.external_id}")
    assert f"assignmentId={assignment.pk}&hitId={assignment.item_id}&workerId={salted}" in src
    assert worker.external_id not in src


def test_the_frame_runs_under_a_sandbox_of_its_own_origin(client, opened):
    response = client.get(frame_src(opened[0]))
    policy = response["Content-Security-Policy"]
    assert "sandbox allow-scripts allow-forms allow-modals allow-popups" in policy
    assert "allow-same-origin" not in policy
    assert "form-action 'none'" in policy and "frame-ancestors 'self'" in policy
    assert "default-src * data: blob: 'unsafe-inline' 'unsafe-eval'" in policy
    assert "script-src" not in policy  # the template's own scripts come from the web
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    assert response["Referrer-Policy"] == "no-referrer"
    assert response["Cache-Control"] == "no-store"


def test_the_frame_holds_the_rows_values_and_the_runtime_first(client, opened):
    document = client.get(frame_src(opened[0])).content.decode()
    assert "Arrived in two days and works great" in document
    assert 'var reviewSource = "amazon.com";' in document
    assert document.index("window.parableFrame = {") < document.index("bootstrap.min.css")
    assert '"free_text": ["explanation"]' in document and '"mode": "work"' in document


def test_a_forged_or_altered_capability_finds_nothing(client, opened):
    src = frame_src(opened[0])
    token = src.split("/")[3]
    assert client.get(src.replace(token, token[:-2] + "xx")).status_code == 404
    claim = signing.loads(token, salt=SALT)
    other = signing.dumps({**claim, "m": "review"}, salt="another.salt")
    assert client.get(src.replace(token, other)).status_code == 404


def test_the_review_frame_needs_a_reviewer(client, reviewer, opened):
    from crowd.assignments import assignment_submit

    _, assignment = opened
    assignment_submit(assignment=assignment, payload={"fields": [["sentiment", "negative"]]})
    claim = {"m": "review", "i": assignment.item_id, "a": assignment.pk}
    url = f"/tasks/frame/{signing.dumps(claim, salt=SALT, compress=True)}/"
    assert client.get(url).status_code == 404  # the worker's browser
    client.force_login(reviewer)
    document = client.get(url).content.decode()
    assert '"mode": "review"' in document and '"answers": {"sentiment": "negative"}' in document


def test_a_staff_preview_shows_the_frame_of_a_sample_row_and_stores_nothing(client, researcher):
    batch = template_batch()
    client.force_login(researcher)
    page = client.get(f"/tasks/preview/{batch.pk}/").content.decode()
    document = client.get(frame_src(page)).content.decode()
    assert "Arrived in two days and works great" in document
    assert not Assignment.objects.exists()  # the preview's assignment was rolled back
