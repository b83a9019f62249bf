"""Dev slices, test parts and the snapshot hash, as plain Python."""

import pytest

from modeling.training.examples import Example, SnapshotError, content_hash, split_parts


def examples(proverbs: int = 10, per_proverb: int = 5) -> list[Example]:
    rows = []
    for p in range(1, proverbs + 1):
        for k in range(per_proverb):
            rows.append(
                Example(
                    narrative_id=p * 100 + k,
                    narrative=f"story {p} {k}",
                    proverb_id=p,
                    proverb=f"proverb {p}",
                    seen="train" if k < 3 else "test",
                    unseen="train" if p <= 6 else "test",
                )
            )
    return rows


def test_seen_dev_holds_one_train_narrative_per_proverb_and_keeps_one_label_set():
    parts = split_parts(examples(), setting="seen", seed=1)
    assert sorted(e.proverb_id for e in parts.dev) == list(range(1, 11))
    assert len(parts.train) == 20 and len(parts.test) == 20
    assert not {e.narrative_id for e in parts.dev} & {e.narrative_id for e in parts.train}
    assert parts.test_proverbs == parts.dev_proverbs == parts.train_proverbs
    assert len(parts.test_proverbs) == 10


def test_unseen_dev_holds_every_narrative_of_a_fifth_of_train_proverbs():
    rows = [
        Example(
            p * 100 + k, f"story {p} {k}", p, f"proverb {p}", "", "train" if p <= 15 else "test"
        )
        for p in range(1, 21)
        for k in range(4)
    ]
    parts = split_parts(rows, setting="unseen", seed=1)
    assert len({e.proverb_id for e in parts.dev}) == 3 and len(parts.dev) == 12
    assert len(parts.dev_proverbs) == 3


def test_unseen_dev_holds_at_least_one_proverb():
    parts = split_parts(examples(), setting="unseen", seed=1)
    dev_proverbs = {e.proverb_id for e in parts.dev}
    assert len(dev_proverbs) == 1 and len(parts.dev) == 5
    assert not dev_proverbs & {e.proverb_id for e in parts.train}
    assert [p for p, _ in parts.test_proverbs] == [7, 8, 9, 10]
    assert [p for p, _ in parts.dev_proverbs] == sorted(dev_proverbs)


def test_dev_slice_depends_on_seed_only():
    first = split_parts(examples(), setting="seen", seed=1).dev
    assert first == split_parts(examples(), setting="seen", seed=1).dev
    assert first != split_parts(examples(), setting="seen", seed=2).dev


def test_empty_snapshot_is_refused_with_what_to_do():
    with pytest.raises(SnapshotError, match="assign_splits"):
        split_parts([], setting="seen", seed=1)


def test_train_too_small_for_a_dev_slice_is_refused():
    with pytest.raises(SnapshotError, match="too small to hold out a dev slice"):
        split_parts(
            [
                Example(1, "story", 1, "one", "train", "train"),
                Example(2, "story", 1, "one", "test", "train"),
                Example(3, "story", 2, "two", "train", "test"),
                Example(4, "story", 2, "two", "test", "test"),
            ],
            setting="seen",
            seed=1,
        )


def test_retrieval_needs_no_dev_slice():
    parts = split_parts(examples(proverbs=3, per_proverb=4), setting="seen", seed=1, dev=False)
    assert parts.dev == [] and len(parts.train) == 9


def test_content_hash_ignores_order_and_sees_any_change():
    rows = examples(proverbs=2, per_proverb=2)
    assert content_hash(rows) == content_hash(list(reversed(rows)))
    changed = [*rows[:-1], Example(**{**rows[-1].__dict__, "seen": "test"})]
    assert content_hash(changed) != content_hash(rows)
