"""Factories for test rows: plain functions with sensible defaults, keyword overrides."""

from __future__ import annotations

import re
from datetime import timedelta
from itertools import count
from pathlib import Path

from django.utils import timezone

from annotation.models import Narrative, Proverb
from annotation.task_types.align.models import SpanPair
from annotation.task_types.choose.models import ChoiceAnswer, ChoiceQuestion
from annotation.task_types.rate.models import Rating
from annotation.text import normalize_text
from crowd.models import Assignment, Batch, BatchItem, Worker

_sequence = count(1)


def proverb_create(text: str | None = None, **fields) -> Proverb:
    text = text or f"Proverb number {next(_sequence)} speaks of patience"
    fields.setdefault("status", Proverb.Status.CURATED)
    return Proverb.objects.create(text=text, normalized_text=normalize_text(text), **fields)


def worker_create(**fields) -> Worker:
    fields.setdefault("provider", "local")
    fields.setdefault("external_id", f"worker-{next(_sequence)}")
    return Worker.objects.create(**fields)


def batch_create(**fields) -> Batch:
    fields.setdefault("name", f"Batch {next(_sequence)}")
    fields.setdefault("task_type", "write")
    return Batch.objects.create(**fields)


def assignment_create(*, item: BatchItem, worker: Worker, **fields) -> Assignment:
    now = timezone.now()
    fields.setdefault("expires_at", now + timedelta(hours=1))
    return Assignment.objects.create(item=item, worker=worker, **fields)


def narrative_create(*, proverb: Proverb, text: str = "A story.", **fields) -> Narrative:
    fields.setdefault("source", Narrative.Source.IMPORTED)
    return Narrative.objects.create(proverb=proverb, text=text, **fields)


def _submitted_now():
    """A submission time after the assignment's start (set when it is saved)."""
    return timezone.now() + timedelta(seconds=1)


def crowd_narrative_create(
    *,
    proverb: Proverb,
    text: str = "A story.",
    batch: Batch | None = None,
    worker: Worker | None = None,
    status: str = Narrative.Status.APPROVED,
    **fields,
) -> Narrative:
    """A narrative written in a write batch: its batch item, assignment and worker."""
    batch = batch or batch_create(task_type="write")
    worker = worker or worker_create()
    item, _ = BatchItem.objects.get_or_create(batch=batch, proverb=proverb)
    assignment = assignment_create(
        item=item, worker=worker, status=status, submitted_at=_submitted_now()
    )
    return Narrative.objects.create(
        proverb=proverb,
        text=text,
        source=Narrative.Source.CROWD,
        status=status,
        assignment=assignment,
        worker=worker,
        **fields,
    )


def alignment_create(
    *,
    narrative: Narrative,
    pairs: list[tuple[int, int, int, int]],
    batch: Batch | None = None,
    worker: Worker | None = None,
    status: str = "approved",
) -> Assignment:
    """One worker's alignment of a narrative: span pairs (proverb_start, proverb_end,
    narrative_start, narrative_end) in slots 1, 2, ..."""
    batch = batch or batch_create(task_type="align")
    item, _ = BatchItem.objects.get_or_create(batch=batch, narrative=narrative)
    assignment = assignment_create(
        item=item, worker=worker or worker_create(), status=status, submitted_at=_submitted_now()
    )
    proverb_text = narrative.proverb.text
    SpanPair.objects.bulk_create(
        SpanPair(
            narrative=narrative,
            assignment=assignment,
            position=position,
            proverb_start=p_start,
            proverb_end=p_end,
            proverb_span=proverb_text[p_start:p_end],
            narrative_start=n_start,
            narrative_end=n_end,
            narrative_span=narrative.text[n_start:n_end],
        )
        for position, (p_start, p_end, n_start, n_end) in enumerate(pairs, start=1)
    )
    return assignment


def rating_create(
    *,
    narrative: Narrative,
    criterion: str,
    value: int,
    batch: Batch | None = None,
    worker: Worker | None = None,
    status: str = "approved",
) -> Rating:
    """A Likert rating of a narrative made in a rate batch by one worker."""
    batch = batch or batch_create(task_type="rate")
    item, _ = BatchItem.objects.get_or_create(batch=batch, narrative=narrative)
    worker = worker or worker_create()
    assignment = Assignment.objects.filter(item=item, worker=worker).first() or assignment_create(
        item=item, worker=worker, status=status, submitted_at=_submitted_now()
    )
    return Rating.objects.create(
        narrative=narrative, assignment=assignment, criterion=criterion, value=value
    )


