"""crowd.task_types: a task type added as one package (tests/crowd/sample_task_type/) and
one registry line runs through the whole platform (create batch, its page, submit, review,
agreement, export) by its declared interface alone, and nothing else names it."""

import importlib
import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from django.apps import apps
from django.contrib.staticfiles import finders
from django.db import connection

from annotation.analysis.jobs import dataset_state_key
from annotation.analysis.methods import methods_document
from annotation.analysis.methods_render import methods_markdown
from annotation.analysis.selectors import dataset_analysis
from annotation.exports.dataset import dataset_export
from annotation.quality.gold import gold_items_add
from crowd import task_types
from crowd.models import Assignment, Batch
from tests.crowd.sample_task_type.task import GlossTask
from tests.factories import crowd_narrative_create, invite_path, proverb_create, worker_create

pytestmark = pytest.mark.django_db

SAMPLE = "tests.crowd.sample_task_type"
SAMPLE_DIR = Path(__file__).resolve().parent / "sample_task_type"
ROOT = SAMPLE_DIR.parents[2]


@pytest.fixture
def gloss_type(transactional_db):
    """The sample type registered as PACKAGES lists a type, its models imported as its app
    imports them and its table made (a type of the project adds a migration); taken out
    again afterwards, table and model with it."""
    task_type = task_types.package_register(SAMPLE)  # the registry line, as PACKAGES lists one
    task_types.package_module_import(SAMPLE, "models")
    gloss = importlib.import_module(f"{SAMPLE}.models").Gloss
    if "gloss" not in apps.all_models["annotation"]:  # taken out by an earlier test
        apps.register_model("annotation", gloss)
    with connection.schema_editor() as editor:
        editor.create_model(gloss)
    yield task_type
    task_types.unregister(task_type.key)
    with connection.schema_editor() as editor:
        editor.delete_model(gloss)
    del apps.all_models["annotation"]["gloss"]
    apps.clear_cache()


def _submit(client, assignment_id: int, payload: dict):
    return client.post(
        f"/tasks/a/{assignment_id}/submit/",
        json.dumps({"payload": payload, "submission_key": f"key-{assignment_id}"}),
        content_type="application/json",
    )


