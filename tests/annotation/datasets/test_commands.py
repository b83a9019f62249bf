"""The import_dataset, export_dataset, analyze and assign_splits commands, end to end."""

import json
import re
import shutil
from io import StringIO
from pathlib import Path

import datasets
import pytest
from django.core.management import CommandError, call_command

from annotation.analysis.cards import markdown_cell
from annotation.analysis.definitions import DEFINITIONS
from annotation.analysis.selectors import DATASET_DEFINITIONS, definitions
from annotation.models import Narrative, Proverb
from annotation.opponents.evaluation import ROUNDS_DEFINITIONS
from annotation.task_types.align.models import SpanPair
from tests.factories import (
    alignment_create,
    choice_answer_create,
    crowd_narrative_create,
    proverb_create,
    rating_create,
    worker_create,
)

pytestmark = pytest.mark.django_db
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "epic"


def _call(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def _import_json(path: Path, *options) -> dict:
    """The JSON report (the fixture leaves one span out: a partial import, allowed here)."""
    return json.loads(
        _call(
            "import_dataset", "--format", "epic", str(path), "--json", "--allow-partial", *options
        )
    )


def _resolvable_fixture(tmp_path: Path) -> Path:
    """The fixture with its one unresolvable span slot emptied: every record round-trips."""
    records = json.loads((FIXTURE / "dataset.json").read_text())
    fields = records[2]["fields"]
    fields["span_quote_3"] = fields["span_narrative_3"] = ""
    path = tmp_path / "epic.json"
    path.write_text(json.dumps(records, indent=1))
    return path


def _database_state() -> tuple:
    return (
        list(Proverb.objects.values_list("id", "text", "status").order_by("id")),
        list(
            Narrative.objects.values_list(
                "id", "external_id", "text", "proverb_id", "split_seen", "split_unseen"
            ).order_by("id")
        ),
        list(SpanPair.objects.values().order_by("id")),
    )


# --------------------------------------------------------------------------- import


def test_import_json_report_counts_ambiguous_and_unresolved_spans():
    report = _import_json(FIXTURE / "dataset.json", "--splits", str(FIXTURE / "splits"))
    assert {key: value for key, value in report.items() if key not in ("errors", "warnings")} == {
        "proverbs": 3,
        "proverbs_created": 3,
        "narratives": 6,
        "narratives_created": 6,
        "narratives_updated": 0,
        "narratives_unchanged": 0,
        "span_pairs": 11,
        "ambiguous_spans": 1,
        "unresolved_spans": 1,
        "splits": {"seen": {"train": 4, "test": 2}, "unseen": {"train": 4, "test": 2}},
        "inexact_matches": [],
        "partial": True,
        "keywords_extracted": 6,
    }
    [error] = report["errors"]
    assert (error["record"], error["pk"], error["slot"]) == (3, "Q1N3", 3)
    assert report["warnings"] == []


def test_import_of_a_file_that_is_not_json_fails_and_writes_nothing(tmp_path):
    path = tmp_path / "epic.json"
    path.write_text("pk,quote\nQ1N1,Time is money\n")
    out = StringIO()
    with pytest.raises(CommandError, match="Nothing was imported: The file is not JSON"):
        call_command("import_dataset", str(path), "--json", stdout=out, stderr=StringIO())
    report = json.loads(out.getvalue())
    assert report["narratives_created"] == 0
    assert report["errors"][0]["record"] == 0
    assert Proverb.objects.count() == Narrative.objects.count() == 0


def test_import_with_wrong_fields_names_the_record_and_writes_nothing(tmp_path):
    records = json.loads((FIXTURE / "dataset.json").read_text())
    records[3]["fields"]["story"] = records[3]["fields"].pop("narrative")
    path = tmp_path / "epic.json"
    path.write_text(json.dumps(records))
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("import_dataset", str(path), "--json", stdout=out, stderr=StringIO())
    [error] = json.loads(out.getvalue())["errors"]
    assert (error["record"], error["pk"]) == (4, "Q2N1")
    assert "lacks field(s) narrative; has unknown field(s) story" in error["message"]
    assert Proverb.objects.count() == Narrative.objects.count() == 0


class Terminal(StringIO):
    """A stream that says it is a terminal, as a researcher's stderr is."""

    def isatty(self) -> bool:
        return True


def test_import_draws_a_bar_per_stage_with_counts_and_time_left_on_a_terminal():
    terminal = Terminal()
    path = str(FIXTURE / "dataset.json")
    call_command("import_dataset", path, "--allow-partial", stdout=StringIO(), stderr=terminal)
    bars = terminal.getvalue()
    for stage in ("Resolving spans", "Writing narratives", "Extracting keywords"):
        assert re.search(rf"{stage}: 100%\|[^|]*\| 6/6 \[\d\d:\d\d<\d\d:\d\d", bars), stage


@pytest.mark.parametrize("json_flag, stream", [(["--json"], Terminal), ([], StringIO)])
def test_import_draws_no_bar_under_json_nor_without_a_terminal(json_flag, stream):
    errors = stream()
    path = str(FIXTURE / "dataset.json")
    call_command(
        "import_dataset", path, "--allow-partial", *json_flag, stdout=StringIO(), stderr=errors
    )
    assert "Resolving spans" not in errors.getvalue()
    assert "%|" not in errors.getvalue()


def test_import_of_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match=r"Cannot read .*missing\.json"):
        call_command("import_dataset", str(tmp_path / "missing.json"))


