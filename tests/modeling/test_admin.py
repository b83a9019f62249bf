"""Modeling admin: launch, watch, cancel, compare, and a choose batch from a run."""

import re

import pytest

from crowd.models import Batch
from modeling.models import Run
from modeling.runs.services import run_create
from tests.factories import STORIES, split_dataset_create
from tests.modeling.conftest import TINY_HYPERPARAMETERS

pytestmark = pytest.mark.django_db


def launch(client, tiny_model, **fields):
    return client.post(
        "/admin/modeling/run/add/",
        {
            "task": "biencoder",
            "setting": "seen",
            "model_name": tiny_model,
            "epochs": 2,
            "batch_size": 4,
            "learning_rate": 2e-5,
            "max_length": 32,
            "seeds": "1",
            **fields,
        },
    )


def test_launch_form_defaults_to_the_configured_model(client, researcher, settings):
    settings.PARABLE_MODELING_MODEL = "some/checkpoint"
    client.force_login(researcher)
    page = client.get("/admin/modeling/run/add/").content.decode()
    assert 'value="some/checkpoint"' in page and "biencoder" in page


def test_launched_run_shows_results_curves_and_predictions(
    client, researcher, tiny_model, artifacts, django_capture_on_commit_callbacks
):
    split_dataset_create()
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        response = launch(client, tiny_model)
    run = Run.objects.get()
    assert response.status_code == 302 and response.url.endswith(f"/{run.pk}/change/")
    assert run.status == "succeeded", run.error  # no broker here: it ran in-process
    page = client.get(response.url).content.decode()
    assert "Succeeded" in page and 'id="run-epochs"' in page and "<svg" in page
    assert "chosen on dev" in page and "Create a choose batch" in page
    assert 'id="run-motifs"' in page and "Jensen-Shannon" in page
    results = client.get("/admin/modeling/run/results/").content.decode()
    assert f"/admin/modeling/run/{run.pk}/change/" in results
    assert run.snapshot.content_hash[:10] in results and "<svg" in results
    download = client.get(f"/admin/modeling/run/{run.pk}/json/")
    assert download.json()["metrics"]["test"] == run.metrics["test"]


def test_launch_form_takes_the_head_rate_schedule_and_scale(client, researcher, tiny_model):
    split_dataset_create()
    client.force_login(researcher)
    page = client.get("/admin/modeling/run/add/").content.decode()
    assert 'name="head_learning_rate"' in page and 'name="schedule"' in page
    fields = {"head_learning_rate": 3e-3, "warmup_ratio": 0.05, "schedule": "constant"}
    launch(client, tiny_model, task="classifier", scale=12, **fields)
    stored = Run.objects.get().hyperparameters
    assert {key: stored[key] for key in fields} == fields and stored["scale"] == 12
    assert stored["learning_rate"] == 2e-5


def test_too_small_data_is_refused_on_the_form(client, researcher, tiny_model):
    client.force_login(researcher)
    response = launch(client, tiny_model)
    assert response.status_code == 200
    assert "no approved narratives" in response.content.decode()
    assert not Run.objects.exists()


def test_cancel_button_cancels_a_queued_run(client, researcher, tiny_model):
    split_dataset_create()
    run = run_create(task="retrieval", model_name=tiny_model, queue=False)
    client.force_login(researcher)
    assert "Cancel this run" in client.get(f"/admin/modeling/run/{run.pk}/change/").content.decode()
    client.post(f"/admin/modeling/run/{run.pk}/cancel/")
    run.refresh_from_db()
    assert run.status == "cancelled"


def test_choose_batch_from_a_run_opens_its_agreement_page(
    client, researcher, tiny_model, artifacts
):
    from modeling.runs.services import run_execute

    split_dataset_create()
    run = run_create(
        task="classifier", model_name=tiny_model, hyperparameters=TINY_HYPERPARAMETERS, queue=False
    )
    run_execute(run_id=run.pk)
    client.force_login(researcher)
    response = client.post(
        f"/admin/modeling/run/{run.pk}/distractors/",
        {"sample": 5, "options": 5, "target_per_item": 3, "seed": 1, "name": ""},
    )
    batch = Batch.objects.get(task_type="choose")
    assert response.url == f"/admin/agreement/{batch.pk}/"
    assert batch.items.count() == 5
    page = client.get(response.url).content.decode()
    assert 'data-testid="model-accuracy"' in page and "on 5 question(s)" in page


def test_reviewers_read_runs_but_cannot_launch_or_cancel(client, reviewer, tiny_model):
    split_dataset_create()
    run = run_create(task="retrieval", model_name=tiny_model, queue=False)
    client.force_login(reviewer)
    assert client.get(f"/admin/modeling/run/{run.pk}/change/").status_code == 200
    assert client.get("/admin/modeling/run/add/").status_code == 403
    assert client.post(f"/admin/modeling/run/{run.pk}/cancel/").status_code == 403
    run.refresh_from_db()
    assert run.status == "queued"


