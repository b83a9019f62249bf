"""Calibration of the near-duplicate and homogeneity thresholds on a synthetic dataset.

The ePiC release is not shipped with Parable, so this builds an ePiC-shaped set: 250
proverbs x 10 stories of 60-110 words, each story composed from its own people, place,
situation, turn and outcome (large pools, so stories of one proverb differ as different
workers' stories do, while sharing the proverb's theme words), and 15-story sets per
synthetic worker. It embeds them with the shipped all-MiniLM-L6-v2 and prints the
nearest-neighbour similarity distribution among the originals (how many a threshold
would flag: the target is under 1%) beside the similarity of planted near-copies (a few
words changed, names swapped, sentences reordered, a paraphrase of every fifth word) to
their originals (how many it would catch); then the same for the name-blind word-trigram
copy check, which catches what renaming hides from the embedding. On a real dataset, run
`manage.py similarity_report --source-label ePiC` instead.

Run: .venv/bin/python bench/integrity/similarity.py  (about a minute on 2 cores)
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

NAMES = [
    "Maya",
    "Leo",
    "Priya",
    "Tom",
    "Ana",
    "Raj",
    "Lucia",
    "Omar",
    "Chen",
    "Fatima",
    "Jonas",
    "Keiko",
    "Samuel",
    "Ines",
    "Dmitri",
    "Grace",
    "Kwame",
    "Sofia",
    "Arjun",
    "Hannah",
    "Mateo",
    "Aisha",
    "Felix",
    "Nora",
    "Tariq",
    "Elena",
    "Bruno",
    "Yara",
    "Victor",
    "Mei",
    "Paolo",
    "Zara",
    "Hugo",
    "Amara",
    "Lars",
    "Rosa",
    "Ibrahim",
    "Clara",
    "Diego",
    "Noor",
]
RELATIONS = [
    "her neighbour",
    "his sister",
    "their landlord",
    "an old classmate",
    "the new manager",
    "a retired teacher",
    "her cousin",
    "his business partner",
    "a stranger on the bus",
    "the night-shift nurse",
    "her grandfather",
    "a younger colleague",
    "the shop owner next door",
    "his football coach",
]
PLACES = [
    "a small bakery in Lisbon",
    "a crowded call centre",
    "the village school",
    "a night bus to the coast",
    "a hospital kitchen",
    "a family farm",
    "a startup office above a laundromat",
    "the town library",
    "a fishing boat",
    "a wedding in Nairobi",
    "a chess club",
    "a hardware store",
    "a mountain hostel",
    "an airport gate at midnight",
    "a community garden",
    "a university lab",
    "a courtroom",
    "a music school",
    "a car repair shop",
    "a refugee shelter",
    "a ski resort",
    "a newspaper office",
]
SITUATIONS = [
    "had saved for months to buy a used car",
    "was asked to train a nervous new employee",
    "promised to finish a report by Friday",
    "lent money to a friend who never paid it back",
    "found a wallet full of cash on the pavement",
    "was offered a job in another city",
    "entered a cooking contest against professionals",
    "tried to fix the roof alone",
    "ignored a strange noise in the engine",
    "bought cheap shoes for a long hike",
    "stayed up all night before the final exam",
    "argued with the team about a deadline",
    "planted tomatoes too early in spring",
    "agreed to organise the street festival",
    "kept postponing a visit to the dentist",
    "spent the bonus on a lottery ticket",
    "volunteered to babysit three toddlers",
    "boasted about winning the marathon",
    "took a shortcut through the forest",
    "refused help with moving the furniture",
]
TURNS = [
    "Things went wrong almost at once.",
    "Nobody expected what happened next.",
    "At first everything seemed fine.",
    "Then the weather changed.",
    "A week later the phone rang.",
    "By the evening the mood had shifted.",
    "The plan fell apart in the second week.",
    "Halfway through, a problem appeared.",
    "Soon the whole street was talking about it.",
    "Luck seemed to be on their side for a while.",
]
OUTCOMES = [
    "In the end the repairs cost twice as much as a proper job would have.",
    "The small kindness was returned years later, when it mattered most.",
    "Everyone laughed about it at dinner, but the lesson stayed.",
    "The money was gone, and so was the friendship.",
    "They finished late, tired, and prouder than ever before.",
    "The manager remembered who had stayed to help.",
    "After that day nobody trusted the shortcut again.",
    "It took a whole season to make up for one careless morning.",
    "What looked like bad luck turned out to be the best thing that happened that year.",
    "The quiet colleague ended up leading the project.",
]
DETAILS = [
    "The coffee machine had been broken for a week.",
    "It was the coldest February in years.",
    "Rent was due on Monday.",
    "The radio played the same song over and over.",
    "Everyone was tired after a long season.",
    "The children were on holiday.",
    "There was a strike on the trains.",
    "The old dog followed them everywhere.",
    "Prices at the market had doubled.",
    "A storm was forecast for the weekend.",
]
THEMES = [
    [
        "patience",
        "haste",
        "trust",
        "debt",
        "pride",
        "greed",
        "friendship",
        "preparation",
        "risk",
        "habit",
        "kindness",
        "laziness",
        "honesty",
        "envy",
        "courage",
    ]
]
SYNONYMS = {
    "money": "cash",
    "friend": "pal",
    "job": "position",
    "week": "seven days",
    "late": "behind schedule",
    "help": "assistance",
    "old": "aged",
    "small": "little",
    "months": "ages",
    "buy": "purchase",
    "finish": "complete",
    "tired": "exhausted",
    "proud": "pleased",
    "happened": "occurred",
    "everyone": "everybody",
    "nobody": "no one",
    "quiet": "silent",
    "cost": "came to",
    "street": "road",
    "trusted": "relied on",
}


REACTIONS = ["did not listen", "only shrugged", "laughed it off", "agreed and then forgot"]


def story(rng: random.Random, theme: str) -> str:
    name, other = rng.sample(NAMES, 2)
    relation = rng.choice(RELATIONS)
    if rng.random() < 0.3:
        second_try = rng.choice(SITUATIONS).split(" ", 1)[1]
    else:
        second_try = f"had to ask {other} for help"
    sentences = [
        f"{name} worked at {rng.choice(PLACES)} and {rng.choice(SITUATIONS)}.",
        rng.choice(DETAILS),
        f"{other}, {relation}, warned that it was a matter of {theme}, but {name} "
        f"{rng.choice(REACTIONS)}.",
        rng.choice(TURNS),
        f"{name} {second_try}.",
        rng.choice(DETAILS),
        rng.choice(OUTCOMES),
    ]
    return " ".join(sentences)


def near_copies(rng: random.Random, text: str) -> dict[str, str]:
    words = text.split()
    few = list(words)
    for index in rng.sample(range(len(few)), 3):
        few[index] = rng.choice(["really", "quite", "very", "just"]) + " " + few[index]
    names = [word for word in NAMES if word in text]
    swapped = text
    others = rng.sample([n for n in NAMES if n not in names], len(names))
    for name, new in zip(names, others, strict=True):
        swapped = swapped.replace(name, new)
    sentences = text.split(". ")
    reordered = ". ".join(sentences[1:2] + sentences[:1] + sentences[2:])
    paraphrased = " ".join(
        SYNONYMS.get(word.lower(), word) if index % 5 == 0 else word
        for index, word in enumerate(words)
    )
    for word, synonym in SYNONYMS.items():
        paraphrased = paraphrased.replace(f" {word} ", f" {synonym} ")
    return {
        "three words added": " ".join(few),
        "names swapped": swapped,
        "two sentences swapped": reordered,
        "paraphrased": paraphrased,
    }


def nearest(vectors: np.ndarray, groups: list[list[int]]) -> list[float]:
    values = []
    for members in groups:
        matrix = vectors[members]
        scores = matrix @ matrix.T
        np.fill_diagonal(scores, -1.0)
        values.extend(scores.max(axis=1).tolist())
    return values


def nearest_overlap(shingles: list[set], groups: list[list[int]]) -> list[float]:
    """Each story's highest name-blind trigram Jaccard with another story of its group."""
    from annotation.text import jaccard

    best = [0.0] * len(shingles)
    for members in groups:
        for position, first in enumerate(members):
            for second in members[position + 1 :]:
                overlap = jaccard(shingles[first], shingles[second])
                best[first] = max(best[first], overlap)
                best[second] = max(best[second], overlap)
    return best


