"""The fixture templates and CSVs (tests/fixtures/template/), and a template batch made of them."""

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "template"
LAYOUT = (FIXTURES / "sentiment_layout.html").read_text(encoding="utf-8")
PAGE = (FIXTURES / "entailment_page.html").read_text(encoding="utf-8")
REVIEWS = (FIXTURES / "reviews_cp1252.csv").read_bytes()
PAIRS = (FIXTURES / "entailment_pairs.csv").read_bytes()


def import_mapping(header: list[str]) -> str:
    """The mapping with which mturk_results_import reads the CSV back (input.X=Input.X, ...)."""
    columns = [name for name in header if name.startswith(("Input.", "Answer."))]
    return ",".join(
        f"{name.split('.', 1)[0].lower()}.{name.split('.', 1)[1]}={name}" for name in columns
    )


def template_batch(*, source=LAYOUT, content=REVIEWS, name="Reviews", **fields):
    """A draft template batch of the fixtures (the layout and its Windows-1252 CSV)."""
    from annotation.task_types.template.creation import template_batch_create

    fields.setdefault("target_per_item", 3)
    return template_batch_create(name=name, source=source, content=content, **fields)[0]


def answered(batch, answers: list[tuple[int, str, list]]):
    """Workers' answers to a published template batch: (item position, worker id, fields)."""
    from crowd.assignments import assignment_reserve_next, assignment_submit
    from crowd.models import Worker

    stored = []
    for position, worker_id, fields in answers:
        worker, _ = Worker.objects.get_or_create(provider="local", external_id=worker_id)
        item = batch.items.get(position=position)
        assignment = assignment_reserve_next(batch=batch, worker=worker, item=item)
        assignment_submit(assignment=assignment, payload={"fields": fields})
        stored.append(assignment)
    return stored