def test_import_with_a_splits_folder_holding_no_split_file_is_refused(tmp_path):
    with pytest.raises(CommandError, match="No split files in"):
        call_command("import_dataset", str(FIXTURE / "dataset.json"), "--splits", str(tmp_path))
    assert Narrative.objects.count() == 0


def test_import_with_a_split_file_missing_names_it_and_writes_nothing():
    with pytest.raises(CommandError) as raised:
        _call(
            "import_dataset",
            str(FIXTURE / "dataset.json"),
            "--splits",
            str(FIXTURE / "splits_incomplete"),
        )
    assert str(raised.value) == (
        "Nothing was imported: The split files lack epic_unseen_test_pks.json (each of seen "
        "and unseen needs its train and its test file); give all four."
    )
    assert raised.value.returncode == 1
    assert Narrative.objects.count() == 0


def test_a_partial_import_exits_1_naming_the_record_and_slot_unless_allowed():
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("import_dataset", str(FIXTURE / "dataset.json"), stdout=out, stderr=err)
    assert str(raised.value) == (
        "Partial import: left out Q1N3 slot 3; the rest was imported. Fix the files and import "
        "again, or pass --allow-partial to accept a partial import."
    )
    assert raised.value.returncode == 1
    assert out.getvalue().startswith("Partial import: 6 record(s): 6 created")
    assert "Q1N3 slot 3: span_narrative_3 " in err.getvalue()
    assert Narrative.objects.count() == 6
    allowed = _call("import_dataset", str(FIXTURE / "dataset.json"), "--allow-partial")
    assert allowed.startswith("Partial import: 6 record(s): 0 created, 0 updated, 6 unchanged")


def test_an_unknown_pk_in_a_split_file_exits_1_unless_allowed(tmp_path):
    folder = tmp_path / "splits"
    shutil.copytree(FIXTURE / "splits", folder)
    (folder / "epic_unseen_test_pks.json").write_text('["Q2N1", "Q9N9", "Q2N2"]')
    source = _resolvable_fixture(tmp_path)
    with pytest.raises(CommandError) as raised:
        _call("import_dataset", str(source), "--splits", str(folder))
    assert str(raised.value) == (
        "Partial import: left out split pk Q9N9; the rest was imported. Fix the files and "
        "import again, or pass --allow-partial to accept a partial import."
    )
    assert raised.value.returncode == 1
    assert Narrative.objects.filter(split_unseen="test").count() == 2
    with pytest.raises(CommandError, match=r"^Partial import: left out split pk Q9N9;"):
        _call("assign_splits", "--from", str(folder))
    assert "unseen: 4 train, 2 test" in _call(
        "assign_splits", "--from", str(folder), "--allow-partial"
    )


