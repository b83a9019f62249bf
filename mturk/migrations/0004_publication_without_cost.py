"""A publication no longer keeps a confirmed cost: the cost estimate with AWS's commission
went when AWS closed Mechanical Turk (30 September 2026)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("mturk", "0003_bonuses_to_provider_calls"),
    ]

    operations = [
        migrations.RemoveField(model_name="publication", name="confirmed_cost_cents"),
    ]
