"""In Chromium, under the Content-Security-Policy: every admin and worker page runs with no
violation, and the admin's behaviours that used inline handlers still work from static files."""

import re

import pytest
from django.contrib import admin
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from playwright.sync_api import expect

from crowd.models import Batch
from prolific.models import Study
from tests.browser.helpers import admin_login, csp_violations, page_troubles
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    crowd_narrative_create,
    finished_run_create,
    invite_path,
    mturk_batch_create,
    prolific_batch_create,
    proverb_create,
    task_batch_create,
    worker_create,
    write_batch_create,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def superuser(django_user_model):
    return django_user_model.objects.create_superuser(
        username="admin", password="admin-pass", email="admin@example.org"
    )


def _site_paths() -> list[str]:
    """Every GET page of the admin site: lists and add forms, and each model's own pages
    for its first row (for every batch, since batches of each kind have pages of their own)."""
    paths = []
    for model, model_admin in admin.site._registry.items():
        rows = model._default_manager.order_by("pk")
        rows = list(rows) if model is Batch else list(rows[:1])
        for pattern in model_admin.get_urls():
            if not isinstance(pattern, URLPattern) or not pattern.name:
                continue
            if not pattern.pattern.regex.groupindex:
                paths.append(reverse(f"admin:{pattern.name}"))
            elif len(pattern.pattern.regex.groupindex) == 1:
                paths += [reverse(f"admin:{pattern.name}", args=[row.pk]) for row in rows]
    paths += [reverse("admin:index"), reverse("admin:password_change")]
    return sorted(set(paths))


def _researcher_paths() -> list[str]:
    """The researcher pages outside the admin site (dataset, agreement, review queue), with
    each batch for those that take one (a decision's URL is a POST, not a page)."""
    batches = list(Batch.objects.values_list("pk", flat=True))
    paths = []
    for top in get_resolver().url_patterns:
        if not isinstance(top, URLResolver) or top.namespace == "admin":
            continue
        if not str(top.pattern).startswith("admin/"):
            continue
        for pattern in top.url_patterns:
            name = f"{top.namespace}:{pattern.name}"
            if not pattern.pattern.regex.groupindex:
                paths.append(reverse(name))
            elif len(pattern.pattern.regex.groupindex) == 1:
                paths += [reverse(name, args=[pk]) for pk in batches]
    return paths


INLINE_HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.IGNORECASE)
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.IGNORECASE)


def _is_page(page, url: str, problems: list[str]) -> bool:
    """Whether `url` is an HTML page (not a download, a POST-only URL or a JSON view);
    for a page, notes in `problems` what the policy would block only when it runs (an
    inline handler fires on a click) and a policy without the site's script rule."""
    response = page.request.get(url)
    assert response.status < 500, f"{response.status} {url}"
    headers = response.headers
    if not (
        response.status == 200
        and headers.get("content-type", "").startswith("text/html")
        and "attachment" not in headers.get("content-disposition", "")
    ):
        return False
    html = response.text()
    problems += [f"{url}: {found}" for found in INLINE_HANDLER.findall(html)]
    problems += [f"{url}: {found}" for found in INLINE_SCRIPT.findall(html)]
    if "script-src 'self'" not in headers.get("content-security-policy", ""):
        problems.append(f"{url}: no script-src 'self' in {headers.get('content-security-policy')}")
    return True


def test_every_admin_and_worker_page_runs_without_violations(live_server, page, superuser, standin):
    violations = csp_violations(page)
    troubles = page_troubles(page)
    failures = []
    page.on(
        "response",
        lambda response: (
            failures.append(f"{response.status} {response.url}") if response.status >= 500 else None
        ),
    )
    write = write_batch_create(proverbs=[proverb_create(BIRDS)])
    narrative = crowd_narrative_create(
        proverb=write.items.get().proverb, batch=write, text=BIRDS_STORY
    )
    task_batches = [
        task_batch_create(task_type=task_type, source_batch=write)
        for task_type in ("align", "rate")
    ]
    mturk = mturk_batch_create(proverbs=[proverb_create("Time is money")])
    prolific = prolific_batch_create(proverbs=[proverb_create("Haste makes waste")], publish=False)
    Study.objects.filter(batch=prolific).update(study_id="study-1", status="ACTIVE")
    finished_run_create(probabilities={narrative: {narrative.proverb_id: 0.9}})

    admin_login(page, live_server, superuser)
    visited = _site_paths() + _researcher_paths()
    problems = []
    pages = [path for path in visited if _is_page(page, f"{live_server.url}{path}", problems)]
    for path in pages:
        page.goto(f"{live_server.url}{path}")
    assert len(pages) > 100

    worker = worker_create()
    for batch in (write, *task_batches):
        # The review queue's fetch, the last admin page's, may still be running here: its
        # answer must not sign the worker out (common.sessions.SessionMiddleware).
        response = page.goto(f"{live_server.url}{invite_path(worker=worker, batch=batch)}")
        try:
            page.wait_for_selector("body[data-ready=true]", state="attached")
        except Exception as error:
            shown = page.locator("body").inner_text()[:300]
            raise AssertionError(
                f"{page.url} ({response.status}) never became ready; it shows {shown!r};"
                f" script errors and failed requests: {troubles}"
            ) from error
        assert _is_page(page, page.url, problems)
    hit = mturk.items.get().mturk_hit
    for path in (
        "/tasks/",
        f"/mturk/items/{hit.item_id}/?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId={hit.hit_id}",
    ):
        assert _is_page(page, f"{live_server.url}{path}", problems)
        page.goto(f"{live_server.url}{path}")
    assert problems == []
    assert violations == []
    assert failures == []
    assert troubles == []


