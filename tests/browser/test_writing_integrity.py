"""In Chromium: the write page's writing record and the integrity flags a reviewer sees.

A story typed key by key gets no flag; pasted, it gets the paste flag; inserted by a
script, the synthetic flag; a paste-refusing batch refuses the paste with its message;
a near-copy of an earlier story is flagged with that story shown; the record survives a
reload.
"""

import pytest
from playwright.sync_api import expect

from annotation.models import Narrative
from annotation.quality.flags import narrative_flags
from tests.browser.helpers import admin_login, guide_picture
from tests.browser.test_write_task import open_task
from tests.factories import BIRDS, BIRDS_STORY, proverb_create, worker_create, write_batch_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEAR_COPY = BIRDS_STORY.replace("spicy noodles", "hot noodles").replace("a month", "weeks")
TYPO_AT = 70


def type_like_a_person(page, text):
    """Key by key at about 50 ms a key, with a typo fixed on the way."""
    box = page.locator("#narrative")
    box.press_sequentially(text[:TYPO_AT], delay=50)
    box.press_sequentially("qz", delay=50)
    box.press("Backspace")
    box.press("Backspace")
    box.press_sequentially(text[TYPO_AT:], delay=50)


def paste(page, text):
    page.evaluate("text => navigator.clipboard.writeText(text)", text)
    page.locator("#narrative").focus()
    page.keyboard.press("ControlOrMeta+V")


def submit(page):
    page.click("#submit")
    expect(page.locator("#status")).to_contain_text("your story is stored")


def flag_codes(narrative):
    return [flag["code"] for flag in narrative_flags(Narrative.objects.get(pk=narrative.pk))]


@pytest.fixture
def batch():
    return write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=3)


def test_typed_story_gets_no_flag_and_the_page_says_what_is_recorded(live_server, page, batch):
    open_task(page, live_server, batch)
    expect(page.locator("[data-testid=writing-record]")).to_contain_text(
        "records how your text is written"
    )
    type_like_a_person(page, BIRDS_STORY)
    submit(page)
    narrative = Narrative.objects.get()
    telemetry = narrative.integrity.telemetry
    assert telemetry["typed"] == len(BIRDS_STORY) + 2
    assert telemetry["deleted"] == 2
    assert telemetry["pasted"] == telemetry["synthetic_events"] == telemetry["unexplained"] == 0
    assert sum(telemetry["intervals"]) == telemetry["keys"] - 1
    assert flag_codes(narrative) == []


def test_pasted_story_gets_the_paste_flag(live_server, clipboard_page, batch):
    open_task(clipboard_page, live_server, batch)
    paste(clipboard_page, BIRDS_STORY)
    expect(clipboard_page.locator("#narrative")).to_have_value(BIRDS_STORY)
    submit(clipboard_page)
    narrative = Narrative.objects.get()
    assert narrative.integrity.telemetry["pasted"] == len(BIRDS_STORY)
    assert flag_codes(narrative) == ["pasted"]


def test_story_inserted_by_script_gets_the_synthetic_flag(live_server, page, batch):
    open_task(page, live_server, batch)
    page.evaluate(
        """text => {
          const box = document.getElementById("narrative");
          box.value = text;
          box.dispatchEvent(new Event("input", {bubbles: true}));
        }""",
        BIRDS_STORY,
    )
    submit(page)
    narrative = Narrative.objects.get()
    assert narrative.integrity.telemetry["synthetic"] == len(BIRDS_STORY)
    assert "synthetic" in flag_codes(narrative)


def test_paste_refusing_batch_refuses_the_paste_and_says_so(live_server, clipboard_page):
    batch = write_batch_create(
        proverbs=[proverb_create(BIRDS)], settings={"integrity": {"refuse_paste": True}}
    )
    open_task(clipboard_page, live_server, batch)
    expect(clipboard_page.locator("[data-testid=paste-refused]")).to_contain_text(
        "Pasting is turned off for this task"
    )
    paste(clipboard_page, BIRDS_STORY)
    expect(clipboard_page.locator("#status")).to_have_text(
        "This task does not accept pasted text: type your story yourself."
    )
    expect(clipboard_page.locator("#narrative")).to_have_value("")
    assert not Narrative.objects.exists()