def test_a_truncated_file_names_line_column_and_the_last_complete_record():
    out = StringIO()
    with pytest.raises(CommandError) as raised:
        call_command(
            "import_dataset",
            str(FIXTURE / "truncated.json"),
            "--json",
            stdout=out,
            stderr=StringIO(),
        )
    assert str(raised.value) == (
        "Nothing was imported: The file is not JSON: Unterminated string starting at line 42, "
        "column 4. The last complete record is record 2 (Q1N2), ending on line 35; if the "
        "file was cut short, the records after it are missing."
    )
    assert json.loads(out.getvalue())["errors"][0]["record"] == 0
    assert Narrative.objects.count() == 0


def test_exported_split_files_keep_the_order_of_the_imported_ones(tmp_path):
    source = _resolvable_fixture(tmp_path)
    _import_json(source, "--splits", str(FIXTURE / "splits_shuffled"))
    _call("export_dataset", "--format", "epic", str(tmp_path / "out"), "--no-statistics")
    for split in (FIXTURE / "splits_shuffled").iterdir():
        assert (tmp_path / "out" / split.name).read_bytes() == split.read_bytes()


def test_reimport_of_the_same_file_changes_nothing():
    _import_json(FIXTURE / "dataset.json", "--splits", str(FIXTURE / "splits"))
    before = _database_state()
    report = _import_json(FIXTURE / "dataset.json", "--splits", str(FIXTURE / "splits"))
    assert (report["narratives_created"], report["narratives_updated"]) == (0, 0)
    assert report["narratives_unchanged"] == 6
    assert _database_state() == before


# --------------------------------------------------------------------------- round trip and export


def test_round_trip_epic_to_parable_to_epic_gives_the_same_records(tmp_path):
    source = _resolvable_fixture(tmp_path)
    _import_json(source, "--splits", str(FIXTURE / "splits"))
    _call("export_dataset", "--format", "epic", str(tmp_path / "out"), "--no-statistics")
    exported = json.loads((tmp_path / "out" / "epic.json").read_text())
    assert exported == json.loads(source.read_text())
    for split in (FIXTURE / "splits").iterdir():
        assert set(json.loads((tmp_path / "out" / split.name).read_text())) == set(
            json.loads(split.read_text())
        )


def test_round_trip_into_a_database_with_similar_proverbs_is_exact(tmp_path):
    source = _resolvable_fixture(tmp_path)
    for record in json.loads(source.read_text()):
        quote = record["fields"]["quote"]
        if not Proverb.objects.filter(text=quote.upper() + "!").exists():
            proverb_create(quote.upper() + "!")
    report = _import_json(source)
    assert report["proverbs_created"] == 0
    assert len(report["inexact_matches"]) == report["proverbs"]
    assert report["unresolved_spans"] == 0
    _call("export_dataset", "--format", "epic", str(tmp_path / "out"), "--no-statistics")
    assert json.loads((tmp_path / "out" / "epic.json").read_text()) == json.loads(
        source.read_text()
    )


def test_import_takes_a_release_folder_with_label_maps(tmp_path):
    folder = tmp_path / "splits"
    shutil.copytree(FIXTURE / "splits", folder)
    for name in ("seen_label_map.json", "unseen_label_map.json"):
        (folder / name).write_text('{"0": "Time is money"}')
    report = _import_json(FIXTURE / "dataset.json", "--splits", str(folder))
    assert report["splits"]["seen"]["train"] > 0


def test_reimport_of_the_epic_export_changes_nothing(tmp_path):
    crowd_narrative_create(proverb=proverb_create("Haste makes waste"), text="Lia rushed it.")
    _import_json(FIXTURE / "dataset.json", "--splits", str(FIXTURE / "splits"))
    out = tmp_path / "out"
    _call("export_dataset", "--format", "epic", str(out), "--no-statistics")
    before = _database_state()
    report = _import_json(out / "epic.json", "--splits", str(out))
    assert report["narratives_unchanged"] == 7
    assert report["proverbs_created"] == report["narratives_created"] == 0
    assert _database_state() == before


