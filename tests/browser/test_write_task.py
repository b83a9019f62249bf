"""In Chromium: the write page's live check, drafts, submit failures and retries, escaped
review, and a researcher running a write batch end to end on the embedded default."""

import re

import pytest
from playwright.sync_api import expect

from annotation.models import Narrative
from annotation.text import word_count
from crowd.models import Assignment, Batch
from crowd.workers import invite_token
from tests.browser.helpers import admin_login, guide_picture
from tests.factories import BIRDS, BIRDS_STORY, proverb_create, worker_create, write_batch_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ECHO = (
    "The twins were birds of a feather: whenever the town held a fair, they would flock "
    "to the same stall and argue happily about the same old songs."
)
HOSTILE = (
    'Tom pasted <script>window.__xss = 1</script> and <img src=x onerror="window.__xss = 2"> '
    'and <a href="javascript:window.__xss = 3">a link</a> into the school newsletter, and '
    "his teacher laughed about it for days."
)


@pytest.fixture
def batch():
    return write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=3)


def open_task(page, live_server, batch, worker=None):
    """Enter through the worker's invite link and wait for the page's module to be ready."""
    worker = worker or worker_create()
    page.goto(f"{live_server.url}/w/{invite_token(worker=worker, batch=batch)}/")
    page.wait_for_selector("body[data-ready=true]", state="attached")
    return Assignment.objects.get(worker=worker, item__batch=batch)


def watch_for_script_runs(page) -> list:
    """Dialogs opened by the page: worker text must never open one."""
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    return dialogs


def test_echoed_proverb_blocks_submit_with_the_reason_then_the_edit_goes_through(
    live_server, page, batch
):
    open_task(page, live_server, batch)
    expect(page.locator("#proverb")).to_have_text(BIRDS)
    page.locator("#narrative").press_sequentially(ECHO)

    submit = page.locator("#submit")
    expect(submit).to_be_disabled()
    violations = page.locator("#violations li")
    expect(violations.first).to_have_text(
        'Your story repeats the phrase "birds of a feather" from the proverb. Rephrase it.'
    )
    expect(violations.nth(1)).to_have_text(
        "Your story shares 3 words with the proverb (birds, feather, flock); at most 2 are allowed."
    )
    expect(page.locator("#word-count")).to_have_text("28")
    # The meter counts what the rules count: 3 proverb words (small ones left out), a
    # phrase of 4; the lone "a" of "held a fair" counts for neither and is not marked.
    expect(page.locator("#shared-count")).to_have_text("3")
    expect(page.locator("#shared-count")).to_have_class(re.compile(r"\bbad\b"))
    expect(page.locator("#phrase-length")).to_have_text("4")
    expect(page.locator("#shared-words")).to_have_text("birds, feather, flock")
    marks = page.locator("#backdrop mark").all_inner_texts()
    assert marks == ["birds", "of", "a", "feather", "flock"]
    guide_picture(page, "write-task", element=page.locator("#task"))

    page.fill("#narrative", BIRDS_STORY)
    expect(violations).to_have_count(0)
    expect(submit).to_be_enabled()
    expect(page.locator("#timer")).to_be_visible()
    submit.click()
    expect(page.locator("#status")).to_contain_text("your story is stored")
    expect(page.locator("#timer")).to_be_hidden()
    expect(page.locator(".return-form")).to_be_hidden()
    narrative = Narrative.objects.get()
    assert narrative.text == BIRDS_STORY
    assert narrative.status == Narrative.Status.SUBMITTED


def test_meter_counts_words_against_the_bounds_while_typing(live_server, page, batch):
    open_task(page, live_server, batch)
    page.locator("#narrative").press_sequentially("Maya met Leo")
    expect(page.locator("#word-count")).to_have_text("3")
    expect(page.locator("#word-count")).to_have_class(re.compile(r"\bbad\b"))
    expect(page.locator("#violations li")).to_have_text(
        "Your story has 3 words; write at least 20."
    )
    page.locator("#narrative").press_sequentially(BIRDS_STORY[len("Maya met Leo") :])
    expect(page.locator("#word-count")).to_have_text("30")
    expect(page.locator("#word-count")).not_to_have_class(re.compile(r"\bbad\b"))


def test_reload_mid_writing_restores_the_draft(live_server, page, batch):
    assignment = open_task(page, live_server, batch)
    half = BIRDS_STORY[:60]
    page.locator("#narrative").press_sequentially(half)
    expect(page.locator("#draft-state")).to_have_text("Draft saved in this browser.")
    page.reload()
    page.wait_for_selector("body[data-ready=true]", state="attached")
    expect(page.locator("#narrative")).to_have_value(half)
    expect(page.locator("#draft-state")).to_have_text("Your draft was restored.")
    expect(page.locator("#word-count")).to_have_text(str(word_count(half)))
    assert page.url.endswith(f"/tasks/a/{assignment.pk}/")


