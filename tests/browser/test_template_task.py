"""In Chromium: two realistic MTurk HIT templates, one of each shape, run end to end on the
local crowd and through the Prolific stand-in; then review, bonus, agreement and the results
CSV, checked column by column."""

import csv
import io

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from annotation.task_types.template.models import TemplateAnswer
from annotation.task_types.template.results import HIT_COLUMNS
from common.pseudonyms import WorkerPseudonyms, export_salt
from crowd.batches import batch_publish
from crowd.models import Assignment, Batch, Bonus
from prolific.models import ParticipantSession
from tests.annotation.task_types.template.helpers import (
    LAYOUT,
    PAGE,
    PAIRS,
    REVIEWS,
    template_batch,
)
from tests.browser.helpers import admin_login, csp_violations, guide_picture, page_troubles
from tests.browser.template_helpers import MTURK_HELPER, cdn_standin, hit_frame
from tests.factories import invite_path, worker_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def draft_kept(page, text: str) -> None:
    """Wait until the draft this browser keeps for the page holds `text`."""
    key = f"parable:draft:{Assignment.objects.get(status='reserved').pk}"
    page.wait_for_function(
        "([key, text]) => (localStorage.getItem(key) || '').includes(text)", arg=[key, text]
    )


@pytest.fixture
def context(browser):
    context = browser.new_context()
    context.set_default_timeout(15_000)
    yield context
    context.close()


def test_a_requester_layout_runs_on_the_local_crowd_and_its_draft_survives_a_reload(
    live_server, context
):
    batch = batch_publish(batch=template_batch(target_per_item=2))
    asked = cdn_standin(context)
    page = context.new_page()
    troubles, violations = page_troubles(page), csp_violations(page)
    page.goto(live_server.url + invite_path(worker=worker_create(), batch=batch))
    frame = hit_frame(page)
    expect(frame.locator("#review-text")).to_contain_text("battery barely lasts an hour")
    expect(frame.locator("#source")).to_have_attribute("title", "Collected from amazon.com")
    expect(frame.locator("input[name=sentiment][value=neutral]")).to_be_checked()
    frame.locator("input[name=sentiment][value=positive]").check()
    frame.locator("input[name=on_topic][value=yes]").check()
    frame.locator("select[name=topic]").select_option("electronics")
    frame.locator("input[name=aspects][value=price]").check()
    frame.locator("input[name=aspects][value=quality]").check()
    frame.locator("#explanation").press_sequentially("Fast delivery, weak battery")
    expect(page.get_by_test_id("draft-state")).to_have_text("Draft saved in this browser.")
    draft_kept(page, "weak battery")

    page.reload()
    frame = hit_frame(page)
    expect(page.get_by_test_id("draft-state")).to_have_text("Your draft was restored.")
    expect(frame.locator("input[name=sentiment][value=positive]")).to_be_checked()
    expect(frame.locator("#explanation")).to_have_value("Fast delivery, weak battery")
    frame.locator("#explanation").press_sequentially(", overall good.")
    frame.locator("#submitButton").click()
    expect(page.locator("#status")).to_contain_text("your answer is stored")
    expect(page.get_by_test_id("next-link")).to_be_visible()

    answer = TemplateAnswer.objects.get()
    assert answer.assignment.status == Assignment.Status.SUBMITTED
    assert {k: v for k, v in answer.answers.items() if k != "read_seconds"} == {
        "sentiment": "positive",
        "on_topic": "yes",
        "topic": "electronics",
        "aspects": "price|quality",
        "explanation": "Fast delivery, weak battery, overall good.",
    }
    assert answer.answers["read_seconds"].isdigit()  # filled by the template's jQuery on submit
    record = answer.writing["explanation"]
    assert record["typed"] == len("Fast delivery, weak battery, overall good.")
    assert set(answer.away) == {"tab_switches", "hidden_ms", "blurs", "blurred_ms"}
    assert MTURK_HELPER not in asked and "https://code.jquery.com/jquery-3.7.1.min.js" in asked
    assert troubles == [] and violations == []


