"""The generation baseline's run: the generator a checkpoint's config asks for, trained on the
narratives with keywords, the epoch chosen on dev, test decoded and scored
(modeling.training.generator says how)."""

from __future__ import annotations

import time

from common.encoder import ModelNotFound, loading, resolve_model
from modeling.training.generation import generation_metrics, generation_parts, keywords_found
from modeling.training.generator import DECODING_LABELS, SELECTION, Generator
from modeling.training.health import english_pipeline
from modeling.training.hyperparameters import RunRequest
from modeling.training.loop import finished, seeded, shuffled_batches, train_epochs


def load_generator(model_name: str) -> Generator:
    """The checkpoint as a generator: a causal decoder (GPT-2, Llama, Gemma: a causal LM
    with no masked-LM form) as modeling.training.causal's, anything else as a seq2seq model
    (modeling.training.seq2seq: T5, BART, or an encoder warm-started); ModelNotFound."""
    from transformers import AutoConfig
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    path = resolve_model(model_name)
    try:
        config = AutoConfig.from_pretrained(path, **loading())
    except (OSError, ValueError) as error:
        raise ModelNotFound(
            f"Cannot load the model {model_name!r} for generation: not a folder, not a "
            f"PyPI-shipped model, or not loadable from a hub here ({error})."
        ) from error
    kind = config.model_type
    if kind in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and kind not in MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        from modeling.training.causal import CausalDecoder

        return CausalDecoder(path)
    from modeling.training.seq2seq import Seq2Seq

    return Seq2Seq(model_name)


def run_generation(request: RunRequest) -> dict:
    """Train on the narratives with keywords, choose the epoch on dev, decode and score test.

    The result has the keys of every baseline's (modeling.training.registry). Raises
    SnapshotError, ModelNotFound, Cancelled.
    """
    hp, reporter = request.hyperparameters, request.reporter
    clock = seeded(request.seed)
    selected = generation_parts(request.examples, setting=request.setting, seed=request.seed, hp=hp)
    parts = selected.parts
    reporter.progress({"stage": "loading model", "elapsed": 0.0})
    generator = load_generator(request.model).to(request.device)
    loaded = clock.elapsed()
    trained = train_epochs(
        model=generator.model,
        parameters=generator.parameter_groups(),
        batches=lambda rng: shuffled_batches(parts.train, hp.batch_size, rng),
        loss=lambda batch: generator.loss(batch, hp)[0],
        evaluate=lambda: ({"dev": {"loss": generator.dev_loss(parts.dev, hp)}}, None),
        dev_key=lambda record: -record["dev"]["loss"],
        shown="loss",
        request=request,
        clock=clock,
    )
    generate_started = time.monotonic()

    def decoding(step: int, steps: int) -> None:
        reporter.progress(
            {"stage": "generating test narratives", "step": step, "steps": steps, "epoch": None}
        )

    test = parts.test
    generated = generator.generate(test, hp, progress=decoding)
    generate_seconds = time.monotonic() - generate_started
    reporter.progress({"stage": "scoring test narratives", "elapsed": clock.elapsed()})
    metrics = generation_metrics(
        generated,
        [e.narrative for e in test],
        [list(e.keywords) for e in test],
        nlp=english_pipeline(),
    )
    predictions = [
        {
            "narrative_id": example.narrative_id,
            "proverb_id": example.proverb_id,
            "proverb": example.proverb,
            "keywords": list(example.keywords),
            "reference": example.narrative,
            "generated": text,
            "keywords_found": sum(keywords_found(text, example.keywords)),
        }
        for example, text in zip(test, generated, strict=True)
    ]
    if request.artifact_dir is not None:
        generator.save(request.artifact_dir)
    result = {
        "epochs": trained.history,
        "selected_epoch": trained.best["epoch"],
        "metrics": {
            "test": {**metrics, "decoding": DECODING_LABELS[hp.keyword_decoding]},
            "dev": trained.best["dev"],
            "selection": SELECTION,
        },
        "predictions": predictions,
        "candidates": [],
        "counts": {
            "train": len(parts.train),
            "dev": len(parts.dev),
            "test": len(test),
            "without_keywords": selected.left_out,
        },
        "durations": {
            "train": trained.train_seconds,
            "evaluate": trained.evaluate_seconds,
            "generate": generate_seconds,
        },
        "model_path": generator.path,
        "pooling": None,
        "model_kind": generator.kind,
    }
    return finished(result, clock, loaded, request)