def test_anonymous_users_are_sent_to_the_login(client):
    response = client.get("/admin/modeling/run/results/")
    assert response.status_code == 302 and "/admin/login/" in response.url


def test_dataset_text_is_escaped_on_the_run_page(client, researcher, tiny_model, artifacts):
    from modeling.runs.services import run_execute

    stories = {
        "Look before you leap": [f"<script>alert({n})</script> a jump story" for n in range(4)],
        "Haste makes waste": [f"<b>rushed</b> story {n}" for n in range(4)],
        "Slow and steady wins the race": [f"tortoise story {n}" for n in range(4)],
    }
    split_dataset_create(stories=stories)
    run = run_create(task="retrieval", model_name=tiny_model, queue=False)
    run_execute(run_id=run.pk)
    client.force_login(researcher)
    page = client.get(f"/admin/modeling/run/{run.pk}/change/").content.decode()
    assert "<script>alert(" not in page and "&lt;script&gt;alert(" in page


def test_admin_index_links_the_baseline_results(client, researcher):
    client.force_login(researcher)
    page = client.get("/admin/").content.decode()
    assert 'href="/admin/modeling/run/results/"' in page
    assert client.get("/admin/modeling/run/results/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_with_no_broker_a_launch_answers_at_once_and_the_run_trains_behind(
    client, researcher, tiny_model, artifacts, settings
):
    import threading

    from tests.integration.processes import wait_until

    settings.PARABLE_MODELING_WITHOUT_BROKER = "thread"
    # Each story ten times over, so that an epoch is many steps: the run trains for long
    # enough to be seen training and cancelled (on the four stories alone it ran its 100
    # epochs in about 2 s, mostly between training steps, and could finish unseen).
    split_dataset_create(
        stories={
            proverb: [f"{text} ({copy})" for text in texts for copy in range(10)]
            for proverb, texts in STORIES.items()
        }
    )
    client.force_login(researcher)
    response = launch(client, tiny_model, epochs=100, batch_size=2)
    run = Run.objects.get()
    assert response.status_code == 302 and run.status in ("queued", "running")
    [thread] = [t for t in threading.enumerate() if t.name == f"run-{run.pk}"]
    wait_until(
        lambda: Run.objects.get(pk=run.pk).progress.get("stage") == "training",
        timeout=120,
        what="the run to train",
    )
    page = client.get(f"/admin/modeling/run/{run.pk}/change/").content.decode()
    assert 'http-equiv="refresh"' in page and "/100 · " in page  # live: epoch n/100
    client.post(f"/admin/modeling/run/{run.pk}/cancel/")
    thread.join(timeout=120)
    run.refresh_from_db()
    assert run.status == "cancelled" and run.error.startswith("Cancelled at epoch")


def test_a_classifier_run_page_says_its_status_once_and_only_the_settings_it_reads(
    client, researcher, tiny_model, artifacts, django_capture_on_commit_callbacks
):
    split_dataset_create()
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        response = launch(client, tiny_model, task="classifier")
    run = Run.objects.get()
    assert run.status == "succeeded", run.error
    page = client.get(response.url).content.decode()
    assert page.count("Succeeded") == 1 and 'data-testid="run-progress"' not in page
    shown = page.split('data-testid="run-hyperparameters">')[1].split("</code>")[0]
    assert "max_new_tokens" not in shown and "num_beams" not in shown
    assert "span_max_tokens" not in shown and "learning_rate" in shown
    listing = client.get("/admin/modeling/run/").content.decode()
    assert listing.count("Succeeded") == 2  # the status column and its filter, not the progress
    # As a round's opponent: its 12 held-out stories among the 6 curated proverbs, and what
    # it trained on.
    strength = page.split('data-testid="opponent-strength">')[1].split("</p>")[0]
    figures = run.metrics["round_task"]
    assert "on its 12 held-out stories among 6 proverbs: first " in strength
    assert f"mean rank {figures['mean_rank']:.1f} (chance 3.5)" in strength
    assert "trained on 6 stories of 6 proverbs" in strength


def finished_series(accuracies: list[float]) -> list[Run]:
    """Finished classifier runs of one configuration, one per seed, with these accuracies."""
    from tests.factories import finished_run_create

    narratives = split_dataset_create()
    proverbs = {narrative.proverb_id: 0.5 for narrative in narratives[:5]}
    probabilities = {
        narrative: {**proverbs, narrative.proverb_id: 0.9 - 0.5 * (number % 2)}
        for number, narrative in enumerate(narratives[:5])
    }
    return [
        finished_run_create(
            probabilities=probabilities,
            seed=seed,
            metrics={"test": {"accuracy": accuracy, "mrr": accuracy}},
            selected_epoch=1,
        )
        for seed, accuracy in enumerate(accuracies, start=1)
    ]