def second_worker_answers(context, live_server, batch):
    """Another worker on the same review: the pre-checked "Neutral" left as it came."""
    page = context.new_page()
    page.goto(live_server.url + invite_path(worker=worker_create(), batch=batch))
    frame = hit_frame(page)
    expect(frame.locator("#review-text")).to_contain_text("battery barely lasts an hour")
    frame.locator("input[name=on_topic][value=no]").check()
    frame.locator("select[name=topic]").select_option("electronics")
    frame.locator("#explanation").press_sequentially("It mixes good and bad.")
    guide_picture(page, "template-task")
    frame.locator("#submitButton").click()
    expect(page.locator("#status")).to_contain_text("your answer is stored")
    page.close()


def test_the_researcher_reviews_pays_once_and_downloads_mturks_results(
    live_server, context, researcher
):
    cdn_standin(context)
    page = context.new_page()
    admin_login(page, live_server, researcher)
    page.goto(f"{live_server.url}/admin/crowd/batch/new/template/")
    page.fill("#id_name", "Product reviews")
    one_review = b"\r\n".join(REVIEWS.split(b"\r\n")[:2])  # both workers on the same HIT
    for field, name, content in (
        ("template_file", "sentiment.html", LAYOUT.encode()),
        ("csv_file", "reviews.csv", one_review),
    ):
        upload = {"name": name, "mimeType": "text/plain", "buffer": content}
        page.set_input_files(f"#id_{field}", upload)
    page.fill("#id_target_per_item", "2")
    page.fill("#id_reward", "0.40")
    page.click("input[type=submit]")
    report = page.locator("ul.messagelist")
    expect(report).to_contain_text("Warning: radio groups that come checked")
    guide_picture(page, "template-upload", element=report)
    batch = Batch.objects.get()
    assert batch.status == Batch.Status.PUBLISHED and batch.items.count() == 1
    page.context.clear_cookies()
    page.goto(live_server.url + invite_path(worker=worker_create(), batch=batch))
    frame = hit_frame(page)
    frame.locator("input[name=sentiment][value=positive]").check()
    frame.locator("input[name=aspects][value=price]").check()
    frame.locator("#explanation").press_sequentially("Cheap and fast.")
    frame.locator("#submitButton").click()
    expect(page.locator("#status")).to_contain_text("your answer is stored")
    second_worker_answers(context, live_server, batch)

    admin_login(page, live_server, researcher)
    page.goto(f"{live_server.url}/admin/review/{batch.pk}/")
    expect(page.get_by_test_id("answer-fields")).to_contain_text("Cheap and fast.")
    shown = page.frame_locator("[data-testid=answer-frame]")
    expect(shown.locator("input[name=sentiment][value=positive]")).to_be_checked()
    expect(shown.locator("#explanation")).to_be_disabled()
    expect(shown.locator("#review-text")).to_contain_text("battery barely lasts an hour")
    guide_picture(page, "template-review", element=page.locator("#submission"))
    page.keyboard.press("a")
    expect(page.locator("#queue-status")).to_have_text("Approved.")
    expect(page.get_by_test_id("answer-fields")).to_contain_text("It mixes good and bad.")
    page.keyboard.press("p")
    page.fill("#bonus-amount", "0.30")
    page.fill("#reason-text", "A careful reading")
    page.keyboard.press("Enter")
    page.wait_for_selector("#queue-status:has-text('bonus of 0.30')")
    assert Bonus.objects.get().cents == 30
    from crowd.review import BonusAlreadyPaid, assignment_bonus

    with pytest.raises(BonusAlreadyPaid):  # the same bonus asked again: paid once
        assignment_bonus(
            assignment=Bonus.objects.get().assignment, cents=30, reason="A careful reading"
        )
    assert Bonus.objects.count() == 1

    page.goto(f"{live_server.url}/admin/agreement/{batch.pk}/")
    fields = page.get_by_test_id("template-fields")
    expect(fields.locator("tr[data-field=sentiment] [data-testid=alpha]")).to_have_text("—")
    majority = page.get_by_test_id("template-majority")
    expect(majority).to_contain_text("tie: neutral / positive")
    expect(majority).to_contain_text("tie: (none) / electronics")  # one left the select as it was
    guide_picture(page, "template-agreement", element=page.locator("#content"))
    href = page.get_attribute("[data-testid=results-csv]", "href")
    rows = list(csv.DictReader(io.StringIO(page.request.get(live_server.url + href).text())))
    assert list(rows[0])[: len(HIT_COLUMNS)] == list(HIT_COLUMNS)
    by_status = {row["AssignmentStatus"]: row for row in rows}
    assert set(by_status) == {"Approved"}
    first, second_row = rows
    assert (first["Answer.sentiment"], first["Answer.aspects"]) == ("positive", "price")
    assert (second_row["Answer.sentiment"], second_row["Answer.on_topic"]) == ("neutral", "no")
    assert first["Input.review_id"] == second_row["Input.review_id"] == "R1001"
    assert first["Reward"] == "0.40" and first["MaxAssignments"] == "2"
    assert int(first["WorkTimeInSeconds"]) >= 0 and first["Answer.read_seconds"].isdigit()
    assert first["WorkerId"] != second_row["WorkerId"] and len(first["WorkerId"]) == 16


