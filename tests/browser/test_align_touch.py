"""In Chromium with touch emulation (a phone): spans of several words made by touch."""

import time

import pytest

from annotation.task_types.align.models import SpanPair
from tests.browser.test_align_rate_choose import PROVERB, STORY, open_task
from tests.factories import (
    crowd_narrative_create,
    proverb_create,
    task_batch_create,
    worker_create,
    write_batch_create,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def phone(browser):
    context = browser.new_context(
        has_touch=True, is_mobile=True, viewport={"width": 390, "height": 844}
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def align_phone(phone, live_server):
    write = write_batch_create(proverbs=[proverb_create(PROVERB)])
    crowd_narrative_create(proverb=write.items.get().proverb, batch=write, text=STORY)
    batch = task_batch_create(task_type="align", source_batch=write)
    open_task(phone, live_server, worker=worker_create(), batch=batch)
    return phone


def centre(page, side: str, index: int) -> dict:
    token = page.locator(f"#{side}-text .tok[data-i='{index}']")
    token.scroll_into_view_if_needed()
    box = token.bounding_box()
    return {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}


def touch_drag(page, side: str, first: int, last: int) -> None:
    """A finger put down on one word and moved to another, through the DevTools protocol."""
    cdp = page.context.new_cdp_session(page)
    centre(page, side, first)  # both words in view before the finger goes down
    start, end = centre(page, side, first), centre(page, side, last)
    # Event times 60 ms apart, as a finger moves: an instant drag would read as a fling,
    # and Chromium swallows the tap that stops a fling.
    clock = time.time()
    steps = 8

    def touch(kind: str, step: int, points: list) -> None:
        cdp.send(
            "Input.dispatchTouchEvent",
            {"type": kind, "touchPoints": points, "timestamp": clock + step * 0.06},
        )

    touch("touchStart", 0, [start])
    for step in range(1, steps + 1):
        point = {
            "x": start["x"] + (end["x"] - start["x"]) * step / steps,
            "y": start["y"] + (end["y"] - start["y"]) * step / steps,
        }
        touch("touchMove", step, [point])
    touch("touchMove", steps + 4, [end])  # the finger rests before it is lifted
    touch("touchEnd", steps + 5, [])
    cdp.detach()


def test_a_five_word_span_by_dragging_a_finger(align_phone):
    page = align_phone
    touch_drag(page, "proverb", 1, 5)  # count your chickens before they
    touch_drag(page, "narrative", 2, 3)  # the eggs
    assert "“count your chickens before they”" in page.inner_text("[data-testid=selection-state]")
    page.tap("[data-testid=pair]")
    page.tap("[data-testid=submit]")
    page.wait_for_selector("[data-testid=next-link]")
    pair = SpanPair.objects.get()
    assert (pair.proverb_span, pair.narrative_span) == (
        "count your chickens before they",
        "the eggs",
    )


def test_tapping_the_first_then_the_last_word_makes_a_span(align_phone):
    page = align_phone
    for side, first, last in (("proverb", 1, 5), ("narrative", 8, 11)):
        page.tap(f"#{side}-text .tok[data-i='{first}']")
        page.tap(f"#{side}-text .tok[data-i='{last}']")
    state = page.inner_text("[data-testid=selection-state]")
    assert "“count your chickens before they”" in state
    assert "“even laid them, and”" in state
    page.tap("#proverb-text .tok[data-i='0']")
    assert "“Don't”" in page.inner_text("[data-testid=selection-state]")
