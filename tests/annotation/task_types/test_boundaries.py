"""A task type is a boundary: nothing outside its package imports it or names its key, and
the platform runs with a type that keeps tables of its own taken out (the analysis, every
export format, the methods section, a run's snapshot, the dashboard and the admin index)."""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path

import pytest
from django.contrib import admin
from django.urls import get_resolver

import annotation
from annotation.analysis.methods import methods_document
from annotation.analysis.methods_render import methods_latex, methods_markdown
from annotation.analysis.selectors import dataset_analysis
from annotation.exports.dataset import dataset_export
from annotation.task_types import PACKAGES
from annotation.task_types.align.models import SpanPair
from annotation.task_types.template.models import TemplateAnswer
from crowd import task_types
from modeling.runs.snapshots import snapshot_freeze
from tests.factories import aligned_dataset_create, crowd_narrative_create, rating_create

ROOT = Path(annotation.__file__).parent.parent
PRODUCT = ("annotation", "common", "config", "crowd", "frontend", "modeling", "mturk", "prolific")


def _product_names() -> dict[Path, list[tuple[int, str, str]]]:
    """Each product module's imported modules and string constants: (line, kind, name)."""
    names = {}
    for app in PRODUCT:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            found = []
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom):
                    found.append((node.lineno, "imports", node.module or ""))
                elif isinstance(node, ast.Import):
                    found += [(node.lineno, "imports", alias.name) for alias in node.names]
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    found.append((node.lineno, "names", node.value))
            names[path] = found
    return names


def _own_command(path: Path, found: list, package: str, key: str) -> bool:
    """A command of the type's (Django finds commands in an app's management/commands/
    only): named for the type, it imports the Command of the type's package and no more."""
    return (
        path.parent == ROOT / "annotation/management/commands"
        and path.stem.startswith(f"{key}_")
        and [name for _, kind, name in found if kind == "imports"] == [f"{package}.command"]
    )


def reaches_into(names, package: str, key: str) -> list[str]:
    """Where a product module outside `package` imports it or names `key` in a string."""
    folder = ROOT / package.replace(".", "/")
    return [
        f"{path.relative_to(ROOT)}:{line} {kind} {name!r}"
        for path, found in names.items()
        if folder not in path.parents
        and path != ROOT / "annotation/task_types/__init__.py"
        and not _own_command(path, found, package, key)
        for line, kind, name in found
        if (kind == "imports" and (name == package or name.startswith(package + ".")))
        or (kind == "names" and name == key)
    ]


def test_no_module_outside_a_type_imports_it_or_names_its_key():
    names = _product_names()
    found = []
    for package in PACKAGES:
        key = importlib.import_module(f"{package}.task").task_type.key
        found += reaches_into(names, package, key)
    assert found == []


def test_a_reach_into_a_type_is_found():
    records = ROOT / "annotation/datasets/records.py"
    names = {
        records: [(25, "imports", "annotation.task_types.align.models"), (30, "names", "align")],
        ROOT / "annotation/task_types/align/task.py": [(1, "names", "align")],
        ROOT / "annotation/task_types/alignment.py": [(2, "imports", "annotation.task_types")],
        ROOT / "annotation/management/commands/align_batch.py": [
            (1, "imports", "annotation.task_types.align.command")
        ],
        ROOT / "annotation/management/commands/spans.py": [
            (1, "imports", "annotation.task_types.align.command")
        ],
    }
    assert reaches_into(names, "annotation.task_types.align", "align") == [
        "annotation/datasets/records.py:25 imports 'annotation.task_types.align.models'",
        "annotation/datasets/records.py:30 names 'align'",
        "annotation/management/commands/spans.py:1 imports 'annotation.task_types.align.command'",
    ]


@pytest.fixture
def without_align():
    """The align and template types taken out, as a deployment without their packages runs:
    not registered, their review lists not in the admin."""
    assert get_resolver().url_patterns  # the URLs as the process made them, before they went
    taken = {key: task_types.get(key) for key in ("align", "template")}
    admins = {model: admin.site._registry[model] for model in (SpanPair, TemplateAnswer)}
    for key in taken:
        task_types.unregister(key)
    for model in admins:
        admin.site.unregister(model)
    yield
    for model, model_admin in admins.items():
        admin.site.register(model, type(model_admin))
    for task_type in taken.values():
        task_types.register(task_type)


def _study() -> list:
    """Approved narratives in splits, aligned and rated, written in a crowd batch too."""
    narratives = aligned_dataset_create()
    proverb = narratives[0].proverb
    written = crowd_narrative_create(proverb=proverb, text="Mara waited out the long storm.")
    for narrative in [*narratives[:3], written]:
        rating_create(narrative=narrative, criterion="overall", value=4)
    return narratives


def _names_align(text: str) -> list[str]:
    """Where a text names the align or template type: a key, a label or a review list's
    address."""
    pattern = (
        r"(?<![\w-])align(?![\w-])|align spans|annotation/spanpair/"
        r"|mturk hit template|annotation/templateanswer/"
    )
    return re.findall(pattern, text, flags=re.IGNORECASE)


@pytest.mark.django_db
def test_the_platform_runs_with_a_type_with_tables_taken_out(
    without_align, tmp_path, client, researcher, django_capture_on_commit_callbacks
):
    _study()
    analysis = dataset_analysis()
    assert analysis["span_pairs_per_narrative"] is None  # unknown, not 0
    ratings = analysis["human_evaluation"]["ratings"]["overall"]
    assert sum(source["n"] for source in ratings.values()) == 4
    for format in ("epic", "jsonl", "csv", "parquet"):
        result = dataset_export(format=format, directory=tmp_path / format)
        written = " ".join(
            path.read_bytes().decode("utf-8", "replace") for path in (tmp_path / format).iterdir()
        )
        assert result.rows == 25, format
        assert "ratings" in written or format == "epic"
        assert _names_align(written) == [], format
    document = methods_document(analysis=analysis)
    for text in (methods_markdown(document), methods_latex(document)):
        assert "rating" in text and _names_align(text) == []
    snapshot = snapshot_freeze()
    assert snapshot.narratives == 25
    assert not any(example["alignments"] for example in snapshot.examples)
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        client.get("/admin/dataset/")
    for url in ("/admin/dataset/", "/admin/"):
        page = client.get(url)
        assert page.status_code == 200, url
        assert _names_align(page.content.decode()) == [], url


@pytest.mark.django_db
def test_with_the_type_registered_the_same_study_shows_it(tmp_path, client, researcher):
    """The checks above can fail: with align registered, its span pairs are exported and
    the admin index names it."""
    _study()
    dataset_export(format="jsonl", directory=tmp_path)
    rows = [json.loads(line) for line in (tmp_path / "dataset.jsonl").read_text().splitlines()]
    assert sum(len(row["span_pairs"]) for row in rows) == 24
    client.force_login(researcher)
    assert _names_align(client.get("/admin/").content.decode()) != []