def test_writing_record_survives_a_reload(live_server, page, batch):
    open_task(page, live_server, batch)
    half = BIRDS_STORY[:60]
    page.locator("#narrative").press_sequentially(half, delay=20)
    expect(page.locator("#draft-state")).to_have_text("Draft saved in this browser.")
    page.reload()
    page.wait_for_selector("body[data-ready=true]", state="attached")
    expect(page.locator("#narrative")).to_have_value(half)
    page.locator("#narrative").press("End")
    page.locator("#narrative").press_sequentially(BIRDS_STORY[60:], delay=20)
    submit(page)
    telemetry = Narrative.objects.get().integrity.telemetry
    assert telemetry["typed"] == len(BIRDS_STORY)
    assert telemetry["unexplained"] == telemetry["inserted_without_keys"] == 0


def test_review_shows_which_story_was_typed_pasted_or_copied_and_why(
    live_server, page, clipboard_page, browser, batch, researcher
):
    open_task(page, live_server, batch, worker_create(display_name="Typist"))
    type_like_a_person(page, BIRDS_STORY)
    submit(page)
    typed = Narrative.objects.get()

    open_task(clipboard_page, live_server, batch, worker_create(display_name="Copier"))
    paste(clipboard_page, NEAR_COPY)
    submit(clipboard_page)
    copy = Narrative.objects.exclude(pk=typed.pk).get()
    assert flag_codes(copy) == ["pasted", "near_duplicate"]
    assert flag_codes(typed) == []

    reviewer = browser.new_context().new_page()
    admin_login(reviewer, live_server, researcher)
    reviewer.goto(f"{live_server.url}/admin/annotation/narrative/?batch={batch.pk}")
    typed_row = reviewer.locator(f"#result_list tr:has(a[href*='/{typed.pk}/change/'])")
    copy_row = reviewer.locator(f"#result_list tr:has(a[href*='/{copy.pk}/change/'])")
    expect(typed_row.locator(".field-integrity_flags")).to_have_text("—")
    expect(copy_row.locator(".integrity-flag")).to_have_text(
        ["⚑ Pasted from outside", "⚑ Near-duplicate of another story"]
    )

    reviewer.goto(f"{live_server.url}/admin/annotation/narrative/{copy.pk}/change/")
    duplicate = reviewer.locator(".integrity-flag[data-flag=near_duplicate]")
    expect(duplicate).to_contain_text(f"Nearly the same as another story #{typed.pk}")
    cells = duplicate.locator(".integrity-match td")
    expect(cells).to_have_text([NEAR_COPY, BIRDS_STORY])
    expect(duplicate.locator(".integrity-match th").nth(1)).to_contain_text("Typist")
    expect(reviewer.locator(".integrity-flag[data-flag=pasted]")).to_contain_text(
        f"{len(NEAR_COPY)} of the story's {len(NEAR_COPY)} characters were pasted"
    )
    guide_picture(
        reviewer, "integrity-flags", element=reviewer.locator(".field-integrity_explained")
    )


def test_synthetic_flag_counts_only_script_text_left_in_the_story(live_server, page, batch):
    extra = " and then some more words"
    open_task(page, live_server, batch)
    page.evaluate(
        """text => {
          const box = document.getElementById("narrative");
          box.value = text;
          box.dispatchEvent(new Event("input", {bubbles: true}));
        }""",
        BIRDS_STORY + extra,
    )
    box = page.locator("#narrative")
    box.press("End")
    for _ in extra:
        box.press("Backspace")
    expect(box).to_have_value(BIRDS_STORY)
    submit(page)
    narrative = Narrative.objects.get()
    telemetry = narrative.integrity.telemetry
    assert telemetry["synthetic"] == len(BIRDS_STORY + extra)
    assert telemetry["synthetic_kept"] == len(BIRDS_STORY)
    [flag] = [f for f in narrative_flags(narrative) if f["code"] == "synthetic"]
    assert flag["details"]["characters"] == len(BIRDS_STORY)