@pytest.mark.parametrize(("format", "builder"), [("parquet", "parquet"), ("jsonl", "json")])
def test_export_loads_with_hugging_face_datasets(tmp_path, format, builder):
    _import_json(FIXTURE / "dataset.json", "--splits", str(FIXTURE / "splits"))
    out = tmp_path / "out"
    _call("export_dataset", "--format", format, str(out), "--no-statistics")
    data_file = next(path for path in out.iterdir() if path.name.startswith("dataset."))
    loaded = datasets.load_dataset(
        builder, data_files=str(data_file), split="train", cache_dir=str(tmp_path / "hf")
    )
    assert loaded.num_rows == 6
    row = next(row for row in loaded if row["pk"] == "Q2N1")
    assert row["proverb"] == "Don't count your chickens before they hatch"
    assert (row["split_seen"], row["split_unseen"]) == ("train", "test")
    pair = row["span_pairs"][1]
    assert row["narrative"][pair["narrative_start"] : pair["narrative_end"]] == (
        "before the contract was signed"
    )
    assert row["worker"] is None


def test_export_of_each_format_writes_data_and_card(tmp_path):
    _import_json(FIXTURE / "dataset.json")
    for format, name in [
        ("epic", "epic.json"),
        ("jsonl", "dataset.jsonl"),
        ("csv", "dataset.csv"),
        ("parquet", "dataset.parquet"),
    ]:
        out = tmp_path / format
        _call("export_dataset", "--format", format, str(out), "--no-statistics")
        assert (out / name).stat().st_size > 0
        assert "# Parable dataset export" in (out / "README.md").read_text()
    loaded = datasets.load_dataset(
        "csv",
        data_files=str(tmp_path / "csv" / "dataset.csv"),
        split="train",
        cache_dir=str(tmp_path / "hf"),
    )
    assert loaded.num_rows == 6


def test_export_card_holds_the_statistics_and_every_definition(tmp_path):
    _import_json(FIXTURE / "dataset.json")
    _call("export_dataset", "--format", "jsonl", str(tmp_path), "--newer-flesch")
    card = (tmp_path / "README.md").read_text()
    assert "| Narratives (approved) | 6 |" in card
    for key, text in definitions().items():
        assert markdown_cell(text) in card, key


def test_export_card_gives_the_papers_flesch_and_the_newer_only_on_request(tmp_path):
    _import_json(FIXTURE / "dataset.json")

    def statistics_rows(folder: str) -> set[str]:  # | statistic | value | definition |
        card = (tmp_path / folder / "README.md").read_text()
        return {line.split("|")[1].strip() for line in card.splitlines() if line.count("|") == 4}

    from annotation.analysis.definitions import LABELS

    newer = {label for key, label in LABELS.items() if key.startswith("readability.newer_")}
    _call("export_dataset", "--format", "jsonl", str(tmp_path / "default"))
    rows = statistics_rows("default")
    assert LABELS["readability.flesch_mean"] in rows
    assert newer and not rows & newer
    _call("export_dataset", "--format", "jsonl", str(tmp_path / "newer"), "--newer-flesch")
    assert LABELS["readability.newer_flesch_mean"] in statistics_rows("newer")


def test_export_of_an_unknown_batch_is_refused(tmp_path):
    with pytest.raises(CommandError, match="No batch with id 999"):
        call_command("export_dataset", "--format", "csv", str(tmp_path), "--batch", "999")


@pytest.mark.parametrize("format", ["jsonl", "epic"])
def test_export_defaults_to_approved_narratives_and_the_card_says_so(tmp_path, format):
    proverb = proverb_create("Time is money")
    crowd_narrative_create(proverb=proverb, text="Approved story.", status="approved")
    crowd_narrative_create(proverb=proverb, text="Rejected story.", status="rejected")
    crowd_narrative_create(proverb=proverb, text="Unreviewed story.", status="submitted")
    _call("export_dataset", "--format", format, str(tmp_path), "--no-statistics")
    data = next(path for path in tmp_path.iterdir() if path.name != "README.md")
    assert "Approved story." in data.read_text()
    assert "Rejected story." not in data.read_text()
    assert "Unreviewed story." not in data.read_text()
    assert "statuses: approved narratives only (the default)." in (
        (tmp_path / "README.md").read_text()
    )


