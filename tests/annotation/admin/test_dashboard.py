"""The dataset pages in the admin: dashboard, ePiC import upload, export download."""

import io
import json
import re
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.utils.html import escape

from annotation.analysis.selectors import definitions
from annotation.datasets.splits import narrative_splits_assign
from annotation.models import DatasetAnalysis, Narrative, NarrativeIntegrity, NarrativeRound
from tests.factories import (
    batch_create,
    crowd_narrative_create,
    narrative_create,
    proverb_create,
    rating_create,
    writing_record,
)

pytestmark = pytest.mark.django_db
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "epic"
SECTIONS = (
    "Collection",
    "Dataset statistics",
    "Lexical overlap",
    "Diversity",
    "Sentiment",
    "Readability",
    "Human evaluation",
    "Writing integrity",
    "Scope and parameters",
)


def _small_dataset() -> None:
    proverb = proverb_create("Time is money")
    for text in ("Raj lost customers every minute.", "Ana was happy to save an hour."):
        narrative = crowd_narrative_create(proverb=proverb, text=text)
        rating_create(narrative=narrative, criterion="overall", value=4)


@pytest.fixture
def analysed(client, django_capture_on_commit_callbacks):
    """The dashboard page once its analysis job has run (the first visit queues it)."""

    def get(url: str = "/admin/dataset/") -> str:
        with django_capture_on_commit_callbacks(execute=True):
            client.get(url)
        return client.get(url).content.decode()

    return get


def test_dashboard_shows_every_section_table_and_plot(client, researcher, analysed):
    _small_dataset()
    client.force_login(researcher)
    page = analysed()
    for title in SECTIONS:
        assert f"<h2>{title}</h2>" in page
    for header in ("Jaccard, paired", "Welch&#x27;s t-tests", "Pairwise agreement", "Per proverb"):
        assert header in page
    assert page.count('<figure class="plot"><svg') == 6
    assert '<td class="definition">Number of approved narratives' in page


def test_dashboard_writes_every_definition_as_help_text(client, researcher, analysed):
    _small_dataset()
    client.force_login(researcher)
    page = analysed()
    for key, text in definitions().items():
        assert escape(text) in page, key


def test_dashboard_escapes_proverbs_and_labels(client, researcher, analysed):
    proverb = proverb_create("<script>alert(1)</script> waits for no one")
    narrative = narrative_create(
        proverb=proverb, text="A tide came in.", status="approved", source_label="<img src=x>"
    )
    rating_create(narrative=narrative, criterion="overall", value=3)
    client.force_login(researcher)
    page = analysed()
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; waits for no one" in page
    assert "<img src=x>" not in page
    assert "imported:&lt;img src=x&gt;" in page


def test_dashboard_draws_a_label_with_dollar_signs_as_text(client, reviewer, analysed):
    narrative = narrative_create(
        proverb=proverb_create("Time is money"),
        text="A tide came in.",
        status="approved",
        source_label=r"Bad $\frac{1}{$ label",
    )
    rating_create(narrative=narrative, criterion="overall", value=3)
    client.force_login(reviewer)
    page = analysed()
    assert "rating_means" in page or "Mean Likert rating" in page
    assert r"imported:Bad $\frac{1}{$ label" in page


def test_dashboard_shows_the_share_of_each_flag_per_batch_and_worker(client, researcher, analysed):
    proverb = proverb_create("Time is money")
    batch = batch_create(task_type="write", name="Pilot write")
    for typed, pasted in ((160, 0), (0, 160)):
        narrative = crowd_narrative_create(proverb=proverb, batch=batch)
        NarrativeIntegrity.objects.create(
            narrative=narrative, telemetry=writing_record(typed=typed, pasted=pasted)
        )
    client.force_login(researcher)
    page = analysed()
    section = page[page.index("<h2>Writing integrity</h2>") :]
    assert f"<td>{batch.pk}: Pilot write</td><td>2</td><td>50%</td>" in section
    assert '<th scope="col">Pasted from outside</th>' in section


def test_dashboard_limits_the_analysis_to_chosen_batches(client, researcher, analysed):
    proverb = proverb_create("Time is money")
    batch = batch_create()
    crowd_narrative_create(proverb=proverb, batch=batch)
    crowd_narrative_create(proverb=proverb)
    client.force_login(researcher)
    page = analysed(f"/admin/dataset/?batch={batch.pk}&approved_only=on")
    assert f"<td>Batches</td><td>{batch.pk}</td>" in page
    assert "<td>Narratives read</td><td>1</td>" in page