def test_double_click_stores_one_narrative(live_server, page, batch):
    open_task(page, live_server, batch)
    requests_sent = []
    page.on(
        "request",
        lambda request: requests_sent.append(request.url) if "/submit/" in request.url else None,
    )
    page.fill("#narrative", BIRDS_STORY)
    page.dblclick("#submit")
    expect(page.locator("#status")).to_contain_text("your story is stored")
    expect(page.locator("[data-testid=next-link]")).to_be_visible()
    assert Narrative.objects.count() == 1
    assert len(requests_sent) == 1
    # The draft is gone once stored: a reload shows the stored story.
    page.reload()
    expect(page.locator("[data-testid=submitted-text]")).to_have_text(BIRDS_STORY)


def test_two_submit_requests_at_once_store_one_narrative(live_server, page, batch):
    assignment = open_task(page, live_server, batch)
    replies = page.evaluate(
        """async (text) => {
          const config = JSON.parse(document.getElementById("task-config").textContent);
          const token = document.querySelector("input[name=csrfmiddlewaretoken]").value;
          const send = () => fetch(config.submit_url, {
            method: "POST",
            headers: {"Content-Type": "application/json", "X-CSRFToken": token},
            body: JSON.stringify({payload: {text}, submission_key: "same-key"}),
          }).then(async (response) => ({status: response.status, body: await response.json()}));
          return Promise.all([send(), send()]);
        }""",
        BIRDS_STORY,
    )
    assert [reply["status"] for reply in replies] == [200, 200]
    assert sorted(reply["body"]["replayed"] for reply in replies) == [False, True]
    assert replies[0]["body"]["result"] == replies[1]["body"]["result"]
    assert Narrative.objects.filter(assignment=assignment).count() == 1


def test_second_tabs_submit_is_refused_and_its_text_kept(live_server, page, batch):
    assignment = open_task(page, live_server, batch)
    second = page.context.new_page()
    second.goto(f"{live_server.url}/tasks/a/{assignment.pk}/")
    second.wait_for_selector("body[data-ready=true]", state="attached")
    page.fill("#narrative", BIRDS_STORY)
    page.click("#submit")
    expect(page.locator("#status")).to_contain_text("your story is stored")
    other_story = BIRDS_STORY.replace("Maya", "Lena")
    second.fill("#narrative", other_story)
    second.click("#submit")
    expect(second.locator("#status")).to_contain_text("already submitted from another window")
    expect(second.locator("#narrative")).to_have_value(other_story)
    draft = second.evaluate("(key) => localStorage.getItem(key)", f"parable:draft:{assignment.pk}")
    assert draft is not None and "Lena" in draft
    assert Narrative.objects.get(assignment=assignment).text == BIRDS_STORY


def test_network_failure_keeps_the_text_and_says_so_then_retry_succeeds(live_server, page, batch):
    open_task(page, live_server, batch)
    page.fill("#narrative", BIRDS_STORY)
    page.route("**/submit/", lambda route: route.abort("internetdisconnected"))
    page.click("#submit")
    expect(page.locator("#status")).to_contain_text("the server could not be reached")
    expect(page.locator("#narrative")).to_have_value(BIRDS_STORY)
    expect(page.locator("#submit")).to_be_enabled()
    assert not Narrative.objects.exists()

    page.unroute("**/submit/")
    page.route("**/submit/", lambda route: route.fulfill(status=502, body="Bad gateway"))
    page.click("#submit")
    expect(page.locator("#status")).to_contain_text("The server had a problem")
    expect(page.locator("#narrative")).to_have_value(BIRDS_STORY)

    page.unroute("**/submit/")
    page.click("#submit")
    expect(page.locator("#status")).to_contain_text("your story is stored")
    assert Narrative.objects.get().text == BIRDS_STORY


def test_server_refusal_is_shown_with_its_reason(live_server, page, batch):
    assignment = open_task(page, live_server, batch)
    page.fill("#narrative", BIRDS_STORY)
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.RETURNED)
    page.click("#submit")
    expect(page.locator("#status")).to_contain_text("This task was given back")
    expect(page.locator("#narrative")).to_have_value(BIRDS_STORY)


