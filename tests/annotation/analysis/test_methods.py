"""The generated methods and data statement: the demo study's, in Markdown and LaTeX, every
dataset figure the dashboard's own."""

import re

import pytest
from django.core.management import call_command

from annotation.analysis.cards import analysis_sections, format_value
from annotation.analysis.methods import (
    latex_escape,
    methods_document,
    methods_latex,
    methods_markdown,
)
from annotation.analysis.selectors import dataset_analysis
from annotation.curation.demo import demo_proverbs_load, demo_write_batch_ensure
from annotation.models import NarrativeIntegrity
from crowd.pledges import pledge_record
from tests.factories import crowd_narrative_create, writing_record

pytestmark = pytest.mark.django_db

STORIES = (
    "Ana kept her umbrella by the door all spring, and when the storm came she was dry.",
    "Ben fixed the small leak in the roof at once; his neighbour waited and lost a wall.",
    "The twins saved a coin a week for a year and bought the bicycle they wanted.",
    "Mira practised the piano every evening, and by winter she played at the school fair.",
)


@pytest.fixture
def demo_study():
    """The demo batch with a pledge and a canary, three workers' stories reviewed."""
    demo_proverbs_load()
    batch, workers = demo_write_batch_ensure()
    batch.pledge = "Please write without AI tools."
    batch.settings = {**batch.settings, "integrity": {"canary_word": "quixotic"}}
    batch.save()
    proverbs = [item.proverb for item in batch.items.order_by("id")]
    for number, text in enumerate(STORIES):
        worker = workers[number % len(workers)]
        status = "rejected" if number == 3 else "approved"
        narrative = crowd_narrative_create(
            proverb=proverbs[number % len(proverbs)],
            batch=batch,
            worker=worker,
            text=text,
            status=status,
        )
        if status == "rejected":
            narrative.assignment.review_message = "Pasted & off topic: 100% copied_text."
            narrative.assignment.save()
        NarrativeIntegrity.objects.create(
            narrative=narrative,
            telemetry=writing_record(typed=0, keys=0, pasted=len(text)) if number == 3 else None,
        )
    for worker in workers:
        pledge_record(batch=batch, worker=worker)
    return batch


def test_demo_study_methods_render_in_markdown_with_the_dashboards_figures(demo_study):
    analysis = dataset_analysis(batches=[demo_study.pk])
    markdown = methods_markdown(methods_document(analysis=analysis))
    for heading in (
        "Items and curation",
        "Task design and providers",
        "Workers, pay and review",
        "Integrity controls",
        "Agreement and human evaluation",
        "Dataset",
        "Where each figure comes from",
    ):
        assert f"### {heading}" in markdown
    assert "3 workers submitted 4 tasks" in markdown
    assert "Reviewers approved 3, rejected 1" in markdown
    assert "Please write without AI tools." in markdown and "“quixotic”" in markdown
    assert "Pasted &amp; off topic" in markdown  # a cell is escaped for Markdown
    assert "Realised pay" in markdown and "Median minutes per task" in markdown
    # ePiC's Tables 1-3 are the dashboard's tables, figure for figure.
    sections = {section.key: section for section in analysis_sections(analysis)}
    for key in ("collection", "dataset"):
        for statistic, value, _ in sections[key].tables[0].rows:
            assert f"| {statistic} | {value} |" in markdown
            assert f"({statistic})" in markdown  # named in the sources table
    approved = format_value(analysis["collection"]["approved"])
    assert f"| collection.approved | {approved} |" in markdown
    pasted = format_value(analysis["integrity"]["shares"]["pasted"])
    assert f"| Pasted from outside | {pasted} |" in markdown
    assert "Dashboard → Writing integrity (integrity.shares.pasted)" in markdown


def test_demo_study_methods_render_in_latex_with_every_special_character_escaped(demo_study):
    latex = methods_latex(methods_document(analysis=dataset_analysis(batches=[demo_study.pk])))
    assert latex.startswith(r"\section*{Methods and data statement}")
    assert latex.count(r"\begin{tabular}") == latex.count(r"\end{tabular}") >= 6
    assert latex.count(r"\begin{quote}") == latex.count(r"\end{quote}") == 1
    assert r"Pasted \& off topic: 100\% copied\_text." in latex
    assert r"collection.approved & 3 \\" in latex
    # Nothing unescaped outside commands: no bare & % $ # _ in running text.
    text = re.sub(r"\\[a-zA-Z]+\*?(\{[^}]*\})?|\\[&%$#_{}]| & |\\\\", "", latex)
    assert not re.search(r"[&%$#_]", text)


def test_latex_escape_covers_the_special_characters():
    assert latex_escape("a_b & 50% #1 {x} ~ ^ $") == (
        r"a\_b \& 50\% \#1 \{x\} \textasciitilde{} \textasciicircum{} \$"
    )


def test_methods_section_command_writes_markdown_and_latex(demo_study, tmp_path):
    call_command("methods_section", "--batch", str(demo_study.pk), "--out", tmp_path / "m.md")
    call_command(
        "methods_section", "--batch", str(demo_study.pk), "--latex", "--out", tmp_path / "m.tex"
    )
    assert "### Integrity controls" in (tmp_path / "m.md").read_text()
    assert r"\subsection*{Integrity controls}" in (tmp_path / "m.tex").read_text()