def test_dashboard_rows_are_labelled_in_words_with_their_key_beside_the_definition(
    client, researcher, analysed
):
    narrative_create(proverb=proverb_create("Time is money"), status="approved")
    client.force_login(researcher)
    page = analysed()
    assert "<td>Distinct workers</td><td>—</td>" in page  # imported only: unknown, not 0
    assert "(key: collection.distinct_workers)</td>" in page
    assert "<td>collection.distinct_workers</td>" not in page
    assert "<td>Accuracy of workers</td>" in page and "<td>human</td>" not in page


def test_dashboard_limits_the_analysis_to_chosen_sources(client, researcher, analysed):
    proverb = proverb_create("Time is money")
    crowd_narrative_create(proverb=proverb)
    narrative_create(proverb=proverb, source="model", status="approved")
    narrative_create(proverb=proverb, source="imported", status="approved")
    client.force_login(researcher)
    assert "<td>Narratives read</td><td>2</td>" in analysed()
    page = analysed("/admin/dataset/?source=model&source=crowd")
    assert "<td>Sources</td><td>crowd, model</td>" in page
    assert "<td>Narratives read</td><td>2</td>" in page
    page = analysed("/admin/dataset/?source=model")
    assert "<td>Narratives read</td><td>1</td>" in page


def test_first_visit_queues_the_analysis_and_shows_its_progress(
    client, researcher, django_capture_on_commit_callbacks
):
    _small_dataset()
    client.force_login(researcher)
    with django_capture_on_commit_callbacks() as queued:
        page = client.get("/admin/dataset/").content.decode()
    assert len(queued) == 1
    assert "No result yet for this scope" in page
    assert 'data-status="queued"' in page
    analysis = DatasetAnalysis.objects.get()
    assert client.get(f"/admin/dataset/analysis/{analysis.pk}/").json()["status"] == "queued"


def test_later_visits_show_the_stored_result_without_recomputing(
    client, researcher, analysed, django_capture_on_commit_callbacks
):
    _small_dataset()
    client.force_login(researcher)
    analysed()
    with django_capture_on_commit_callbacks() as queued:
        page = client.get("/admin/dataset/").content.decode()
    assert queued == []
    assert 'data-testid="computed-at"' in page
    assert "on the data as it is now" in page


def test_a_change_to_the_data_shows_the_last_result_and_computes_a_fresh_one(
    client, researcher, analysed, django_capture_on_commit_callbacks
):
    _small_dataset()
    client.force_login(researcher)
    analysed()
    crowd_narrative_create(proverb=Narrative.objects.first().proverb, text="Another story.")
    with django_capture_on_commit_callbacks() as queued:
        page = client.get("/admin/dataset/").content.decode()
    assert len(queued) == 1
    assert 'data-testid="stale"' in page
    assert "<h2>Collection</h2>" in page


def test_recompute_now_queues_a_job_even_on_unchanged_data(
    client, researcher, analysed, django_capture_on_commit_callbacks
):
    _small_dataset()
    client.force_login(researcher)
    analysed()
    with django_capture_on_commit_callbacks() as queued:
        response = client.post("/admin/dataset/refresh/")
    assert response.status_code == 302
    assert len(queued) == 1


def test_anonymous_is_sent_to_login(client):
    for url in ("/admin/dataset/", "/admin/dataset/import/", "/admin/dataset/export/"):
        response = client.get(url)
        assert response.status_code == 302
        assert "/admin/login/" in response["Location"]