def main() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    django.setup()
    from annotation.quality.embeddings import embed
    from annotation.quality.integrity import IntegritySettings

    rng = random.Random(13)
    themes = THEMES[0]
    proverbs, per_proverb, per_worker = 250, 10, 15
    texts, proverb_of = [], []
    for proverb in range(proverbs):
        theme = themes[proverb % len(themes)]
        for _ in range(per_proverb):
            texts.append(story(rng, theme))
            proverb_of.append(proverb)
    order = list(range(len(texts)))
    rng.shuffle(order)
    workers = [order[start : start + per_worker] for start in range(0, len(order), per_worker)]
    copies = {kind: [] for kind in near_copies(rng, texts[0])}
    originals = rng.sample(range(len(texts)), 50)
    for index in originals:
        for kind, text in near_copies(rng, texts[index]).items():
            copies[kind].append(text)

    started = time.perf_counter()
    vectors = embed(texts)
    copy_vectors = {kind: embed(items) for kind, items in copies.items()}
    seconds = time.perf_counter() - started
    by_proverb = [
        [i for i in range(len(texts)) if proverb_of[i] == proverb] for proverb in range(proverbs)
    ]
    same_proverb = np.array(nearest(vectors, by_proverb))
    same_worker = np.array(nearest(vectors, workers))
    defaults = IntegritySettings()
    words = [len(text.split()) for text in texts]

    print("Similarity thresholds on a synthetic ePiC-shaped set (all-MiniLM-L6-v2, CPU)")
    print(
        f"  {len(texts):,} stories ({proverbs} proverbs x {per_proverb}; {len(workers)} workers "
        f"x {per_worker}), {min(words)}-{max(words)} words; embedded "
        f"{len(texts) + 4 * len(originals):,} texts in {seconds:.1f} s; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}"
    )
    print("\n  Nearest other story, originals only:")
    print(f"  {'':<26}{'p50':>7}{'p90':>7}{'p99':>7}{'max':>7}")
    for label, values in (("same proverb", same_proverb), ("same worker", same_worker)):
        q = np.quantile(values, [0.5, 0.9, 0.99])
        print(f"  {label:<26}{q[0]:>7.3f}{q[1]:>7.3f}{q[2]:>7.3f}{values.max():>7.3f}")
    print("\n  Planted near-copies: similarity to their original")
    print(f"  {'':<26}{'min':>7}{'p50':>7}")
    copy_scores = {}
    for kind, matrix in copy_vectors.items():
        scores = np.einsum("ij,ij->i", matrix, vectors[originals])
        copy_scores[kind] = scores
        print(f"  {kind:<26}{scores.min():>7.3f}{np.median(scores):>7.3f}")
    print("\n  threshold   originals flagged (same proverb / same worker)   copies caught")
    for threshold in (0.7, 0.75, 0.8, 0.85, 0.9, 0.95):
        caught = np.mean([(scores >= threshold).mean() for scores in copy_scores.values()])
        marks = []
        if threshold == defaults.near_duplicate_similarity:
            marks.append("near-duplicate default")
        if threshold == defaults.homogeneity_similarity:
            marks.append("homogeneity default")
        print(
            f"  {threshold:>9.2f}   {(same_proverb >= threshold).mean():>8.2%} / "
            f"{(same_worker >= threshold).mean():>6.2%}{'':<27}{caught:>7.0%}"
            + (f"   <- {', '.join(marks)}" if marks else "")
        )
    copy_section(texts, copies, originals, by_proverb, workers, copy_scores, defaults)