def test_export_of_every_status_is_asked_for_and_written_into_the_card(tmp_path):
    proverb = proverb_create("Time is money")
    crowd_narrative_create(proverb=proverb, status="approved")
    crowd_narrative_create(proverb=proverb, status="rejected")
    _call("export_dataset", "--format", "jsonl", str(tmp_path), "--all-statuses", "--no-statistics")
    lines = (tmp_path / "dataset.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["status"] for line in lines) == ["approved", "rejected"]
    assert "statuses: every status (submitted, rejected" in (tmp_path / "README.md").read_text()


# --------------------------------------------------------------------------- analyze


def _tiny_dataset() -> None:
    """Three approved narratives (two proverbs) and a rejected one, hand-countable."""
    time, haste = proverb_create("Time is money"), proverb_create("Haste makes waste")
    writer = worker_create()
    first = crowd_narrative_create(
        proverb=time, text="The cat sat.", worker=writer, split_seen="train"
    )
    crowd_narrative_create(proverb=haste, text="Dogs bark loudly at night.", worker=writer)
    crowd_narrative_create(proverb=time, text="Money talks.", split_seen="test")
    crowd_narrative_create(proverb=haste, text="Rejected story here.", status="rejected")
    alignment_create(narrative=first, pairs=[(0, 7, 0, 7)])  # "Time is" ~ "The cat"
    rating_create(narrative=first, criterion="overall", value=4)
    rating_create(narrative=first, criterion="overall", value=2)
    answer = choice_answer_create(narrative=first, correct=True)
    choice_answer_create(narrative=first, correct=False, question=answer.question)


def test_analyze_json_has_every_documented_key_and_hand_counted_values(tmp_path):
    _tiny_dataset()
    _call("analyze", "--json", str(tmp_path / "analysis.json"))
    result = json.loads((tmp_path / "analysis.json").read_text())
    documented = {
        key.split(".")[0] for key in {**DEFINITIONS, **DATASET_DEFINITIONS, **ROUNDS_DEFINITIONS}
    }
    assert set(result) == documented
    assert result["rounds"] == {"by_round": [], "evaluation": None}  # no story in a round
    assert (result["schema_version"], result["proverbs"], result["narratives"]) == (2, 2, 3)
    assert result["collection"] == {
        "submitted": 4,
        "approved": 3,
        "distinct_workers": 3,
        "approved_per_worker_mean": 1.0,
        "approved_per_worker_max": 2,
        "unknown_writer": 0,
    }
    assert result["tokens_per_narrative"] == pytest.approx(10 / 3)
    assert result["vocabulary_size"] == 10
    assert (result["unique_bigrams"], result["unique_trigrams"]) == (7, 4)
    assert result["sentences_per_narrative"] == 1.0
    assert result["span_pairs_per_narrative"] == pytest.approx(1 / 3)
    assert result["words_per_proverb_span"] == result["words_per_narrative_span"] == 2.0
    assert result["jaccard"]["1"]["paired"] == pytest.approx(0.25 / 3)
    assert result["common_ngrams"]["1"]["paired"] == pytest.approx(1 / 3)
    assert result["diversity"]["same_proverb_pairs"] == 1
    assert result["diversity"]["different_proverb_pairs"] == 2
    evaluation = result["human_evaluation"]
    assert evaluation["ratings"]["overall"]["dataset"]["mean"] == 3.0
    assert evaluation["pairwise_agreement"]["overall"] == 0.0
    assert evaluation["choice_accuracy"]["human"] == 0.5
    assert evaluation["choice_accuracy"]["model"] is None
    assert result["splits"] == {
        "seen": {"train": 1, "test": 1, "none": 1},
        "unseen": {"train": 0, "test": 0, "none": 3},
    }
    assert result["scope"] == {
        "batches": [],
        "approved_only": False,
        "sources": ["crowd", "imported"],
        "narratives_loaded": 4,
    }


def test_analyze_json_to_standard_output_and_a_bar_on_the_terminal_only_without_it():
    _tiny_dataset()
    out, err = StringIO(), Terminal()
    call_command("analyze", "--json", "-", "--approved-only", stdout=out, stderr=err)
    assert json.loads(out.getvalue())["collection"]["submitted"] == 3
    assert "%|" not in err.getvalue()
    call_command("analyze", "--approved-only", stdout=StringIO(), stderr=err)
    assert re.search(r"100%\|[^|]*\| 3/3 ", err.getvalue())


def test_analyze_without_json_prints_the_statistics():
    _tiny_dataset()
    assert "  Narratives (approved): 3" in _call("analyze")


# --------------------------------------------------------------------------- assign_splits


def test_assign_splits_command_reports_counts():
    proverb = proverb_create()
    for k in range(10):
        crowd_narrative_create(proverb=proverb, text=f"Story {k}.")
    result = json.loads(_call("assign_splits", "--seed", "4", "--json"))
    assert result["splits"] == {"seen": {"train": 6, "test": 4}, "unseen": {"train": 10, "test": 0}}


def test_assign_splits_from_files(tmp_path):
    _import_json(FIXTURE / "dataset.json")
    shutil.copytree(FIXTURE / "splits", tmp_path / "splits")
    result = json.loads(_call("assign_splits", "--from", str(tmp_path / "splits"), "--json"))
    assert result == {
        "splits": {"seen": {"train": 4, "test": 2}, "unseen": {"train": 4, "test": 2}},
        "unknown": [],
    }


def test_analyze_and_export_take_the_sources_asked_for(tmp_path):
    proverb = proverb_create("Time is money")
    crowd_narrative_create(proverb=proverb, text="Raj lost customers every minute.")
    Narrative.objects.create(
        proverb=proverb, text="A model wrote this.", source="model", status="approved"
    )
    default = json.loads(_call("analyze", "--json", "-"))
    assert default["scope"]["narratives_loaded"] == 1
    assert default["scope"]["sources"] == ["crowd", "imported"]
    model = json.loads(_call("analyze", "--json", "-", "--source", "model"))
    assert (model["scope"]["narratives_loaded"], model["scope"]["sources"]) == (1, ["model"])
    _call("export_dataset", str(tmp_path), "--format", "jsonl", "--source", "model")
    rows = (tmp_path / "dataset.jsonl").read_text().splitlines()
    assert [json.loads(row)["narrative"] for row in rows] == ["A model wrote this."]
    assert "sources: model" in (tmp_path / "README.md").read_text()


@pytest.mark.django_db(transaction=True)
def test_the_import_stores_for_each_story_what_the_one_story_path_stores():
    """The command's bulk path (spaCy over the texts in chunks with their kept scores, the
    integrity check on its lane beside them) against each story's own: its keywords
    extracted alone, its text scored alone, its dataset check run for it alone."""
    from annotation.analysis.keywords import narrative_keywords_extract
    from annotation.analysis.text_scores import stored_scores, texts_score_keep
    from annotation.models import NarrativeIntegrity, TextScores
    from annotation.quality.similarity_scan import imported_similarity_check

    def stored(narrative):
        integrity = NarrativeIntegrity.objects.get(narrative=narrative)
        return narrative.keywords, stored_scores([narrative.text])[0], integrity.similarity

    release = FIXTURE.parent / "epic_release" / "epic.json"
    call_command("import_dataset", str(release), "--allow-partial", stdout=StringIO())
    imported = list(Narrative.objects.order_by("id"))
    in_bulk = {narrative.pk: stored(narrative) for narrative in imported}
    assert all(keywords["verbs"] and scores for keywords, scores, _ in in_bulk.values())
    assert all(similarity["proverb"] for _, _, similarity in in_bulk.values())
    TextScores.objects.all().delete()
    NarrativeIntegrity.objects.update(similarity={}, checked_at=None)
    for narrative in imported:
        narrative = narrative_keywords_extract(narrative_id=narrative.pk, force=True)
        texts_score_keep([narrative.text])
        assert imported_similarity_check(narrative_ids=[narrative.pk]) == 1
        assert stored(narrative) == in_bulk[narrative.pk]
