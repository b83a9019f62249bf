"""In Chromium: the researcher's page of worker invite links, with a Copy button per link
and the whole table as a CSV download."""

import csv
import io

import pytest
from playwright.sync_api import expect

from tests.browser.test_write_task import admin_login
from tests.factories import proverb_create, write_batch_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_links_can_be_copied_one_by_one_and_downloaded_as_csv(live_server, page, researcher):
    batch = write_batch_create(proverbs=[proverb_create("Time is money")], name="=Study, one")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    admin_login(page, live_server, researcher)
    page.goto(f"{live_server.url}/admin/crowd/worker/add-local/?batch={batch.pk}")
    page.fill("#id_count", "2")
    page.fill("#id_name_prefix", "Lab")
    page.click("input[type=submit]")
    links = page.locator("[data-testid=invite-link]")
    expect(links).to_have_count(2)  # the click returns once the next page starts loading

    page.locator("[data-testid=copy-link]").nth(1).click()
    page.wait_for_selector("[data-testid=copy-link]:text('Copied')")
    assert page.evaluate("navigator.clipboard.readText()") == links.nth(1).input_value()

    with page.expect_download() as download_info:
        page.click("[data-testid=links-csv]")
    download = download_info.value
    assert download.suggested_filename == "worker-links.csv"
    with open(download.path(), newline="") as stream:
        rows = list(csv.reader(io.StringIO(stream.read())))
    assert rows[0] == ["worker", "opens", "link"]
    assert [row[0] for row in rows[1:]] == ["Lab 1", "Lab 2"]
    assert {row[1] for row in rows[1:]} == {"'=Study, one"}  # not run as a formula
    assert [row[2] for row in rows[1:]] == [links.nth(0).input_value(), links.nth(1).input_value()]
