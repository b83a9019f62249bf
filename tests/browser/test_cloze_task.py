"""In Chromium: the cloze page asks the server's parser as the worker types, refuses a
fragment with its reason, and accepts a full sentence."""

import pytest
from playwright.sync_api import expect

from annotation.task_types.cloze.models import ClozeResponse
from crowd.workers import invite_token
from tests.browser.helpers import guide_picture
from tests.factories import (
    crowd_narrative_create,
    proverb_create,
    task_batch_create,
    worker_create,
    write_batch_create,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STORY = (
    "Anna lost her keys on Monday. She searched the whole house twice. Her brother found "
    "them in the fridge. Everyone laughed about it at dinner."
)


@pytest.mark.parametrize("condition", ["full", "arguments", "subject_verb"])
def test_a_fragment_is_refused_with_its_reason_and_a_full_sentence_accepted(
    live_server, page, condition
):
    write = write_batch_create(proverbs=[proverb_create("Time is money")])
    crowd_narrative_create(proverb=write.items.get().proverb, batch=write, text=STORY)
    batch = task_batch_create(
        task_type="cloze",
        source_batch=write,
        target_per_item=3,
        settings={"condition": condition, "blank": "middle"},
    )
    worker = worker_create()
    page.goto(f"{live_server.url}/w/{invite_token(worker=worker, batch=batch)}/")
    page.wait_for_selector("body[data-ready=true]", state="attached")
    shown = {"full": "She searched the whole house twice.", "arguments": "She search house."}
    shown["subject_verb"] = "She search."
    expect(page.get_by_test_id("cloze-story")).to_contain_text(shown[condition])

    answer = page.get_by_test_id("answer")
    answer.press_sequentially("in the fridge")
    check = page.get_by_test_id("sentence-check")
    expect(check).to_contain_text("This is not a full sentence: it needs a verb and a subject")
    expect(check).to_have_attribute("data-missing", "verb subject")
    submit = page.locator("#submit")
    expect(submit).to_be_disabled()
    if condition == "arguments":
        guide_picture(page, "cloze-task", element=page.locator("#task"))

    answer.fill("")
    answer.press_sequentially("Her dog found them under the sofa.")
    expect(check).to_have_text("A full sentence: you can submit it.")
    expect(submit).to_be_enabled()
    submit.click()
    expect(page.get_by_test_id("next-link")).to_be_visible()
    response = ClozeResponse.objects.get()
    assert (response.text, response.lemma, response.matches) == (
        "Her dog found them under the sofa.",
        "find",
        True,
    )