@pytest.fixture
def prolific(settings, live_server):
    from tests.prolific.conftest import standin_wired

    server = standin_wired(settings, page_size=2)
    settings.PARABLE_PUBLIC_URL = live_server.url
    yield server
    server.stop()


def test_a_whole_htmlquestion_page_runs_on_prolific_unedited(
    live_server, context, researcher, prolific
):
    from prolific.preflight import study_publish_confirmed
    from prolific.studies import study_cost, study_prepare

    batch = template_batch(
        source=PAGE,
        content=PAIRS,
        name="Entailment",
        provider="prolific",
        target_per_item=1,
        reward_cents=50,
    )
    study = study_prepare(batch=batch, items_per_session=2, estimated_minutes=4)
    study_publish_confirmed(study=study, cost_cents=round(study_cost(study=study)["total_cost"]))
    call_command("prolific_subscribe")
    asked = cdn_standin(context)
    page = context.new_page()
    troubles = page_troubles(page)
    page.goto(f"{prolific.url}/_standin/take/{batch.prolific_study.study_id}/?participant=p1")
    frame = hit_frame(page)
    expect(frame.locator("#premise")).to_have_text("A man is playing a guitar on stage.")
    frame.locator("#submitButton").click()  # its onclick: no answer chosen yet
    expect(frame.locator("#warning")).to_be_visible()
    assert not TemplateAnswer.objects.exists()
    frame.locator("input[name=label][value=entailment]").check()
    frame.locator("select[name=confidence]").select_option("5")
    frame.locator("input[name=cues][value=world]").check()
    frame.locator("#rewrite").press_sequentially("A person plays music on stage.")
    frame.locator("#submitButton").click()
    expect(page.locator("#status")).to_contain_text("your answer is stored")
    page.get_by_test_id("next-link").click()

    frame = hit_frame(page)
    expect(frame.locator("#premise")).to_contain_text("Two dogs run through the snow")
    frame.locator("input[name=label][value=contradiction]").check()
    frame.locator("#submitButton").click()
    expect(page.locator("#status")).to_contain_text("your answer is stored")
    page.get_by_test_id("next-link").click()
    expect(page.locator("#code")).to_have_text(batch.prolific_study.completion_code)

    first = TemplateAnswer.objects.get(row__position=1)
    salted = WorkerPseudonyms(export_salt())(f"prolific:{first.assignment.worker.external_id}")
    assert first.answers == {
        "workerId": salted,  # filled by the page's own turkGetParam
        "confidence_clicks": "p1:1:captions",  # its onclick, with ${pair_id} and ${meta}
        "label": "entailment",
        "confidence": "5",
        "cues": "world",
        "rewrite": "A person plays music on stage.",
    }
    assert first.writing["rewrite"]["typed"] == len("A person plays music on stage.")
    assert MTURK_HELPER not in asked and troubles == []
    session = ParticipantSession.objects.get()
    assert session.submission.status == "AWAITING REVIEW"

    admin_login(page, live_server, researcher)
    page.goto(f"{live_server.url}/admin/review/{batch.pk}/")
    expect(page.get_by_test_id("answer-fields")).to_contain_text("entailment")
    page.keyboard.press("a")
    expect(page.locator("#queue-status")).to_have_text("Approved.")
    expect(page.get_by_test_id("answer-fields")).to_contain_text("contradiction")
    page.keyboard.press("p")
    page.fill("#bonus-amount", "0.50")
    page.fill("#reason-text", "Clear rewrites")
    page.keyboard.press("Enter")
    page.wait_for_selector("#queue-status:has-text('bonus of 0.50')")
    assert [payment["cents"] for payment in prolific.state.payments] == [50]
    assert Assignment.objects.filter(status=Assignment.Status.APPROVED).count() == 2