def test_worker_html_shows_as_text_on_the_task_page_and_in_review(
    live_server, page, browser, batch, researcher
):
    dialogs = watch_for_script_runs(page)
    worker = worker_create(display_name='<img src=x onerror="window.__xss = 4">Eve')
    open_task(page, live_server, batch, worker)
    page.fill("#narrative", HOSTILE)
    expect(page.locator("#submit")).to_be_enabled()
    page.click("#submit")
    expect(page.locator("#status")).to_contain_text("your story is stored")
    page.reload()
    expect(page.locator("[data-testid=submitted-text]")).to_have_text(HOSTILE)
    narrative = Narrative.objects.get()

    reviewer_page = browser.new_context().new_page()
    dialogs += watch_for_script_runs(reviewer_page)
    admin_login(reviewer_page, live_server, researcher)
    for path in (
        "/admin/annotation/narrative/",
        f"/admin/annotation/narrative/{narrative.pk}/change/",
        f"/admin/crowd/worker/stats/?batch={batch.pk}",
    ):
        reviewer_page.goto(f"{live_server.url}{path}")
        reviewer_page.wait_for_selector("#content")
        assert reviewer_page.evaluate("window.__xss") is None, path
        assert reviewer_page.locator('#content a[href^="javascript:"]').count() == 0, path
        assert reviewer_page.locator("#content img[src=x]").count() == 0, path
        if "/change/" in path:
            expect(reviewer_page.locator(".narrative-text")).to_have_text(HOSTILE)
    expect(reviewer_page.locator("#worker-stats")).to_contain_text(
        '<img src=x onerror="window.__xss = 4">Eve'
    )
    assert page.evaluate("window.__xss") is None
    assert dialogs == []


def test_researcher_runs_a_write_batch_end_to_end(live_server, page, browser, researcher):
    texts = [
        "Time is money",
        "Haste makes waste",
        "Actions speak louder than words",
        "Honesty is the best policy",
        BIRDS,
    ]
    for text in texts:
        proverb_create(text)
    admin_login(page, live_server, researcher)

    # A write batch for 5 curated proverbs at 3 narratives each, published.
    page.goto(f"{live_server.url}/admin/crowd/batch/add/")
    page.get_by_role("link", name="New write narratives batch").click()
    page.fill("#id_name", "Pilot")
    page.click("#id_proverbs_add_all")
    page.fill("#id_target_per_item", "3")
    page.fill("#id_per_worker_cap", "5")
    guide_picture(page, "write-batch-form", element=page.locator("#content"))
    page.click("input[type=submit]")
    expect(page.locator("[data-testid=target-total]")).to_have_text("15")
    batch = Batch.objects.get()
    assert batch.status == Batch.Status.PUBLISHED

    # Three worker links, each opened in its own browser.
    page.get_by_role("link", name="Create worker links").click()
    page.fill("#id_count", "3")
    page.click("input[type=submit]")
    invite_links = page.locator("[data-testid=invite-link]")
    expect(invite_links).to_have_count(3)  # the click returns once the next page starts loading
    guide_picture(page, "worker-links", element=page.locator("#content"))
    links = [element.input_value() for element in invite_links.all()]
    workers = []
    for number, link in enumerate(links):
        worker_page = browser.new_context().new_page()
        worker_page.goto(link)
        worker_page.wait_for_selector("body[data-ready=true]", state="attached")
        proverb = worker_page.inner_text("#proverb")
        if number == 0:  # echoing the proverb is explained live
            worker_page.fill("#narrative", f"{proverb}, said my grandmother.")
            expect(worker_page.locator("#violations li").first).to_contain_text(
                f'repeats the phrase "{proverb.lower()}"'
            )
            expect(worker_page.locator("#submit")).to_be_disabled()
        worker_page.fill("#narrative", BIRDS_STORY)
        worker_page.click("#submit")
        expect(worker_page.locator("#status")).to_contain_text("your story is stored")
        workers.append(worker_page)
    assert Narrative.objects.count() == 3

    # Review: approve two, reject one with a message.
    page.goto(f"{live_server.url}/admin/annotation/narrative/?batch={batch.pk}")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(3)
    rows.nth(0).locator("input.action-select").check()
    rows.nth(1).locator("input.action-select").check()
    page.select_option("select[name=action]", "approve_selected")
    page.click("button[name=index]")
    expect(page.locator(".messagelist")).to_contain_text("2 submission(s) approved.")
    page.locator("#result_list tbody tr").nth(2).locator("input.action-select").check()
    page.select_option("select[name=action]", "reject_selected")
    page.click("button[name=index]")
    page.fill("#id_reason", "Please tell a story with people in it.")
    page.click("input[type=submit]")
    expect(page.locator(".messagelist")).to_contain_text("1 submission(s) rejected")
    guide_picture(page, "narrative-review-list", element=page.locator("#content"))

    # Progress and keywords.
    page.goto(f"{live_server.url}/admin/crowd/batch/{batch.pk}/progress/")
    expect(page.locator("[data-testid=approved-total]")).to_have_text("2")
    guide_picture(page, "batch-progress", element=page.locator("#content"))
    approved = Narrative.objects.filter(status="approved").first()
    page.goto(f"{live_server.url}/admin/annotation/narrative/{approved.pk}/change/")
    expect(page.locator(".field-keyword_list")).to_contain_text("verbs: meet, discover, love")
    rejected = Narrative.objects.get(status="rejected")
    assert rejected.review_message == "Please tell a story with people in it."
