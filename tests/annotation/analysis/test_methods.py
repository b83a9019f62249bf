"""The generated methods and data statement: what a study collected here, an imported release
and an empty study each show, and no more; paper-style figures; LaTeX that pdflatex sets
within the text width."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.analysis import methods
from annotation.analysis.cards import markdown_table
from annotation.analysis.methods import MethodsPart, methods_document
from annotation.analysis.methods_render import latex_escape, methods_latex, methods_markdown
from annotation.analysis.selectors import dataset_analysis
from annotation.datasets.demo import demo_proverbs_load, demo_write_batch_ensure
from annotation.datasets.epic import dataset_import_epic
from annotation.models import NarrativeIntegrity
from common.prose import paper_number
from crowd.pledges import pledge_record
from tests.factories import (
    crowd_narrative_create,
    proverb_create,
    rating_create,
    worker_create,
    write_batch_create,
    writing_record,
)

pytestmark = pytest.mark.django_db

RELEASE = Path(__file__).resolve().parents[2] / "fixtures" / "epic_release"
# Of different sentiment (VADER): a proverb's score and its stories' then correlate.
PROVERBS = ("A friend in need is a friend indeed", "Misery loves company", "Time is money")
STORIES = (
    "Ana kept her umbrella by the door all spring, and when the storm came she was dry.",
    "Ben fixed the small leak in the roof at once; his neighbour waited and lost a wall.",
    "The twins saved a coin a week for a year and bought the bicycle they wanted.",
    "Mira practised the piano every evening, and by winter she played at the school fair.",
)


@pytest.fixture
def study():
    """A write batch with a pledge and a canary; three workers' stories reviewed, one
    rejected, each with its writing record."""
    proverbs = [proverb_create(text) for text in PROVERBS]
    batch = write_batch_create(
        proverbs=proverbs,
        name="Stories_about_proverbs_for_the_main_study_round_one",
        reward_cents=50,
        pledge="Please write without AI tools.",
        settings={"integrity": {"canary_word": "quixotic"}},
    )
    workers = [worker_create(display_name=f"Lab {n}") for n in range(3)]
    for number, text in enumerate(STORIES):
        status = "rejected" if number == 3 else "approved"
        narrative = crowd_narrative_create(
            proverb=proverbs[(0, 1, 2, 1)[number]],
            batch=batch,
            worker=workers[number % len(workers)],
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


def statement(**scope) -> str:
    return methods_markdown(methods_document(analysis=dataset_analysis(**scope)))


def import_release():
    splits = {path.name: path.read_bytes() for path in RELEASE.glob("*_pks.json")}
    dataset_import_epic(
        content=(RELEASE / "epic.json").read_bytes(), splits=splits, filename="epic.json"
    )


def test_a_study_collected_here_is_described_with_its_design_workers_pay_and_review(study):
    markdown = statement(batches=[study.pk])
    for heading in (
        "Data",
        "Items",
        "Task design and providers",
        "Workers, pay and review",
        "Integrity controls",
        "Dataset",
        "Where each figure comes from",
    ):
        assert f"### {heading}" in markdown
    assert "4 narratives collected here in batch #" in markdown
    assert "The batches collected here asked about 3 curated proverbs." in markdown
    assert "3 workers submitted 4 tasks (median 1, at most 2 per worker)." in markdown
    assert "Reviewers approved 3 and rejected 1." in markdown
    # The lab's currency is not set: the amount says so rather than pass for any currency.
    assert "for a reward of 0.50 (currency not recorded) per task" in markdown
    assert "Please write without AI tools." in markdown and "“quixotic”" in markdown
    assert "| Pasted & off topic" in markdown  # a cell is Markdown: no HTML to escape
    assert "writing record (" in markdown and "for 1 of the 4 narratives collected here" in markdown
    assert "### Imported data" not in markdown  # nothing was imported


def test_figures_are_written_as_a_paper_writes_them(study):
    markdown = statement(batches=[study.pk])
    # Paper-style labels, never the analysis' keys, in the tables.
    assert "| Narratives approved | 3 |" in markdown
    assert "| Distinct workers | 3 |" in markdown
    assert "collection.approved |" not in markdown
    assert "Dashboard → Collection (collection.approved)" in markdown  # keys name sources
    assert not re.search(r"\d\.?\d*e-\d", markdown)  # no 2.998e-05
    assert "Table 1:" not in markdown
    assert [paper_number(v) for v in (2.998e-05, 15.0625, 2500, 66.512, None)] == [
        "0.00003",
        "15.1",
        "2,500",
        "66.5",
        "unknown",
    ]


def test_one_worker_one_task_is_singular():
    batch = write_batch_create(proverbs=[proverb_create(PROVERBS[0])])
    crowd_narrative_create(proverb=batch.items.get().proverb, batch=batch, text=STORIES[0])
    assert "1 worker submitted 1 task (median 1, at most 1 per worker)." in statement()


def test_sentiment_correlation_and_reading_ease_are_reported(study):
    markdown = statement(batches=[study.pk])
    assert "Sentiment (VADER compound score of the whole text" in markdown
    assert "correlate with Pearson r = " in markdown
    assert "Readability: the Flesch reading ease of the narratives (textstat 0.7.2's rules" in (
        markdown
    )
    assert "Dashboard → Readability (readability.flesch_mean)" in markdown


def test_an_imported_release_is_described_as_imported_and_no_more():
    import_release()
    markdown = statement()
    assert "8 narratives imported as “ePiC” from epic.json" in markdown
    assert "8 narratives of 3 proverbs were imported from the file epic.json on " in markdown
    assert (
        "its records holding the fields quote, narrative, span_quote_1 to span_quote_5 and "
        "span_narrative_1 to span_narrative_5." in markdown
    )
    assert "The import created 3 proverbs from the records' quotes" in markdown
    assert "12 aligned span pairs came with 7 narratives" in markdown
    assert (
        "Their splits place 4 in train and 4 in test in the seen-proverbs setting and 5 in "
        "train and 3 in test in the unseen-proverbs setting." in markdown
    )
    assert (
        "who wrote these narratives, how many workers did and what they were paid are unknown"
        in (markdown)
    )
    # What did not happen is not said: no writing record, no workers, no curation.
    assert "writing record" not in markdown
    assert "### Workers, pay and review" not in markdown and "### Items" not in markdown
    assert "curated for the study" not in markdown
    assert "| Distinct workers | unknown |" in markdown
    assert "| Distinct workers | 0 |" not in markdown
    assert "The writers of the 8 narratives are unknown (imported), and so are the worker" in (
        markdown
    )


def test_an_import_of_proverbs_already_here_says_it_created_none():
    for text in (
        "Actions speak louder than words",
        "A stitch in time saves nine",
        "Don’t count your chickens before they hatch",
    ):
        proverb_create(text)
    import_release()
    markdown = statement()
    assert "The import created no proverb: each record's quote matched one already here." in (
        markdown
    )


def test_a_study_beside_an_import_describes_each_with_its_own_sentences(study):
    import_release()
    markdown = statement()
    assert "4 narratives collected here in batch #" in markdown
    assert "8 narratives imported as “ePiC”" in markdown
    assert "3 workers submitted 4 tasks" in markdown
    assert "### Imported data" in markdown
    assert "for 1 of the 4 narratives collected here" in markdown


def test_an_empty_study_says_it_holds_nothing():
    markdown = statement()
    assert "holds no narrative." in markdown
    assert "### Workers, pay and review" not in markdown
    assert "| Distinct workers | unknown |" in markdown


def test_demo_data_counts_nowhere():
    demo_proverbs_load()
    demo_batch, demo_workers = demo_write_batch_ensure()
    for item in demo_batch.items.all()[:2]:
        crowd_narrative_create(proverb=item.proverb, batch=demo_batch, worker=demo_workers[0])
    batch = write_batch_create(proverbs=[proverb_create("Fortune favours the patient gardener")])
    crowd_narrative_create(proverb=batch.items.get().proverb, batch=batch, text=STORIES[0])
    markdown = statement()
    assert "1 narrative collected here in batch #" in markdown
    assert "asked about 1 curated proverb." in markdown
    assert "Demo" not in markdown
    assert "| Narratives submitted or imported | 1 |" in markdown


def test_a_part_registered_by_another_app_is_written_in_its_place(study, monkeypatch):
    def baselines(doc, scope):
        doc.heading("Baselines")
        doc.paragraph(f"Trained on {scope.collected} narratives.")

    monkeypatch.setitem(methods._parts, "baselines", MethodsPart("baselines", 850, baselines))
    markdown = statement(batches=[study.pk])
    assert "### Baselines\n\nTrained on 4 narratives." in markdown
    assert markdown.index("### Dataset") < markdown.index("### Baselines")
    assert markdown.index("### Baselines") < markdown.index("### Where each figure comes from")


def test_latex_escapes_every_special_character(study):
    latex = methods_latex(methods_document(analysis=dataset_analysis(batches=[study.pk])))
    assert r"\section*{Methods and data statement}" in latex
    assert "longtable" not in latex  # it stops a two-column document
    assert r"Pasted \& off topic: 100\% copied\_text." in latex
    text = re.sub(r"\$(\\[a-zA-Z]+|-)\$|\\[a-zA-Z]+\*?(\{[^}]*\})?|\\[&%$#_{}]| & |\\\\", "", latex)
    text = "\n".join(line for line in text.splitlines() if not line.startswith("%"))
    assert not re.search(r"[&%$#_]", text)


def test_markdown_cells_escape_only_what_markdown_reads_as_html():
    table = markdown_table(
        ["p", "note"], [["< 0.001", "Q&A <b>bold</b> &amp; x<y | r > 0.3"], [-0.25, "−1"]]
    )
    assert table.splitlines()[2] == (
        "| < 0.001 | Q&A &lt;b>bold&lt;/b> &amp;amp; x&lt;y \\| r > 0.3 |"
    )


def test_latex_prints_minus_signs_as_minus_signs_and_hyphens_as_hyphens():
    assert latex_escape(-0.25) == "$-$0.25"
    assert latex_escape("r = -0.31, −2 (2020-01-05, well-known)") == (
        "r = $-$0.31, $-$2 (2020-01-05, well-known)"
    )


def test_latex_escape_covers_the_special_characters_and_typography():
    assert latex_escape("a_b & 50% #1 {x} ~ ^ $") == (
        r"a\_b \& 50\% \#1 \{x\} \textasciitilde{} \textasciicircum{} \$"
    )
    assert latex_escape("“quoted” – Dashboard → x") == r"``quoted'' -- Dashboard $\rightarrow$ x"
    assert latex_escape("epic_seen_train_pks.json") == (
        r"epic\_see\allowbreak{}n\_train\_\allowbreak{}pks.json"
    )


# An article, and a two-column paper laid out as ACL's style lays it out (its text block and
# column separation) with LaTeX's base alone.
LAYOUTS = {
    "article": "\\documentclass{article}\n",
    "two columns": "\\documentclass[11pt,twocolumn]{article}\n"
    "\\setlength\\textwidth{16.0cm}\\setlength\\columnsep{0.6cm}\\setlength\\textheight{24.7cm}\n"
    "\\setlength\\oddsidemargin{-0.5cm}\\setlength\\topmargin{-1.5cm}\n",
}


def compiled(latex: str, tmp_path, layout: str = "article") -> str:
    """pdflatex's log of the fragment in a paper of `layout` (LAYOUTS); fails when pdflatex
    is missing."""
    pdflatex = shutil.which("pdflatex")
    assert pdflatex, (
        "pdflatex is not installed, so the methods section cannot be checked for overfull "
        "boxes: tests/run.sh installs it (apt-get install --no-install-recommends "
        "texlive-latex-base)."
    )
    (tmp_path / "methods.tex").write_text(latex, encoding="utf-8")
    (tmp_path / "paper.tex").write_text(
        LAYOUTS[layout] + "\\usepackage[utf8]{inputenc}\n\\usepackage{array}\n"
        "\\begin{document}\n\\input{methods}\n\\end{document}\n",
        encoding="utf-8",
    )
    for _ in range(2):  # references settle on the second run
        done = subprocess.run(
            [pdflatex, "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout[-3000:]
    return (tmp_path / "paper.log").read_text(encoding="latin-1")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_latex_section_compiles_with_tables_within_the_text_width(study, tmp_path, layout):
    import_release()
    study.instructions = "Write a story (see https://example.org/a_very_long_path_of_the_guide)."
    study.save()
    rating_create(
        narrative=study.items.first().proverb.narratives.first(), criterion="overall", value=4
    )
    latex = methods_latex(methods_document(analysis=dataset_analysis()))
    log = compiled(latex, tmp_path, layout)
    overfull = [line for line in log.splitlines() if line.startswith("Overfull")]
    assert overfull == [], overfull
    assert latex.count(r"\refstepcounter{table}") >= 5 and "Table~\\thetable: Table" not in latex


def test_methods_section_command_writes_markdown_and_latex(study, tmp_path):
    call_command("methods_section", "--batch", str(study.pk), "--out", tmp_path / "m.md")
    call_command(
        "methods_section", "--batch", str(study.pk), "--latex", "--out", tmp_path / "m.tex"
    )
    assert "### Integrity controls" in (tmp_path / "m.md").read_text()
    assert r"\subsection*{Integrity controls}" in (tmp_path / "m.tex").read_text()
