"""manage.py template_batch_create: the batch made, its report printed; a refusal stores nothing."""

import io

import pytest
from django.core.management import CommandError, call_command

from crowd.models import Batch
from tests.annotation.task_types.template.helpers import FIXTURES

pytestmark = pytest.mark.django_db


def test_the_command_creates_the_batch_and_prints_the_report():
    out = io.StringIO()
    call_command(
        "template_batch_create",
        "--template", str(FIXTURES / "entailment_page.html"),
        "--csv", str(FIXTURES / "entailment_pairs.csv"),
        "--name", "Entailment",
        "--assignments", "5",
        "--reward-cents", "15",
        stdout=out,
    )  # fmt: skip
    batch = Batch.objects.get()
    assert (batch.target_per_item, batch.reward_cents, batch.items.count()) == (5, 15, 4)
    printed = out.getvalue()
    assert "Template: a whole HTMLQuestion page. CSV: 4 row(s), UTF-8 with BOM." in printed
    assert "Fields collected (Answer.*): workerId (hidden), confidence_clicks (hidden)" in printed
    assert f"Batch {batch.pk} “Entailment”: draft." in printed


def test_the_command_refuses_and_stores_nothing(tmp_path):
    template = tmp_path / "t.html"
    template.write_text('<form action="https://example.org/x"><input name="a"></form>')
    (tmp_path / "rows.csv").write_text("a\n1\n")
    with pytest.raises(CommandError, match="Nothing was created: The template's form posts to"):
        call_command(
            "template_batch_create",
            "--template", str(template),
            "--csv", str(tmp_path / "rows.csv"),
            "--name", "X",
        )  # fmt: skip
    assert not Batch.objects.exists()