def choice_answer_create(
    *,
    narrative: Narrative,
    correct: bool,
    batch: Batch | None = None,
    worker: Worker | None = None,
    question: ChoiceQuestion | None = None,
    chosen: Proverb | None = None,
) -> ChoiceAnswer:
    """A worker's answer to a multiple-choice question about a narrative (a wrong answer
    chooses `chosen`, or a new proverb)."""
    question = question or ChoiceQuestion.objects.create(
        narrative=narrative,
        correct=narrative.proverb,
        options=[narrative.proverb_id],
        distractor_source="test",
    )
    batch = batch or batch_create(task_type="choose")
    item, _ = BatchItem.objects.get_or_create(batch=batch, choice_question=question)
    assignment = assignment_create(
        item=item,
        worker=worker or worker_create(),
        status="approved",
        submitted_at=_submitted_now(),
    )
    chosen = narrative.proverb if correct else chosen or proverb_create()
    return ChoiceAnswer.objects.create(
        question=question, assignment=assignment, chosen=chosen, is_correct=correct
    )


def batch_item_create(*, batch: Batch, **fields) -> BatchItem:
    fields.setdefault("position", next(_sequence))
    return BatchItem.objects.create(batch=batch, **fields)


def write_batch_create(*, proverbs: list[Proverb], **fields) -> Batch:
    """A published write batch with one item per proverb, through the crowd services."""
    from crowd.batches import batch_create as batch_create_service
    from crowd.batches import batch_publish

    fields.setdefault("name", f"Write batch {next(_sequence)}")
    batch = batch_create_service(
        task_type="write", items=[{"proverb": proverb} for proverb in proverbs], **fields
    )
    return batch_publish(batch=batch)


def written_batch_create(
    *, proverb: str = "Time is money", text: str = "He billed hours."
) -> Batch:
    """A published write batch of one proverb with one approved crowd narrative for it."""
    batch = write_batch_create(proverbs=[proverb_create(proverb)])
    crowd_narrative_create(proverb=batch.items.get().proverb, batch=batch, text=text)
    return batch


# A story for "Birds of a feather flock together" that passes the default rules (30 words).
BIRDS = "Birds of a feather flock together"
BIRDS_STORY = (
    "Maya and Leo met at a chess club and soon discovered they both loved old jazz records, "
    "spicy noodles and long walks before dawn. Within a month they were inseparable."
)


def task_batch_create(
    *, task_type: str, source_batch: Batch | None = None, publish: bool = True, **fields
) -> Batch:
    """An align, rate or choose batch through the crowd services; its items are drawn at once."""
    from crowd.batches import batch_create as batch_create_service
    from crowd.batches import batch_publish

    fields.setdefault("name", f"{task_type.capitalize()} batch {next(_sequence)}")
    batch = batch_create_service(task_type=task_type, source_batch=source_batch, **fields)
    return batch_publish(batch=batch) if publish else batch


def invite_path(*, worker: Worker, batch: Batch | None = None) -> str:
    """The path of a local worker's signed invite link (opening it signs the worker in)."""
    from django.urls import reverse

    from crowd.workers import invite_token

    return reverse("frontend:invite", args=[invite_token(worker=worker, batch=batch)])


def invite_token_issued_ago(*, worker: Worker, seconds: int) -> str:
    """A worker's invite token as if it had been issued `seconds` ago."""
    import time

    from django.core import signing

    from crowd.workers import INVITE_SALT

    class PastSigner(signing.TimestampSigner):
        def timestamp(self):
            return signing.b62_encode(int(time.time()) - seconds)

    return PastSigner(salt=INVITE_SALT).sign_object({"w": worker.pk, "b": None})


def prolific_batch_create(
    *, task_type: str = "write", items_per_session: int = 3, publish: bool = True, **fields
):
    """A batch run as a Prolific study (prepared, and published unless told otherwise);
    write batches take `proverbs`, align/rate/choose batches a `source_batch`."""
    from crowd.batches import batch_create as batch_create_service
    from prolific.client import ProlificClient
    from prolific.preflight import study_publish_at_cost
    from prolific.studies import study_cost, study_prepare

    proverbs = fields.pop("proverbs", [])
    fields.setdefault("name", f"Prolific batch {next(_sequence)}")
    fields.setdefault("reward_cents", 50)
    batch = batch_create_service(
        task_type=task_type, items=[{"proverb": proverb} for proverb in proverbs], **fields
    )
    study = study_prepare(batch=batch, items_per_session=items_per_session, estimated_minutes=5)
    batch.refresh_from_db()
    if not publish:
        return batch
    cost = study_cost(study=study)["total_cost"]
    # As the researcher confirms it once the pre-flight passed (tests/prolific/ check that
    # pre-flight, whose public URL check needs a live server).
    return study_publish_at_cost(study=study, cost_cents=round(cost), client=ProlificClient())