def test_crowd_worker_is_sent_to_login(client, worker_user):
    client.force_login(worker_user)
    response = client.get("/admin/dataset/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_staff_without_permissions_is_denied(client, django_user_model):
    staff = django_user_model.objects.create_user(username="staff", password="x", is_staff=True)
    client.force_login(staff)
    for url in ("/admin/dataset/", "/admin/dataset/import/", "/admin/dataset/export/"):
        assert client.get(url).status_code == 403


def test_reviewer_reads_and_exports_but_cannot_import(client, reviewer):
    client.force_login(reviewer)
    assert client.get("/admin/dataset/").status_code == 200
    assert client.get("/admin/dataset/export/").status_code == 200
    assert client.get("/admin/dataset/import/").status_code == 403


def test_import_upload_reports_counts_and_problems(
    client, researcher, django_capture_on_commit_callbacks
):
    client.force_login(researcher)
    splits = [
        SimpleUploadedFile(path.name, path.read_bytes()) for path in (FIXTURE / "splits").iterdir()
    ]
    upload = SimpleUploadedFile("epic.json", (FIXTURE / "dataset.json").read_bytes())
    with django_capture_on_commit_callbacks(execute=True):
        page = client.post(
            "/admin/dataset/import/",
            {"file": upload, "splits": splits, "source_label": "ePiC"},
        ).content.decode()
    assert Narrative.objects.filter(source="imported").count() == 6
    assert "Narratives: 6 (6 created, 0 updated, 0 unchanged)" in page
    assert "Span pairs: 11 (1 ambiguous, 1 unresolved)" in page
    assert "Split seen: 4 train, 2 test" in page
    assert "Q1N3 slot 3: span_narrative_3 &#x27;motivational posters&#x27; not found" in page
    assert 'id="import-partial">Partial import: what the table below lists was left out' in page
    assert not Narrative.objects.filter(source="imported", keywords={}).exists()


def test_import_upload_takes_the_release_folder_with_its_label_maps(client, researcher):
    client.force_login(researcher)
    proverb_create("TIME IS MONEY!")
    splits = [
        SimpleUploadedFile(path.name, path.read_bytes()) for path in (FIXTURE / "splits").iterdir()
    ]
    splits += [
        SimpleUploadedFile(name, b'{"0": "a proverb"}')
        for name in ("seen_label_map.json", "unseen_label_map.json")
    ]
    upload = SimpleUploadedFile("epic.json", (FIXTURE / "dataset.json").read_bytes())
    page = client.post(
        "/admin/dataset/import/",
        {"file": upload, "splits": splits, "source_label": "ePiC"},
        follow=True,
    ).content.decode()
    assert "Split seen: 4 train, 2 test" in page
    assert "left aside: seen_label_map.json, unseen_label_map.json" in page
    assert Narrative.objects.filter(source="imported").count() == 6


def test_import_upload_of_a_malformed_file_writes_nothing(client, researcher):
    client.force_login(researcher)
    records = json.loads((FIXTURE / "dataset.json").read_text())
    del records[1]["fields"]["quote"]
    upload = SimpleUploadedFile("epic.json", json.dumps(records).encode())
    page = client.post(
        "/admin/dataset/import/", {"file": upload, "source_label": "ePiC"}, follow=True
    ).content.decode()
    assert "Nothing was imported" in page
    assert "Record 2: (Q1N2) lacks field(s) quote." in page
    assert Narrative.objects.count() == 0


def test_export_form_shows_the_status_filter_ticked_for_approved_only(client, researcher):
    client.force_login(researcher)
    page = client.get("/admin/dataset/export/").content.decode()
    checkbox = re.search(r'<input type="checkbox" name="approved_only"[^>]*>', page).group()
    assert checkbox.endswith(" checked>")
    assert "Untick to export every status" in page


def test_export_downloads_data_and_card_as_a_zip(client, researcher):
    _small_dataset()
    client.force_login(researcher)
    response = client.post(
        "/admin/dataset/export/", {"format": "jsonl", "seed": 0, "statistics": "on"}
    )
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="parable-jsonl.zip"'
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert sorted(archive.namelist()) == [
        "README.md",
        "dataset.jsonl",
        "methods.md",
        "methods.tex",
    ]
    rows = archive.read("dataset.jsonl").decode().splitlines()
    assert len(rows) == 2
    card = archive.read("README.md").decode()
    assert "| Narratives (approved) | 2 |" in card
    assert "## Methods and data statement" in card
    assert archive.read("methods.md").decode() in card
    assert "\\subsection*{Dataset}" in archive.read("methods.tex").decode()


def test_methods_statement_of_the_dashboards_scope_downloads_in_both_formats(
    client, researcher, analysed
):
    _small_dataset()
    client.force_login(researcher)
    page = analysed()
    assert 'data-testid="methods-md"' in page
    markdown = client.get("/admin/dataset/methods/?format=md")
    assert markdown["Content-Disposition"] == 'attachment; filename="methods.md"'
    assert "| Narratives (approved) | 2 |" in markdown.content.decode()
    latex = client.get("/admin/dataset/methods/?format=tex").content.decode()
    assert "\n\\section*{Methods and data statement}" in latex
    client.logout()
    assert client.get("/admin/dataset/methods/?format=md").status_code == 302


def test_splits_page_draws_the_splits_from_a_seed(client, researcher):
    proverb = proverb_create("Time is money")
    for k in range(10):
        crowd_narrative_create(proverb=proverb, text=f"Story {k}.")
    client.force_login(researcher)
    page = client.get("/admin/dataset/splits/").content.decode()
    assert "<td>seen</td><td>0</td><td>0</td><td>10</td>" in page
    page = client.post("/admin/dataset/splits/", {"source": "seed", "seed": 4}).content.decode()
    assert "Splits assigned." in page
    assert "<li>seen: 6 train, 4 test</li>" in page
    assert "<td>seen</td><td>6</td><td>4</td><td>0</td>" in page
    assert Narrative.objects.filter(split_seen="train").count() == 6


def test_splits_page_sets_splits_from_files_and_lists_the_pks_left_out(client, researcher):
    call_command(
        "import_dataset",
        str(FIXTURE / "dataset.json"),
        "--allow-partial",
        "--no-keywords",
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    contents = {path.name: path.read_bytes() for path in (FIXTURE / "splits_shuffled").iterdir()}
    contents["epic_seen_test_pks.json"] = b'["Q2N2", "Q9N9", "<b>Q8N8</b>", "Q1N3"]'
    contents["epic_seen_label_map.json"] = b"{}"
    files = [SimpleUploadedFile(name, content) for name, content in contents.items()]
    client.force_login(researcher)
    page = client.post(
        "/admin/dataset/splits/", {"source": "files", "files": files}, follow=True
    ).content.decode()
    assert "Not split files, left aside: epic_seen_label_map.json." in page
    assert "Partial: the split files name 2 pk(s) not in the dataset" in page
    assert "<td>&lt;b&gt;Q8N8&lt;/b&gt;</td>" in page and "<td>Q9N9</td>" in page
    assert Narrative.objects.exclude(split_unseen="").count() == 6
    assert Narrative.objects.filter(split_seen="test").count() == 2


def test_splits_page_refuses_split_files_lacking_one_and_changes_nothing(client, researcher):
    crowd_narrative_create(proverb=proverb_create("Time is money"), text="A story.")
    files = [
        SimpleUploadedFile(path.name, path.read_bytes())
        for path in (FIXTURE / "splits_incomplete").iterdir()
    ]
    client.force_login(researcher)
    page = client.post("/admin/dataset/splits/", {"source": "files", "files": files})
    assert (
        "Nothing was changed: The split files lack epic_unseen_test_pks.json"
        in page.content.decode()
    )
    assert not Narrative.objects.exclude(split_seen="").exists()


def test_splits_page_is_for_researchers(client, reviewer):
    client.force_login(reviewer)
    assert client.get("/admin/dataset/splits/").status_code == 403
    assert "Assign splits" not in client.get("/admin/dataset/").content.decode()


def _exported_rows(response) -> tuple[list[dict], str]:
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    rows = [json.loads(line) for line in archive.read("dataset.jsonl").decode().splitlines()]
    return rows, archive.read("README.md").decode()


def test_raw_worker_ids_need_their_own_permission(client, researcher):
    _small_dataset()
    client.force_login(researcher)
    assert 'name="raw_worker_ids"' not in client.get("/admin/dataset/export/").content.decode()
    response = client.post("/admin/dataset/export/", {"format": "jsonl", "raw_worker_ids": "on"})
    rows, card = _exported_rows(response)
    assert all(len(row["worker"]) == 16 and ":" not in row["worker"] for row in rows)
    assert "salted hashes" in card


def test_raw_worker_id_export_is_logged_and_its_card_says_so(client, researcher, caplog):
    from django.contrib.auth.models import Permission

    _small_dataset()
    researcher.user_permissions.add(Permission.objects.get(codename="export_raw_worker_ids"))
    client.force_login(researcher)
    assert 'name="raw_worker_ids"' in client.get("/admin/dataset/export/").content.decode()
    with caplog.at_level("WARNING", logger="annotation.exports.dataset"):
        response = client.post(
            "/admin/dataset/export/", {"format": "jsonl", "raw_worker_ids": "on"}
        )
    rows, card = _exported_rows(response)
    workers = {narrative.worker.external_id for narrative in Narrative.objects.all()}
    assert {row["worker"].split(":", 1)[1] for row in rows} == workers
    assert "**Worker ids are raw**" in card
    assert [
        record.getMessage().split(" (")[0]
        for record in caplog.records
        if record.name == "annotation.exports.dataset"
    ] == ["Raw worker ids exported by user researcher"]


def test_dashboard_shows_each_rounds_fooled_share_and_the_models_on_every_rounds_tests(
    client, researcher, analysed, opponent, proverbs
):
    for number in (1, 2):
        for count, (text, proverb) in enumerate(proverbs.items()):
            for told in ("Tom sold the eggs early.", "The crowd cheered too soon."):
                narrative = crowd_narrative_create(
                    proverb=proverb, text=f"{told} ({text[:12]}, round {number})"
                )
                NarrativeRound.objects.create(
                    narrative=narrative,
                    round=number,
                    opponent_run=opponent.pk if number == 2 else None,
                    fooled=(count % 2 == 0) if number == 2 else None,
                )
    narrative_splits_assign(seed=0)
    client.force_login(researcher)
    page = analysed()
    assert "<h2>Model-in-the-loop rounds</h2>" in page
    assert (
        "Per round" in page and "Each round&#x27;s model on every round&#x27;s test stories" in page
    )
    assert "Stories that fooled their opponent, per round" in page
    assert page.count('<figure class="plot"><svg') == 8
    # Round 2: 12 stories answered, 6 fooled the model.
    assert "<td>12</td>" in page and "<td>50%</td>" in page
