"""In Chromium: the align, rate and choose task pages as a worker uses them."""

import pytest

from annotation.models import Proverb
from annotation.task_parts.spans import PALETTE
from annotation.task_types.align.models import SpanPair
from annotation.task_types.choose.models import ChoiceAnswer
from annotation.task_types.rate.models import Rating
from crowd.models import Assignment
from tests.browser.helpers import guide_picture
from tests.factories import (
    crowd_narrative_create,
    invite_path,
    proverb_create,
    task_batch_create,
    worker_create,
    write_batch_create,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PROVERB = "Don't count your chickens before they hatch"
STORY = "Ana sold the eggs before the hens had even laid them, and lost the whole deal."


def rgb(hex_colour: str) -> str:
    red, green, blue = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


@pytest.fixture
def write():
    return write_batch_create(proverbs=[proverb_create(PROVERB)])


def open_task(page, live_server, *, worker, batch):
    page.goto(live_server.url + invite_path(worker=worker, batch=batch))
    page.wait_for_selector("body[data-ready=true]")


def token(page, side: str, index: int):
    return page.locator(f"#{side}-text .tok[data-i='{index}']")


def drag(page, side: str, first: int, last: int) -> None:
    start = token(page, side, first).bounding_box()
    end = token(page, side, last).bounding_box()
    page.mouse.move(start["x"] + 3, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] - 3, end["y"] + end["height"] / 2, steps=6)
    page.mouse.up()


def pair_by_keyboard(page, proverb_token: int, narrative_token: int) -> None:
    """Select one token on each side with the keyboard, then press Enter."""
    for side, index in (("proverb", proverb_token), ("narrative", narrative_token)):
        page.focus(f"#{side}-text")
        page.keyboard.press("Home")
        for _ in range(index):
            page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")


@pytest.fixture
def align_page(page, live_server, write):
    crowd_narrative_create(proverb=write.items.get().proverb, batch=write, text=STORY)
    batch = task_batch_create(task_type="align", source_batch=write)
    worker = worker_create()
    open_task(page, live_server, worker=worker, batch=batch)
    return page


def test_drag_selects_spans_in_both_texts_and_pairs_them_in_one_colour(align_page):
    page = align_page
    drag(page, "proverb", 1, 3)  # count your chickens
    drag(page, "narrative", 2, 3)  # the eggs
    assert "“count your chickens”" in page.inner_text("[data-testid=selection-state]")
    page.click("[data-testid=pair]")
    assert page.inner_text("[data-testid=pair-list]") == "“count your chickens” ↔ “the eggs” Remove"
    colour = rgb(PALETTE[0])
    for side, indices in (("proverb", (1, 2, 3)), ("narrative", (2, 3))):
        for index in indices:
            cell = token(page, side, index)
            assert cell.get_attribute("data-pairs") == "1"
            assert cell.evaluate("el => getComputedStyle(el).backgroundColor") == colour
    assert token(page, "proverb", 0).get_attribute("data-pairs") == ""
    drag(page, "proverb", 6, 6)  # hatch
    drag(page, "narrative", 8, 9)  # even laid
    page.click("[data-testid=pair]")
    second = token(page, "narrative", 9).evaluate("el => getComputedStyle(el).backgroundColor")
    assert second == rgb(PALETTE[1])
    guide_picture(page, "align-task", element=page.locator("#task"))
    page.click("[data-testid=submit]")
    page.wait_for_selector("[data-testid=next-link]")
    rows = list(SpanPair.objects.order_by("position"))
    assert [(r.proverb_span, r.narrative_span) for r in rows] == [
        ("count your chickens", "the eggs"),
        ("hatch", "even laid"),
    ]


def test_keyboard_selects_whole_words_and_pairs_them(align_page):
    page = align_page
    page.focus("#proverb-text")
    page.keyboard.press("ArrowRight")  # first press selects "Don't"
    page.keyboard.press("ArrowRight")  # "count"
    page.keyboard.press("Shift+ArrowRight")  # "count your"
    page.focus("#narrative-text")
    page.keyboard.press("End")  # "deal"
    page.keyboard.press("Shift+ArrowLeft")  # "whole deal"
    page.keyboard.press("Enter")
    assert page.inner_text("[data-testid=pair-list]") == "“count your” ↔ “whole deal” Remove"


def test_a_sixth_pair_is_refused(align_page):
    page = align_page
    for n in range(5):
        pair_by_keyboard(page, n, n)
    assert page.locator("[data-testid=pair-list] li").count() == 5
    pair_by_keyboard(page, 5, 5)
    assert page.locator("[data-testid=pair-list] li").count() == 5
    assert "At most 5 pairs" in page.inner_text("#status")
    page.click("[data-testid=pair-list] li[data-slot='2'] button")
    pair_by_keyboard(page, 5, 5)
    assert page.locator("[data-testid=pair-list] li").count() == 5
    # The freed colour goes to the new pair.
    assert token(page, "proverb", 5).get_attribute("data-pairs") == "2"


def test_a_reload_keeps_the_pairs(align_page):
    page = align_page
    pair_by_keyboard(page, 3, 3)  # chickens ~ eggs
    drag(page, "proverb", 4, 6)  # before they hatch
    drag(page, "narrative", 4, 6)  # before the hens
    page.click("[data-testid=pair]")
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    assert page.locator("[data-testid=pair-list] li").count() == 2
    assert token(page, "narrative", 5).get_attribute("data-pairs") == "2"
    page.click("[data-testid=submit]")
    page.wait_for_selector("[data-testid=next-link]")
    assert SpanPair.objects.count() == 2


