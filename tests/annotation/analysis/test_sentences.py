"""annotation.analysis.sentences: sentence splitting."""

from __future__ import annotations

import pytest

from annotation.analysis import sentences
from annotation.analysis.core import analyze
from tests.annotation.analysis.test_core import NARRATIVES, TEXTS

SPLITTER_PIECES = (
    "Hello world cannot gonna 5km 3.5 U.S. e.g. Mr. a. x. . ! ? ... ; , ( ) \" ' - -- "
    "_ __init__ é naïve ۔ । 。 ‼ ⁇ x X 1st"
)


def test_sentence_splitters():
    vectorized = sentences.build_sentencizer()
    component = sentences.build_sentencizer(vectorized=False)
    texts = [
        *TEXTS.values(),
        "",
        " ",
        "Hello",
        "! Hello",
        'Mr. Smith went. He said "hi." Then left',
        "Wait... what?! Yes",
        "(Hello.) (World.)",
        "a. b. c.",
        ". . .",
    ]
    assert vectorized(texts) == component(texts)
    assert vectorized(list(TEXTS.values())) == [2, 1, 3, 1]
    # Random mixes of words, numbers, abbreviations, punctuation, spacing and sentence
    # marks of other scripts, and ePiC-like synthetic narratives.
    import random

    from bench.analysis import synthetic

    pieces = SPLITTER_PIECES.split(" ")
    rng = random.Random(0)
    texts = [
        "".join(
            rng.choice(pieces) + rng.choice([" ", "", "  ", "\n", "\t"])
            for _ in range(rng.randint(0, 20))
        )
        for _ in range(3000)
    ]
    texts += [r.text for r in synthetic.narratives(300, seed=4)]
    assert vectorized(texts) == component(texts)
    assert sentences.get_sentence_splitter("sentencizer") is sentences.get_sentence_splitter()
    with pytest.raises(ValueError):
        sentences.get_sentence_splitter("nope")


def test_senter_splitter_is_selectable():
    result = analyze(NARRATIVES[:4], sentence_splitter="senter")
    assert result["parameters"]["sentence_splitter"] == "senter"
    assert result["sentences_per_narrative"] > 0


def test_sentence_splitter_loads_spacy_without_torch_and_leaves_torch_importable():
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from annotation.analysis.sentences import get_sentence_splitter\n"
        "assert get_sentence_splitter()(['One. Two!']) == [2]\n"
        "assert 'torch' not in sys.modules, 'spaCy pulled in torch'\n"
        "import torch\n"
        "assert torch.tensor([1, 2]).sum().item() == 3\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
