"""In Chromium: the dashboard shows a queued analysis's progress, then the fresh result."""

import pytest
from playwright.sync_api import expect

from annotation.analysis.jobs import analysis_compute, analysis_scope, dataset_state_key, scope_key
from annotation.models import DatasetAnalysis
from tests.browser.helpers import guide_picture
from tests.factories import crowd_narrative_create, proverb_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_progress_of_a_running_analysis_then_its_result(live_server, page, researcher):
    crowd_narrative_create(proverb=proverb_create("Time is money"), text="Raj lost an hour.")
    scope = analysis_scope()
    analysis = DatasetAnalysis.objects.create(  # queued, as a worker has not taken it yet
        scope_key=scope_key(scope),
        scope=scope,
        status=DatasetAnalysis.Status.QUEUED,
        job_state=dataset_state_key(),
    )
    page.goto(f"{live_server.url}/admin/dataset/")
    page.fill("#id_username", "researcher")
    page.fill("#id_password", "researcher-pass")
    page.click("input[type=submit]")
    expect(page.locator("#analysis-job")).to_contain_text("No result yet")
    expect(page.locator("[data-job-stage]")).to_have_text("Waiting for a worker…")
    DatasetAnalysis.objects.filter(pk=analysis.pk).update(
        status=DatasetAnalysis.Status.RUNNING,
        progress_done=3,
        progress_total=10,
        progress_stage="tokens",
    )
    expect(page.locator("[data-job-stage]")).to_have_text("tokens 3 of 10")
    expect(page.locator("#analysis-job progress")).to_have_attribute("value", "3")
    analysis_compute(analysis_id=analysis.pk)
    expect(page.locator("h2", has_text="Collection")).to_be_visible()
    expect(page.locator("[data-testid=computed-at]")).to_be_visible()
    expect(page.locator("[data-job-progress]")).to_be_hidden()
    guide_picture(page, "dataset-dashboard", element=page.locator(".dataset-section").first)
