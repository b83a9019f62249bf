"""In Chromium: the continuation page blocks the meaning's words live, a literal-use flag
reaches the researcher's review list, an admin import stores several option pairs, and the
choose-the-continuation page stores a choice."""

import pytest
from playwright.sync_api import expect

from annotation.models import ContinuationPair, FigurativeNarrative
from annotation.task_types.continuation.models import Continuation
from annotation.task_types.continuation_choice.models import ContinuationAnswer
from crowd.models import Assignment
from crowd.workers import invite_token
from tests.browser.helpers import admin_login, guide_picture
from tests.factories import (
    FIGURATIVE_FILES,
    continuation_batch_create,
    figurative_import_fixture,
    figurative_narrative_create,
    task_batch_create,
    worker_create,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PLAUSIBLE = "She slept well and finished everything the next morning."
IMPLAUSIBLE = "She stayed at her desk until sunrise typing all night."


@pytest.fixture
def batch():
    return continuation_batch_create(narratives=[figurative_narrative_create()])


def open_task(page, live_server, batch):
    worker = worker_create()
    page.goto(f"{live_server.url}/w/{invite_token(worker=worker, batch=batch)}/")
    page.wait_for_selector("body[data-ready=true]", state="attached")
    return Assignment.objects.get(worker=worker, item__batch=batch)


def test_words_of_the_meaning_block_submit_live_until_rephrased(live_server, page, batch):
    open_task(page, live_server, batch)
    expect(page.get_by_test_id("expression")).to_have_text("call it a day")
    expect(page.get_by_test_id("meaning")).to_have_text("to stop working on something")
    page.locator("#plausible").press_sequentially("She decided to stop working and rest at home.")
    page.locator("#implausible").fill(IMPLAUSIBLE)
    submit = page.locator("#submit")
    expect(submit).to_be_disabled()
    violations = page.locator("#violations li")
    expect(violations.first).to_have_text(
        'Your plausible sentence repeats "to stop working" from the meaning.'
    )
    expect(page.locator("#plausible-shared")).to_have_text("stop, working")
    assert page.locator("#plausible-backdrop mark").all_inner_texts() == ["to", "stop", "working"]
    guide_picture(page, "continuation-task", element=page.locator("#task"))

    page.locator("#implausible").fill(PLAUSIBLE)
    page.locator("#plausible").fill(PLAUSIBLE)
    expect(violations.first).to_have_text(
        "The two sentences are the same: make the implausible one different."
    )
    expect(submit).to_be_disabled()

    page.locator("#implausible").fill(IMPLAUSIBLE)
    expect(violations).to_have_count(0)
    expect(submit).to_be_enabled()
    submit.click()
    expect(page.get_by_test_id("next-link")).to_be_visible()
    continuation = Continuation.objects.get()
    assert (continuation.plausible, continuation.implausible) == (PLAUSIBLE, IMPLAUSIBLE)


def test_literal_use_flag_reaches_review_and_approval_confirms_it(
    live_server, page, browser, batch, researcher
):
    open_task(page, live_server, batch)
    page.get_by_test_id("literal-use").check()
    page.locator("#submit").click()
    expect(page.get_by_test_id("next-link")).to_be_visible()

    review = browser.new_context().new_page()
    admin_login(review, live_server, researcher)
    review.goto(
        f"{live_server.url}/admin/annotation/continuation/?batch={batch.pk}&literal=flagged"
    )
    flag = review.get_by_test_id("literal-flag")
    expect(flag).to_have_text("⚑ flagged literal: approve to confirm")
    review.locator("input[name=_selected_action]").first.check()
    review.select_option("select[name=action]", "approve_selected")
    review.click("button[name=index]")
    expect(review.get_by_test_id("literal-flag")).to_have_text("⚑ literal use confirmed")
    assert FigurativeNarrative.objects.get().literal_use_confirmed


def test_admin_upload_stores_one_narrative_with_its_several_option_pairs(
    live_server, page, researcher
):
    admin_login(page, live_server, researcher)
    page.goto(f"{live_server.url}/admin/annotation/figurativenarrative/")
    page.get_by_text("Import JSONL").click()
    page.set_input_files("#id_file", str(FIGURATIVE_FILES["idiom"]))
    page.select_option("#id_kind", "idiom")
    page.select_option("#id_split", "test")
    page.click("input[type=submit][value=Import]")
    expect(page.locator("#import-report")).to_contain_text("Narratives: 2 (2 new)")
    # A test split's answers are withheld in the release: its pairs are stored unlabelled.
    expect(page.locator("#import-report")).to_contain_text("Option pairs: 3 (3 new, unlabelled)")
    narrative = FigurativeNarrative.objects.get(expression="call it a day")
    assert narrative.option_pairs.count() == 2
    assert not ContinuationPair.objects.filter(correct__isnull=False).exists()

    page.set_input_files("#id_file", str(FIGURATIVE_FILES["idiom"]))
    page.select_option("#id_kind", "idiom")
    page.click("input[type=submit][value=Import]")
    expect(page.locator("#import-report")).to_contain_text("Option pairs: 3 (0 new")
    assert ContinuationPair.objects.count() == 3


def test_choose_the_continuation_page_stores_the_choice(live_server, page):
    figurative_import_fixture("simile")
    batch = task_batch_create(
        task_type="continue_choice", target_per_item=3, settings={"imported": {"kind": "simile"}}
    )
    assignment = open_task(page, live_server, batch)
    pair = assignment.item.continuation_pair
    expect(page.get_by_test_id("expression")).to_have_text("as light as a feather")
    submit = page.locator("#submit")
    expect(submit).to_be_disabled()
    page.locator(f"input[name=chosen][value='{pair.correct}']").check()
    submit.click()
    expect(page.get_by_test_id("next-link")).to_be_visible()
    answer = ContinuationAnswer.objects.get()
    assert (answer.chosen, answer.is_correct) == (pair.correct, True)
