"""The narrative cloze task type: a story with one sentence left out, the worker's sentence
checked by spaCy's parser, lemma match and agreement."""