def mturk_batch_create(*, proverbs: list[Proverb], publish: bool = True, **fields) -> Batch:
    """A write batch set up for MTurk (title, description, reward) and, by default, published
    against whatever MTURK_ENDPOINT points at (the stand-in in tests)."""
    from crowd.batches import batch_create as batch_create_service
    from crowd.batches import batch_publish
    from mturk.publishing import publication_set

    fields.setdefault("name", f"MTurk batch {next(_sequence)}")
    fields.setdefault("reward_cents", 50)
    batch = batch_create_service(
        task_type="write", items=[{"proverb": proverb} for proverb in proverbs], **fields
    )
    publication_set(
        batch=batch,
        title="Write a short story for a proverb",
        description="Read a proverb and write a short story that conveys it.",
        keywords="writing, story, proverb",
    )
    if publish:
        batch = batch_publish(batch=batch)
    return batch


STORIES = {
    "Don't count your chickens before they hatch": [
        "Tom spent his lottery winnings in his head before the draw, and the ticket lost.",
        "She booked the party hall for her promotion, then the manager hired someone else.",
        "The farmer sold next year's harvest on credit, and a hailstorm flattened the field.",
        "He bragged about the scholarship to everyone, but the letter said he was rejected.",
    ],
    "The early bird catches the worm": [
        "Maya queued at dawn outside the shop and bought the last discounted laptop.",
        "Arriving first at the market, the baker chose the freshest flour of the day.",
        "He woke at five, applied for the job before anyone else, and was hired.",
        "The first fisherman on the lake at sunrise filled his boat by breakfast.",
    ],
    "Actions speak louder than words": [
        "He promised to help every week but never once showed up to carry boxes.",
        "Instead of apologising, she quietly repaired the fence her dog had broken.",
        "The mayor gave speeches about parks while the playground rusted away.",
        "My neighbour never says much, yet he shovels snow from my path every winter.",
    ],
    "Too many cooks spoil the broth": [
        "Five editors rewrote the report at once and it ended up contradicting itself.",
        "Every relative added spices to the stew until nobody could eat it.",
        "The committee of twelve argued over the logo until the design was a mess.",
        "All the managers gave the painter different orders and the wall looked awful.",
    ],
    "Honesty is the best policy": [
        "She admitted breaking the vase, and her mother thanked her for telling the truth.",
        "The cashier returned the extra change and the owner later promoted him.",
        "He confessed the mistake in the accounts and the auditor praised his candour.",
        "Owning up to the scratch on the car earned the boy his father's trust.",
    ],
    "Practice makes perfect": [
        "She played scales on the piano every evening until the concert went flawlessly.",
        "After hundreds of free throws each day, he finally never missed in the final.",
        "The apprentice carved spoon after spoon until his work matched the master's.",
        "Writing a page every morning, the novelist found her sentences getting smoother.",
    ],
}


def split_dataset_create(*, stories: dict[str, list[str]] | None = None, seed: int = 0) -> list:
    """Approved imported narratives of the given proverbs, with seen and unseen splits drawn."""
    from annotation.datasets.splits import narrative_splits_assign

    narratives = []
    for proverb_text, texts in (stories or STORIES).items():
        proverb = proverb_create(proverb_text)
        narratives.extend(
            narrative_create(proverb=proverb, text=text, status=Narrative.Status.APPROVED)
            for text in texts
        )
    narrative_splits_assign(seed=seed)
    return narratives


def aligned_dataset_create(
    *, stories: dict[str, list[str]] | None = None, aligned: int | None = None, seed: int = 0
) -> list:
    """split_dataset_create, then the first `aligned` narratives (all when None) each aligned
    by an approved worker: the proverb's first word with one of the narrative's second to
    fourth words (by the narrative's id)."""
    narratives = split_dataset_create(stories=stories, seed=seed)
    batch = batch_create(task_type="align")
    for narrative in narratives[:aligned]:
        proverb_word = re.search(r"\w+", narrative.proverb.text)
        words = list(re.finditer(r"\w+", narrative.text))
        word = words[1 + narrative.pk % 3]
        pair = (proverb_word.start(), proverb_word.end(), word.start(), word.end())
        alignment_create(narrative=narrative, pairs=[pair], batch=batch)
    return narratives


