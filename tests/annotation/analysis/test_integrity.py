"""Shares of writing-integrity flags: overall, per batch, per worker."""

from annotation.analysis.integrity import FLAG_CODES, integrity_shares
from annotation.task_parts.records import IntegrityRecord


def record(batch, worker, *flags, has_record=True, checked=True):
    return IntegrityRecord(
        batch=batch,
        batch_name=f"Batch {batch}" if batch else "ePiC",
        worker=worker,
        flags=flags,
        has_record=has_record,
        checked=checked,
    )


def test_shares_are_fractions_of_narratives_with_each_flag():
    result = integrity_shares(
        [
            record(1, "7"),
            record(1, "8", "pasted", "near_duplicate"),
            record(2, "8", "pasted"),
            record(None, None, checked=False, has_record=False),
        ]
    )
    assert (result["narratives"], result["with_record"], result["checked"]) == (4, 3, 3)
    assert result["flagged"] == 0.5
    assert set(result["shares"]) == set(FLAG_CODES)
    assert result["shares"]["pasted"] == 0.5 and result["shares"]["near_duplicate"] == 0.25
    assert [(group["batch"], group["narratives"]) for group in result["by_batch"]] == [
        (1, 2),
        (2, 1),
        (None, 1),
    ]
    assert result["by_batch"][0]["shares"]["pasted"] == 0.5
    assert result["by_batch"][2]["name"] == "ePiC"
    assert [group["worker"] for group in result["by_worker"]] == ["8", "7"]
    assert result["by_worker"][0]["shares"]["pasted"] == 1.0


def test_no_narratives_give_no_shares():
    result = integrity_shares([])
    assert result["flagged"] is None and result["shares"]["pasted"] is None
    assert result["by_batch"] == [] and result["by_worker"] == []