def test_a_type_added_as_a_package_runs_from_its_page_to_export(
    gloss_type, researcher_api, researcher, client, tmp_path
):
    story = crowd_narrative_create(
        proverb=proverb_create("Patience is a virtue"),
        text="Ana waited a year for the seeds to sprout.",
        status="approved",
    )
    created = researcher_api.post(
        "/api/batches/",
        {
            "name": "Glosses <b>1</b>",
            "task_type": "gloss",
            "items": [{"narrative": story.pk}],
            "target_per_item": 3,
            "publish": True,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    batch = Batch.objects.get(pk=created.json()["id"])
    assert batch.instructions == "Say in at most 8 words what the story means."

    workers = [worker_create() for _ in range(3)]
    glosses = ("Patience pays off", "patience wins", "Hurry <up>")
    assignments = []
    for worker, gloss in zip(workers, glosses, strict=True):
        client.get(invite_path(worker=worker))
        opened = client.get(f"/tasks/{batch.pk}/next/")
        assert opened.status_code == 302, opened.content
        page = client.get(opened["Location"])
        assignment = Assignment.objects.get(pk=page.context["assignment"])
        assignments.append(assignment)
        html = page.content.decode()
        # The page is the package's own template, its ES module the package's own file.
        assert page.templates[0].origin.name == str(SAMPLE_DIR / "templates" / "page.html")
        assert 'data-testid="narrative">Ana waited a year for the seeds to sprout.</p>' in html
        assert '<script type="module" src="/static/task_types/gloss/page.js">' in html
        if assignment == assignments[0]:
            refused = _submit(client, assignment.pk, {"gloss": ""})
            assert refused.status_code == 400
            assert refused.json()["error"] == "A gloss is 1 to 8 words."
            assert not apps.get_model("annotation", "Gloss").objects.exists()
        stored = _submit(client, assignment.pk, {"gloss": gloss})
        assert stored.status_code == 200, stored.content
        assert stored.json()["result"] == {"gloss": gloss}
        shown = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
        assert "Hurry &lt;up&gt;" in shown if gloss == "Hurry <up>" else gloss in shown
    assert finders.find("task_types/gloss/page.js") == str(SAMPLE_DIR / "static/page.js")

    client.force_login(researcher)
    shown = client.get(f"/admin/review/{batch.pk}/next/").json()["submission"]
    assert shown["assignment"] == assignments[0].pk
    assert shown["display"] == {"kind": "result", "fields": [["gloss", "Patience pays off"]]}
    state = dataset_state_key()
    for assignment, decision in zip(assignments, ("approve", "approve", "reject"), strict=True):
        decided = client.post(
            f"/admin/review/{batch.pk}/{assignment.pk}/decide/",
            {"decision": decision, "message": "Not a gloss of this story."},
        )
        assert decided.status_code == 200, decided.content
    assert dataset_state_key() != state  # the dashboard's analysis is computed again

    report = researcher_api.get(f"/api/agreement/{batch.pk}/").json()
    assert report["gloss"] == {"glosses": 2, "first_word_agreement": 1.0}
    assert [row["approved"] for row in report["quality"]["workers"]] == [1, 1, 0]
    listed = client.get("/admin/agreement/").content.decode()
    assert f'href="/admin/agreement/{batch.pk}/"' in listed
    page = client.get(f"/admin/agreement/{batch.pk}/").content.decode()
    assert '<p data-testid="gloss-agreement">2 gloss(es); first words agree in\n  1.000' in page
    assert "Glosses &lt;b&gt;1&lt;/b&gt;" in page

    records = json.loads(client.get(f"/admin/agreement/{batch.pk}/results/").content)
    assert [(r["assignment"], r["worker"], r["status"], r["gloss"]) for r in records] == [
        (assignment.pk, worker.pk, status, gloss)
        for assignment, worker, status, gloss in zip(
            assignments, workers, ("approved", "approved", "rejected"), glosses, strict=True
        )
    ]

    # The dataset asks the type for its part: an export column of the approved glosses, with
    # their annotators hashed, in every format; the methods section says what was collected.
    dataset_export(format="jsonl", directory=tmp_path / "jsonl")
    (row,) = [json.loads(line) for line in (tmp_path / "jsonl/dataset.jsonl").open()]
    assert [gloss["text"] for gloss in row["glosses"]] == ["Patience pays off", "patience wins"]
    assert all(len(gloss["annotator"]) == 16 for gloss in row["glosses"])
    dataset_export(format="parquet", directory=tmp_path / "parquet")
    table = pq.read_table(tmp_path / "parquet/dataset.parquet")
    assert table.column("glosses").to_pylist()[0][1]["text"] == "patience wins"
    dataset_export(format="csv", directory=tmp_path / "csv")
    assert "glosses" in (tmp_path / "csv/dataset.csv").read_text().splitlines()[0].split(",")
    assert "Approved glosses of the story" in (tmp_path / "csv/README.md").read_text()
    methods = methods_markdown(methods_document(analysis=dataset_analysis()))
    assert "Workers wrote 3 gloss(es) of stories, at most 8 words each." in methods


def _project_files():
    """Every source, template, script and setting file of the project, tests included."""
    skipped = {".venv", "node_modules", "var", "staticfiles", "__pycache__"}
    for folder, folders, files in os.walk(ROOT):
        folders[:] = [name for name in folders if name not in skipped and not name.startswith(".")]
        for name in files:
            if name.endswith((".py", ".html", ".js", ".mjs", ".toml", ".cfg", ".txt", ".env")):
                yield Path(folder) / name


def test_a_new_type_is_its_package_and_one_registry_line():
    """Nothing outside the package names it but the line that registers it (this module's
    fixture): no setting, no URL, no template or static folder listed anywhere."""
    naming = sorted(
        str(path.relative_to(ROOT))
        for path in _project_files()
        if SAMPLE_DIR not in path.parents and "sample_task_type" in path.read_text()
    )
    assert naming == ["tests/crowd/test_task_types.py"]  # whose fixture holds the line


def test_a_type_without_agreement_or_gold_is_refused_both(gloss_type, researcher_api):
    class PlainTask(GlossTask):
        key = "test_plain"
        agreement_template = ""

    task_types.register(PlainTask())
    try:
        story = crowd_narrative_create(proverb=proverb_create(), status="approved")
        created = researcher_api.post(
            "/api/batches/",
            {"name": "Plain", "task_type": "test_plain", "items": [{"narrative": story.pk}]},
            format="json",
        )
        assert created.status_code == 201, created.content
        batch = Batch.objects.get(pk=created.json()["id"])
        assert researcher_api.get(f"/api/agreement/{batch.pk}/").status_code == 404
        listed = researcher_api.get("/api/agreement/").json()["results"]
        assert batch.pk not in [row["id"] for row in listed]
        with pytest.raises(ValueError, match="Gloss a story batches have no gold items"):
            gold_items_add(batch=batch, narratives=[])
        assert batch.items.count() == 1
    finally:
        task_types.unregister("test_plain")


def test_settings_are_held_to_the_types_schema_with_null_where_it_allows():
    class Sized(GlossTask):
        def settings_schema(self):
            size = {"type": "integer", "minimum": 1, "nullable": True}
            return {"type": "object", "additionalProperties": False, "properties": {"size": size}}

    task_type = Sized()
    assert task_type.checked_settings({"size": None})["size"] is None
    with pytest.raises(ValueError, match=r"settings\.size: 0 is less than the minimum of 1"):
        task_type.checked_settings({"size": 0})
    with pytest.raises(ValueError, match="'colour' was unexpected"):
        task_type.checked_settings({"colour": "red"})
    assert task_types.TaskType().settings_schema() == {"type": "object"}