def finished_run_create(*, probabilities: dict, task: str = "classifier", **fields):
    """A succeeded run whose test predictions are `probabilities[narrative] = {proverb: p}`."""
    from modeling.models import Run
    from modeling.runs.snapshots import snapshot_freeze

    proverbs = sorted({pk for by_proverb in probabilities.values() for pk in by_proverb})
    texts = dict(Proverb.objects.filter(pk__in=proverbs).values_list("id", "text"))
    predictions = [
        {
            "narrative_id": narrative.pk,
            "proverb_id": narrative.proverb_id,
            "rank": 1 + sum(p > by_proverb[narrative.proverb_id] for p in by_proverb.values()),
            "predicted": sorted(by_proverb, key=lambda pk: -by_proverb[pk])[:5],
            "probabilities": [by_proverb[pk] for pk in proverbs],
        }
        for narrative, by_proverb in probabilities.items()
    ]
    fields.setdefault("model_name", "tiny")
    return Run.objects.create(
        task=task,
        setting="seen",
        snapshot=snapshot_freeze(),
        status=Run.Status.SUCCEEDED,
        predictions=predictions,
        candidates=[[pk, texts[pk]] for pk in proverbs],
        **fields,
    )


def opponent_run_create(*, model_name: str, task: str = "retrieval", **fields):
    """A finished proverb run that can oppose writers (by default retrieval, which scores
    with `model_name` off the shelf)."""
    return finished_run_create(probabilities={}, task=task, model_name=model_name, **fields)


def round_batch_create(
    *, proverbs: list[Proverb], round: int = 2, opponent: dict | None = None, **fields
) -> Batch:
    """A published write batch of a model-in-the-loop round (short stories allowed: five
    words), through the crowd services; `opponent` as the batch setting takes it."""
    settings = {"rules": {"min_words": 5}, "round": round, "opponent": opponent}
    return write_batch_create(proverbs=proverbs, settings=settings, **fields)


def round_story_write(batch: Batch, text: str, *, worker: Worker | None = None) -> Assignment:
    """A story of a round's batch asked of its opponent on the page (the answer stored),
    then submitted, through the services the page calls."""
    from annotation.opponents.checks import opponent_check_answer, opponent_check_ask
    from annotation.task_parts.overlap_rules import batch_rules
    from crowd.assignments import assignment_reserve_next, assignment_submit

    assignment = assignment_reserve_next(batch=batch, worker=worker or worker_create())
    check = opponent_check_ask(assignment=assignment, text=text, rules=batch_rules(batch.settings))
    opponent_check_answer(check_id=check.pk)
    assignment_submit(assignment=assignment, payload={"text": text})
    return Assignment.objects.get(pk=assignment.pk)


FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIGURATIVE_FILES = {
    "idiom": FIXTURES / "figurative" / "idioms.jsonl",
    "simile": FIXTURES / "figurative" / "similes.jsonl",
}
# Lines shaped like the benchmark's release: its key order, idioms marked twice or not at
# all, a simile property false, a narrative in train and dev, a test split's placeholders.
FIGURATIVE_RELEASE = FIXTURES / "figurative" / "release"
# Files written as the release writes them, to come back byte for byte: most lines with raw
# UTF-8, one escaped (caf\u00e9, \u2019), one narrative with two glosses, repeated texts,
# near-copies across train and dev, a trailing space, a property false, a stray </b>, final
# newlines present and absent.
FIGURATIVE_PUBLISHED = FIXTURES / "figurative" / "published"
# Stories the release publishes verbatim in train and dev, each time with another option pair
# (one narrative, pairs in two splits), beside a near-copy across them, a story repeated in
# train alone, a trailing space, and a dev file with no final newline.
FIGURATIVE_VERBATIM = FIXTURES / "figurative" / "verbatim"


def figurative_release_import(name: str, **options):
    """Import one file of tests/fixtures/figurative/release (e.g. "idiom_dev") by its split."""
    from annotation.datasets.figurative import figurative_import

    kind, split = name.split("_")
    content = (FIGURATIVE_RELEASE / f"{name}.jsonl").read_bytes()
    return figurative_import(content=content, kind=kind, split=split, **options)


def figurative_import_fixture(kind: str = "idiom", *, split: str = ""):
    """Import the small idiom or simile file of tests/fixtures/figurative through the service."""
    from annotation.datasets.figurative import figurative_import

    return figurative_import(content=FIGURATIVE_FILES[kind].read_bytes(), kind=kind, split=split)


