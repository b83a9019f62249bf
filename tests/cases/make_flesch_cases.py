"""Write tests/cases/flesch_textstat_0_7_2.json: Flesch reading ease by textstat 0.7.2 itself.

The ePiC paper measured Flesch reading ease with textstat 0.7.2; Parable reproduces its
rules (annotation/analysis/readability.py) and tests/annotation/analysis/test_readability.py
compares them with the figures recorded here. Run this with textstat 0.7.2 and the pyphen
of requirements.txt in a throwaway virtualenv (textstat 0.7.2 needs setuptools' pkg_resources):

    python3 -m venv /tmp/ts072
    /tmp/ts072/bin/pip install textstat==0.7.2 pyphen==0.18.1 "setuptools<70"
    /tmp/ts072/bin/python tests/cases/make_flesch_cases.py

The texts: hand-written irregular shapes, the narratives of the test fixtures, and seeded
random texts mixing punctuation, quotes, spacing and capitalisation.
"""

from __future__ import annotations

import json
import random
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures"

IRREGULAR = [
    "",
    "...",
    "Go!",
    "Go home now.",
    "The cat sat on the mat. It was happy!",
    "I don't know. Really? Yes! She'd've said it's fine, wouldn't she?",
    "Mr. Smith went to Washington.  He said “hi” — and   left.\nThe end. ok",
    "He paid $3.50 for 2.5 kg of apples. That's e.g. cheap! Isn't it?",
    'She said, "Leave now." Then she left. "Why?" he asked. (Nobody knew.) [Silence.] Done.',
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty twenty-one twenty-two twenty-three twenty-four "
    "incomprehensibility internationalization characteristically unquestionably.",
    "A b c. D e f. G h i. J k l.",
    "No capital after this. and so it goes on. And then? it ends!",
    "Tabs\tinside\ttext. And\nnewlines\nbetween words. Then  double  spaces.",
    "Ellipses... are... everywhere... Aren't they... Yes.",
    "UPPERCASE WORDS SHOUT LOUDLY. Lowercase words whisper softly.",
    "Café owners in São Paulo naïvely believed the rôle was theirs. Über-cool!",
    "Well-known, long-standing, self-evident truths—hyphenated and dashed—abound.",
    "Numbers 1, 22, 333 and 4444 count too. So do 5th and 6th.",
    "'Single quotes' and `backticks` and ~tildes~ and #hashes and @handles. Fine.",
    "Hi. Yo. Ok. Go. So. No.",
    " Leading and trailing spaces. ",
    "A sentence with a very long tail of words that keeps going and going without any stop "
    "at all because the writer never learned about periods or commas or anything like that "
    "and so the reader must hold all of it in mind until the very end which never comes",
]

WORD_LIST = (
    "the a an and of to in that it was he she they we you I his her their on with as for at by "
    "from but not had have be been were is are this which or one all would there when so if out "
    "time people year way day man woman child world life hand part place case week company "
    "system program question work government number night point home water room mother area "
    "money story fact month lot right study book eye job word business issue side kind head "
    "house service friend father power hour game line end member law car city community name "
    "president team minute idea kid body information back parent face others level office door "
    "health person art war history party result change morning reason research girl guy moment "
    "air teacher force education beautiful terrible happy sad angry wonderful horrible lovely "
    "extraordinary unbelievable responsibility comfortable particularly immediately Maria Tom "
    "London Chicago Google Monday"
)
WORDS = WORD_LIST.split()
MARKS = [".", ".", ".", "!", "?", "...", '."', "!)", "?]", ".'"]
INNER = [",", ";", ":", " -", " —", "", "", "", "", ""]


def random_text(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(1, 7)):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 24))]
        words = [word + rng.choice(INNER) for word in words]
        if rng.random() < 0.85:
            words[0] = words[0][:1].upper() + words[0][1:]
        if rng.random() < 0.1:
            words.insert(rng.randrange(len(words)), rng.choice(["don't", "it's", "we'll", "“yes”"]))
        sentences.append(" ".join(words) + rng.choice(MARKS))
    joints = [" ", " ", " ", "  ", "\n", " \n"]
    text = sentences[0]
    for sentence in sentences[1:]:
        text += rng.choice(joints) + sentence
    return text


def fixture_narratives() -> list[str]:
    texts = [
        record["fields"]["narrative"]
        for record in json.loads((FIXTURES / "epic" / "dataset.json").read_text())
    ]
    for path in sorted((FIXTURES / "figurative").rglob("*.jsonl")):
        texts += [json.loads(line)["narrative"] for line in path.read_text().splitlines() if line]
    return texts


def main() -> None:
    import textstat

    rng = random.Random(2022)
    texts = IRREGULAR + fixture_narratives() + [random_text(rng) for _ in range(300)]
    cases = [{"text": text, "flesch": textstat.flesch_reading_ease(text)} for text in texts]
    out = {"textstat": version("textstat"), "pyphen": version("pyphen"), "cases": cases}
    path = HERE / "flesch_textstat_0_7_2.json"
    path.write_text(json.dumps(out, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{len(cases)} cases written to {path}")


if __name__ == "__main__":
    main()