def copy_section(texts, copies, originals, by_proverb, workers, copy_scores, defaults) -> None:
    """The name-blind copy check beside the embedding check."""
    from annotation.text import copy_shingles, jaccard

    shingles = [copy_shingles(text) for text in texts]
    groups = by_proverb + workers
    overlaps = np.array(nearest_overlap(shingles, groups))
    print("\n  Name-blind word-trigram overlap (Jaccard), the copy check")
    q = np.quantile(overlaps, [0.5, 0.9, 0.99])
    print(
        f"  {'nearest other story':<26}{q[0]:>7.3f}{q[1]:>7.3f}{q[2]:>7.3f}{overlaps.max():>7.3f}"
    )
    copy_overlaps = {
        kind: np.array(
            [
                jaccard(copy_shingles(text), shingles[index])
                for text, index in zip(items, originals, strict=True)
            ]
        )
        for kind, items in copies.items()
    }
    print(f"  {'planted copy':<26}{'min':>7}{'p50':>7}")
    for kind, values in copy_overlaps.items():
        print(f"  {kind:<26}{values.min():>7.3f}{np.median(values):>7.3f}")
    print("\n  overlap threshold   originals flagged   copies caught (either check, per kind)")
    for threshold in (0.3, 0.4, 0.5, 0.6, 0.7):
        caught = {
            kind: (
                (copy_overlaps[kind] >= threshold)
                | (copy_scores[kind] >= defaults.near_duplicate_similarity)
            ).mean()
            for kind in copies
        }
        mark = "   <- default" if threshold == defaults.near_copy_share else ""
        per_kind = ", ".join(f"{kind} {share:.0%}" for kind, share in caught.items())
        print(f"  {threshold:>17.2f}   {(overlaps >= threshold).mean():>17.2%}   {per_kind}{mark}")


if __name__ == "__main__":
    main()