def test_a_rating_form_cannot_be_submitted_incomplete(page, live_server, write):
    crowd_narrative_create(proverb=write.items.get().proverb, batch=write, text=STORY)
    batch = task_batch_create(task_type="rate", source_batch=write)
    open_task(page, live_server, worker=worker_create(), batch=batch)
    page.check("[data-testid=criterion-relatedness] input[value='4']")
    page.check("[data-testid=criterion-interesting] input[value='3']")
    assert page.is_disabled("[data-testid=submit]")
    assert page.inner_text("[data-testid=missing]") == "Still to rate: Fluency, Overall."
    page.check("[data-testid=criterion-fluency] input[value='5']")
    page.reload()  # the choices are kept
    page.wait_for_selector("body[data-ready=true]")
    assert page.is_disabled("[data-testid=submit]")
    page.check("[data-testid=criterion-overall] input[value='2']")
    assert page.inner_text("[data-testid=missing]") == ""
    page.click("[data-testid=submit]")
    page.wait_for_selector("[data-testid=next-link]")
    stored = dict(Rating.objects.values_list("criterion", "value"))
    assert stored == {"relatedness": 4, "interesting": 3, "fluency": 5, "overall": 2}


def test_choice_order_is_stable_for_a_worker_and_varies_across_questions(page, live_server):
    # Five curated proverbs: every question shows all five, so orders compare directly.
    proverbs = [
        proverb_create(text)
        for text in (
            PROVERB,
            "Time is money",
            "Haste makes waste",
            "Birds of a feather flock together",
            "Actions speak louder than words",
        )
    ]
    write = write_batch_create(proverbs=proverbs[:4])
    for item in write.items.all():
        crowd_narrative_create(proverb=item.proverb, batch=write, text=f"A story {item.pk}.")
    batch = task_batch_create(task_type="choose", source_batch=write, target_per_item=1)
    worker = worker_create()
    open_task(page, live_server, worker=worker, batch=batch)
    orders = []
    for _ in range(4):
        shown = page.locator(".option-text").all_inner_texts()
        page.reload()
        page.wait_for_selector("body[data-ready=true]")
        assert page.locator(".option-text").all_inner_texts() == shown
        assignment = Assignment.objects.get(worker=worker, status="reserved")
        stored = Proverb.objects.in_bulk(assignment.item.choice_question.options)
        assert shown == [stored[pk].text for pk in assignment.item.choice_question.options]
        orders.append(tuple(shown))
        page.locator("[data-testid=option]").first.check()
        page.click("[data-testid=submit]")
        page.click("[data-testid=next-link]")
        page.wait_for_load_state()
    assert len(set(orders)) > 1
    assert ChoiceAnswer.objects.count() == 4


def test_a_worker_is_never_shown_an_item_from_their_own_narrative(page, live_server, write):
    author = worker_create()
    proverb = write.items.get().proverb
    crowd_narrative_create(proverb=proverb, batch=write, worker=author, text="My own story.")
    crowd_narrative_create(proverb=proverb, batch=write, text=STORY)
    batch = task_batch_create(task_type="align", source_batch=write)
    open_task(page, live_server, worker=author, batch=batch)
    assert page.inner_text("[data-testid=narrative-text]") == STORY
    pair_by_keyboard(page, 3, 3)
    page.click("[data-testid=submit]")
    page.click("[data-testid=next-link]")
    message = page.locator("[data-testid=message]")
    assert message.get_attribute("data-code") == "empty"
    assert "My own story." not in page.content()


def test_number_keys_rate_each_criterion_in_turn_and_enter_submits(page, live_server, write):
    crowd_narrative_create(proverb=write.items.get().proverb, batch=write, text=STORY)
    batch = task_batch_create(task_type="rate", source_batch=write)
    open_task(page, live_server, worker=worker_create(), batch=batch)
    highlighted = page.locator("fieldset.criterion.current")
    assert highlighted.get_attribute("data-key") == "relatedness"
    for key in "4352":
        page.keyboard.press(key)
    assert page.inner_text("[data-testid=missing]") == ""
    page.click("[data-testid=criterion-fluency] legend")  # a click picks a criterion
    page.keyboard.press("1")
    assert page.is_checked("[data-testid=criterion-fluency] input[value='1']")
    guide_picture(page, "rate-task", element=page.locator("#task"))
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=next-link]")
    stored = dict(Rating.objects.values_list("criterion", "value"))
    assert stored == {"relatedness": 4, "interesting": 3, "fluency": 1, "overall": 2}


def test_number_keys_choose_an_option_and_enter_submits(page, live_server):
    proverbs = [
        proverb_create(text)
        for text in (PROVERB, "Time is money", "Haste makes waste", "Look before you leap")
    ]
    write = write_batch_create(proverbs=proverbs[:1])
    crowd_narrative_create(proverb=proverbs[0], batch=write, text=STORY)
    batch = task_batch_create(task_type="choose", source_batch=write, target_per_item=1)
    open_task(page, live_server, worker=worker_create(), batch=batch)
    page.keyboard.press("Enter")  # nothing chosen yet: nothing sent
    assert page.is_disabled("[data-testid=submit]") and not ChoiceAnswer.objects.exists()
    page.keyboard.press("9")  # no ninth option: nothing changes
    assert page.locator("[data-testid=option]:checked").count() == 0
    page.keyboard.press("3")
    third = page.locator(".option-text").nth(2).inner_text()
    assert page.locator("[data-testid=option]").nth(2).is_checked()
    guide_picture(page, "choose-task", element=page.locator("#task"))
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=next-link]")
    assert ChoiceAnswer.objects.get().chosen.text == third
