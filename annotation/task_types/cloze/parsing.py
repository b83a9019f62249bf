"""spaCy's parser for the narrative cloze: stories into sentences, reduced sentences, and the
check that a worker's answer is a full sentence (a root verb with a subject).

The pilot's three display conditions (Bennett): the sentence in full, its main verb with its
principal arguments ("We remain at table for hours." for "Just to spite him, we remained at
our table for nearly 3 hours."), or its subject and verb only. The main verb is the root's
lemma (a passive's participle as written). The pipeline (PARABLE_SPACY_MODEL) is loaded once
per process, in the background as soon as a cloze page is shown.
"""

from __future__ import annotations

import threading
from functools import lru_cache

from django.conf import settings

from common.nlp import spacy_pipeline

SUBJECTS = {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"}
OBJECTS = {"dobj", "obj", "dative", "attr", "oprd", "acomp"}
VERB_TAGS = {"VERB", "AUX"}
FULL, ARGUMENTS, SUBJECT_VERB = "full", "arguments", "subject_verb"
CONDITIONS = (FULL, ARGUMENTS, SUBJECT_VERB)
MAX_ANSWER_CHARACTERS = 500  # bounds the parse: well within the 300 ms an answer may take


_loading = threading.Lock()


def pipeline():
    """The spaCy pipeline; a caller arriving while another thread loads it waits for that."""
    with _loading:
        return spacy_pipeline(settings.PARABLE_SPACY_MODEL)


def pipeline_warm() -> None:
    """Start loading the pipeline in the background (a page that will soon need it calls this),
    so that the first answer check of a fresh process does not wait seconds for the load."""
    threading.Thread(target=pipeline, name="spacy-warm", daemon=True).start()


def parse(text: str):
    return pipeline()(text)


@lru_cache(maxsize=16384)
def sentence_count(text: str) -> int:
    """How many sentences the parser finds in a story, as a cloze item counts them (kept
    per text: a batch form and each refresh ask again about the same stories)."""
    return len(list(parse(text).sents))


def _subject(root):
    return next((child for child in root.children if child.dep_ in SUBJECTS), None)


def _verb_form(root) -> str:
    """The root's lemma, or the participle as written when the sentence is passive."""
    if any(child.dep_ == "auxpass" for child in root.children):
        return root.text.lower()
    return root.lemma_.lower()


def main_verb_lemma(sentence) -> str:
    """The lemma of the sentence's root when it is a verb, else ""."""
    root = sentence.root
    return root.lemma_.lower() if root.pos_ in VERB_TAGS else ""


def _word(token) -> str:
    return token.text if token.pos_ == "PROPN" or token.text == "I" else token.text.lower()


def reduced(sentence, condition: str) -> str:
    """The sentence as shown in a condition: in full, verb and arguments, or subject and verb."""
    if condition == FULL:
        return sentence.text.strip()
    root = sentence.root
    if root.pos_ not in VERB_TAGS:
        return sentence.text.strip()
    subject = _subject(root)
    kept = [(root.i, _verb_form(root))]
    if subject is not None:
        kept.append((subject.i, _word(subject)))
    if condition == ARGUMENTS:
        for child in root.children:
            if child.dep_ in OBJECTS:
                kept.append((child.i, _word(child)))
            elif child.dep_ in {"prep", "agent"}:
                objects = [grand for grand in child.children if grand.dep_ == "pobj"]
                if objects:
                    kept.append((child.i, f"{child.text.lower()} {_word(objects[0])}"))
    words = " ".join(word for _, word in sorted(kept))
    return words[:1].upper() + words[1:] + "."


def story_shown(text: str, *, blank: int, condition: str) -> tuple[list[str], list, str]:
    """(sentences, shown: each reduced and None at `blank`, the left-out one's lemma): what
    the cloze page shows of a story."""
    if condition not in CONDITIONS:
        raise ValueError(f"condition must be one of {', '.join(CONDITIONS)}.")
    sentences = list(parse(text).sents)
    if not 0 <= blank < len(sentences):
        raise ValueError(f"The story has {len(sentences)} sentence(s); no sentence {blank + 1}.")
    shown = [
        None if index == blank else reduced(sentence, condition)
        for index, sentence in enumerate(sentences)
    ]
    written = [sentence.text.strip() for sentence in sentences]
    return written, shown, main_verb_lemma(sentences[blank])


def sentence_check(text: str) -> dict:
    """Whether the answer is one full sentence: {"ok", "missing" ("text", "verb", "subject"
    or "one sentence"), "message", "lemma"}; a fragment, imperative or noun phrase is not."""
    text = text.strip()
    if not text:
        return _verdict(["text"], "Write a sentence.")
    if len(text) > MAX_ANSWER_CHARACTERS:
        return _verdict(
            ["one sentence"], f"Write one sentence of at most {MAX_ANSWER_CHARACTERS} characters."
        )
    sentences = [sentence for sentence in parse(text).sents if sentence.text.strip()]
    if len(sentences) > 1:
        return _verdict(["one sentence"], "Write one sentence, not several.")
    root = sentences[0].root
    missing = []
    if root.pos_ not in VERB_TAGS:
        missing.append("verb")
    if root.pos_ not in VERB_TAGS or _subject(root) is None:
        missing.append("subject")
    if missing:
        lacking = " and ".join(f"a {part}" for part in missing)
        return _verdict(
            missing,
            f"This is not a full sentence: it needs {lacking} "
            '(who or what does something, and what they do, as in "The dog barked.").',
        )
    return {"ok": True, "missing": [], "message": "", "lemma": main_verb_lemma(sentences[0])}


def _verdict(missing: list[str], message: str) -> dict:
    return {"ok": False, "missing": missing, "message": message, "lemma": ""}