def test_results_show_a_series_over_seeds_as_mean_and_sd_with_each_run(client, researcher):
    runs = finished_series([0.2, 0.3, 0.4])
    client.force_login(researcher)
    page = client.get("/admin/modeling/run/results/").content.decode()
    assert 'data-testid="series"' in page
    assert 'data-testid="series-accuracy">30.00 ± 10.00<' in page
    for run in runs:
        assert f'href="/admin/modeling/run/{run.pk}/change/">{run.pk}</a> ({run.seed})' in page


def test_launching_three_seeds_from_the_form_queues_three_runs(client, researcher, tiny_model):
    split_dataset_create()
    client.force_login(researcher)
    response = launch(client, tiny_model, task="retrieval", seeds="1, 2, 3")
    assert response.status_code == 302
    assert sorted(Run.objects.values_list("seed", flat=True)) == [1, 2, 3]
    refused = launch(client, tiny_model, task="retrieval", seeds="1, one")
    assert "Seeds are whole numbers" in refused.content.decode()


def test_a_degenerate_generation_run_is_marked_on_its_page_and_in_the_results(client, researcher):
    from modeling.training.generation import generation_metrics
    from tests.modeling.test_generation_batch import finished_generation_run, keyword_dataset

    narratives = keyword_dataset()[:10]
    generated = dict.fromkeys(narratives, "the man was a good. he was a nice.")
    generated[narratives[0]] = "Tom sold the hall."
    run = finished_generation_run(generated)
    texts = [p["generated"] for p in run.predictions]
    run.metrics = {"test": generation_metrics(texts, texts, [["sold"]] * len(texts))}
    run.save()
    client.force_login(researcher)
    page = client.get(f"/admin/modeling/run/{run.pk}/change/").content.decode()
    assert 'data-testid="degenerate"' in page and "only 2/10 of the test outputs" in page
    assert "the man was a good. he was a nice. (×9)" in page
    assert "(degenerate)" in page
    results = client.get("/admin/modeling/run/results/").content.decode()
    assert 'data-testid="degenerate-row"' in results and "DEGENERATE" in results


def test_two_finished_runs_are_compared_on_the_results_page(client, researcher):
    first, second = finished_series([0.2, 0.3])[:2]
    client.force_login(researcher)
    page = client.get(
        f"/admin/modeling/run/results/?first={first.pk}&second={second.pk}"
    ).content.decode()
    assert 'data-testid="comparison"' in page and "paired bootstrap" in page
    assert 'data-testid="p-value">1.0000<' in page  # the same predictions: no difference
    missing = client.get(f"/admin/modeling/run/results/?first={first.pk}&second=999999")
    assert "There is no run 999999." in missing.content.decode()


def test_a_generation_run_not_like_the_references_is_marked_everywhere_it_is_shown(
    client, researcher
):
    from annotation.analysis.methods import methods_document
    from annotation.analysis.methods_render import methods_markdown
    from annotation.analysis.selectors import dataset_analysis
    from modeling.training.generation import generation_metrics
    from modeling.training.health import english_pipeline
    from tests.modeling.test_generation_batch import finished_generation_run, keyword_dataset
    from tests.modeling.test_health import rows

    salad = rows("word_salad.jsonl")
    test = generation_metrics(
        [row["generated"] for row in salad],
        [row["reference"] for row in salad],
        [row["keywords"] for row in salad],
        nlp=english_pipeline(),
    )
    narratives = keyword_dataset()[:10]
    runs = []
    for seed in (1, 2):
        run = finished_generation_run(dict.fromkeys(narratives, salad[seed]["generated"]))
        run.seed, run.metrics = seed, {"test": test}
        run.save()
        runs.append(run)
    client.force_login(researcher)
    page = client.get(f"/admin/modeling/run/{runs[0].pk}/change/").content.decode()
    assert 'data-testid="not-like-references"' in page
    assert "vocabulary (word types): 50 vs the references&#x27; 855" in page
    assert 'data-testid="health">not like the references<' in page
    results = client.get(
        f"/admin/modeling/run/results/?first={runs[0].pk}&second={runs[1].pk}"
    ).content.decode()
    assert 'data-testid="not-like-row"' in results
    assert 'data-testid="series-not-like">NOT LIKE THE REFERENCES in 2 run(s)' in results
    assert results.count('data-testid="comparison-not-like"') == 2
    text = methods_markdown(methods_document(analysis=dataset_analysis()))
    assert "In 2 of these runs the generated texts were not like the references" in text
    # Each run's failed figures, in the health check's order (vocabulary among them).
    failed = re.search(rf"run {runs[0].pk}: ([^;]*)", text).group(1)
    assert "vocabulary (word types): 50 vs the references' 855" in failed