def figurative_narrative_create(**fields):
    """An idiom narrative ("call it a day" highlighted) with its meaning."""
    from annotation.datasets.figurative import content_key
    from annotation.models import FigurativeNarrative

    text = fields.pop("text", "Maria worked all week, so on Friday she decided to call it a day.")
    expression = fields.pop("expression", "call it a day")
    meaning = fields.pop("meaning", "to stop working on something")
    kind = fields.pop("kind", "idiom")
    start = text.find(expression)
    return FigurativeNarrative.objects.create(
        kind=kind,
        text=text,
        expression=expression,
        expression_start=start if start >= 0 else None,
        expression_end=start + len(expression) if start >= 0 else None,
        meaning=meaning,
        content_key=content_key(kind=kind, text=text, expression=expression),
        **fields,
    )


def continuation_batch_create(*, narratives, **fields) -> Batch:
    """A published continuation batch with one item per figurative narrative."""
    fields.setdefault("target_per_item", 3)
    items = [{"figurative_narrative": narrative} for narrative in narratives]
    return task_batch_create(task_type="continue", items=items, **fields)


def writing_record(**counts) -> dict:
    """A writing record as the task page sends it: a story of `typed` characters typed key
    by key at a human pace with a few revisions and pauses, unless `counts` say otherwise."""
    typed = counts.get("typed", 160)
    record = {
        "version": 1,
        "typed": typed,
        "pasted": 0,
        "pasted_internal": 0,
        "dropped": 0,
        "inserted_without_keys": 0,
        "deleted": 6,
        "synthetic_events": 0,
        "synthetic": 0,
        "unexplained": 0,
        "keys": typed + 6,
        "pauses": 4,
        "paste_events": 0,
        "focused_ms": 90_000,
        "hidden_ms": 0,
        "composition_ms": 95_000,
        "burst_interval_ms_sum": 180 * (typed + 1),
        "burst_intervals": typed + 1,
        "intervals": [2, 10, 60, 70, 20, 4, 4, 0],
        "hidden_returns": [],
    }
    record.update(counts)
    return record


def writing_record_of(kind: str, rng) -> dict:
    """A writing record as a person makes it when composing a story on the page
    ("composed": pauses before words and sentences, revisions, an uneven rhythm) or
    copying a given text ("transcribed": a steady rhythm, hardly a revision, rare pauses
    anywhere), with person-to-person spread drawn from `rng` (random.Random)."""
    typed = rng.randint(400, 700)
    if kind == "composed":
        deleted = int(typed * rng.uniform(0.03, 0.15))
        pauses = rng.randint(4, 14)
        boundary = rng.randint(pauses // 2, pauses)
        bins = [rng.randint(0, 20), rng.randint(30, 90), rng.randint(80, 200)]
        bins += [rng.randint(60, 180), rng.randint(20, 90), rng.randint(5, 30), pauses, 0]
    else:
        deleted = int(typed * rng.uniform(0.0, 0.012))
        pauses = rng.randint(0, 2)
        boundary = rng.randint(0, pauses)
        bins = [rng.randint(0, 5), rng.randint(10, 40), rng.randint(250, 450)]
        bins += [rng.randint(40, 120), rng.randint(0, 10), 0, pauses, 0]
    keys = typed + deleted
    mean_ms = rng.uniform(150, 260) if kind == "composed" else rng.uniform(140, 200)
    sentence = rng.randint(0, boundary)
    return writing_record(
        typed=typed,
        deleted=deleted,
        keys=keys,
        pauses=pauses,
        word_pauses=boundary - sentence,
        sentence_pauses=sentence,
        burst_intervals=keys - 1 - pauses,
        burst_interval_ms_sum=int(mean_ms * (keys - 1 - pauses)),
        intervals=bins,
        focused_ms=int(keys * mean_ms) + pauses * 4000,
        composition_ms=int(keys * mean_ms) + pauses * 4000,
    )


def provider_calls_send() -> list[str]:
    """What runs once review decisions commit: send each provider call waiting (crowd.outbox),
    oldest first, as its task would. Returns their statuses."""
    from crowd.models import ProviderAction
    from crowd.outbox import provider_action_send

    waiting = ProviderAction.objects.filter(status=ProviderAction.Status.PENDING).order_by("pk")
    return [provider_action_send(action_id=pk) for pk in waiting.values_list("pk", flat=True)]