def test_admin_behaviours_run_from_static_files(live_server, page, researcher):
    violations = csp_violations(page)
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)])
    worker = worker_create()
    admin_login(page, live_server, researcher)

    page.goto(f"{live_server.url}/admin/crowd/worker/")
    page.check(f"input[name=_selected_action][value='{worker.pk}']")
    page.select_option("select[name=action]", "show_invite_links")
    page.click("button[name=index]")
    page.wait_for_load_state("load")  # the deferred static script runs before "load"
    link = page.locator("[data-testid=invite-link]").first
    link.click()
    selected = link.evaluate("field => field.value.slice(field.selectionStart, field.selectionEnd)")
    assert selected == link.input_value() and "/w/" in selected

    page.goto(f"{live_server.url}/admin/crowd/batch/{batch.pk}/progress/")
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click("input[name=close]")
    assert asked == ["Close this batch? Workers can no longer take its tasks."]
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.PUBLISHED

    page.goto(f"{live_server.url}{invite_path(worker=worker, batch=batch)}")
    page.wait_for_selector("body[data-ready=true]", state="attached")
    page.locator("#narrative").press_sequentially("Three small words")
    expect(page.locator("#word-count")).to_have_text("3")
    assert violations == []


def test_stopping_a_prolific_study_asks_first(live_server, page, researcher):
    violations = csp_violations(page)
    batch = prolific_batch_create(proverbs=[proverb_create(BIRDS)], publish=False)
    study = Study.objects.get(batch=batch)
    Study.objects.filter(pk=study.pk).update(study_id="study-1", status="ACTIVE")
    admin_login(page, live_server, researcher)
    page.goto(f"{live_server.url}{reverse('admin:prolific_study_manage', args=[study.pk])}")
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click("input[name=stop]")
    assert asked == ["Stop this study on Prolific and close its batch?"]
    expect(page.locator("[data-testid=study-status]")).to_have_text("ACTIVE")
    study.refresh_from_db()
    assert study.status == "ACTIVE"
    assert violations == []


def test_worker_statistics_batch_filter_applies_on_change(live_server, page, researcher):
    violations = csp_violations(page)
    first = write_batch_create(proverbs=[proverb_create(BIRDS)], name="First batch")
    second = write_batch_create(proverbs=[proverb_create("Time is money")], name="Second batch")
    crowd_narrative_create(proverb=first.items.get().proverb, batch=first, text=BIRDS_STORY)
    admin_login(page, live_server, researcher)
    page.goto(f"{live_server.url}{reverse('admin:crowd_worker_stats')}")
    expect(page.locator("#worker-stats tbody")).not_to_contain_text("No submissions yet.")
    page.select_option("select[name=batch]", str(second.pk))
    page.wait_for_url(f"**?batch={second.pk}")
    expect(page.locator("#worker-stats tbody")).to_have_text("No submissions yet.")
    assert violations == []


def test_a_hit_template_runs_its_own_scripts_while_the_page_around_it_keeps_the_policy(
    live_server, browser
):
    from crowd.batches import batch_publish
    from tests.annotation.task_types.template.helpers import template_batch
    from tests.browser.template_helpers import cdn_standin, hit_frame

    context = browser.new_context()
    cdn_standin(context)
    page = context.new_page()
    violations, troubles, problems = csp_violations(page), page_troubles(page), []
    batch = batch_publish(batch=template_batch())
    page.goto(f"{live_server.url}{invite_path(worker=worker_create(), batch=batch)}")
    frame = hit_frame(page)
    # The template's inline script and its jQuery from the web ran in the frame...
    expect(frame.locator("#source")).to_have_attribute("title", "Collected from amazon.com")
    # ...while Parable's page is held to scripts from this site only.
    assert _is_page(page, page.url, problems) and problems == []
    src = page.get_attribute("#hit-frame", "src")
    policy = page.request.get(f"{live_server.url}{src}").headers["content-security-policy"]
    assert "sandbox allow-scripts allow-forms allow-modals allow-popups" in policy
    assert "script-src" not in policy and "default-src * data: blob: 'unsafe-inline'" in policy
    assert violations == [] and troubles == []
    context.close()
